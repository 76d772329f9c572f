// Error message ids (gpuplan/messages.h): unique dotted ids, English templates whose values
// fill them in order, and errors that carry their id and values while the message stays the
// CLI's English.
#include <gtest/gtest.h>

#include <set>

#include "gpuplan/catalog.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/query.h"
#include "gpuplan/request.h"
#include "catalog/json_reader.h"

namespace gpuplan {
namespace {

TEST(Messages, IdsAreUniqueAndTemplatesNumberTheirValuesFromZero) {
  std::set<std::string> ids;
  for (const MessageSpec& m : message_specs()) {
    EXPECT_TRUE(ids.insert(m.id).second) << "id twice: " << m.id;
    EXPECT_NE(std::string(m.id).find('.'), std::string::npos) << m.id;
    EXPECT_EQ(message_id(m.msg), std::string(m.id));
    const std::vector<int> used = message_placeholders(m.english);
    for (size_t i = 0; i < used.size(); ++i) EXPECT_EQ(used[i], static_cast<int>(i)) << m.id;
  }
  EXPECT_EQ(std::string(message_id(Msg::none)), "");
}

TEST(Messages, RenderFillsPlaceholdersAndLeavesOthers) {
  EXPECT_EQ(render_message("--{0}: {1} is out of range [{2}, {3}]", {"batch", "-5", "1", "9"}),
            "--batch: -5 is out of range [1, 9]");
  EXPECT_EQ(render_message("{1} before {0}; {2} has no value", {"a", "b"}),
            "b before a; {2} has no value");
  EXPECT_EQ(message_placeholders("{1} {0} {1}"), (std::vector<int>{0, 1}));
}

TEST(Messages, LinkValueErrorsCarryIdAndValues) {
  auto q = parse_query_string("model=gpt2-small&batch=-5");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().message, "--batch: -5 is out of range [1, 100000000]");
  EXPECT_EQ(q.error().id, Msg::query_out_of_range);
  EXPECT_EQ(q.error().args, (std::vector<std::string>{"batch", "-5", "1", "100000000"}));
  auto n = parse_query_string("tokens=lots");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().id, Msg::query_not_number);
  EXPECT_EQ(n.error().message, "--tokens: 'lots' is not a number");
  auto esc = query_to_args("model=%zz");
  ASSERT_FALSE(esc.ok());
  EXPECT_EQ(esc.error().id, Msg::link_bad_escape);
}

TEST(Messages, ImpossibleSetupsAndUnknownIdsCarryTheirIds) {
  const Catalog catalog = load_catalog(embedded_data_files()).value();
  auto ev = [&](const std::string& link) {
    auto q = parse_query_string(link);
    EXPECT_TRUE(q.ok()) << link;
    return evaluate(catalog, q.value());
  };
  auto gpu = ev("model=gpt2-small&gpu=h100-nope");
  ASSERT_FALSE(gpu.ok());
  EXPECT_TRUE(gpu.error().id == Msg::eval_unknown_gpu ||
              gpu.error().id == Msg::eval_unknown_gpu_like)
      << gpu.error().message;
  auto tp = ev("model=gpt2-small&gpu=a100-sxm4-80gb&gpus=4&tp=3");
  ASSERT_FALSE(tp.ok());
  EXPECT_EQ(tp.error().id, Msg::eval_tp_pp_not_divide);
  EXPECT_EQ(tp.error().message, "--tp x --pp x --cp = 3 does not divide the 4 GPUs");
}

TEST(Messages, FileErrorsCarryIdAndTheFileName) {
  auto empty = parse_json_text("", "config.json", 100);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().id, Msg::file_empty);
  EXPECT_EQ(empty.error().args.front(), "config.json");
  auto bad = parse_json_text("{\"a\": NaN}", "config.json", 100);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().id, Msg::file_not_json_nan);
  EXPECT_EQ(bad.error().message,
            "config.json: not valid JSON at line 1, column 7: JSON has no NaN or Infinity (write "
            "null or a number)");
}

}  // namespace
}  // namespace gpuplan
