// The core's notes and errors on the Chinese page (issue 29): every line the Results, Plans and
// Serving tabs show for a spread of links (LoRA, MoE with expert parallelism, a layer graph in
// FP8, spot pricing, a budget that binds, serving with ShareGPT lengths, FP8 weights on a GPU
// without FP8, a PCIe interconnect, attention data parallelism, a bad link) is in Chinese with its
// values kept, and the planner's budget is stated in the page's currency. The lines are also handed
// to web/check_strings.py --shown, whose ZH_LATIN allow-list says which Latin words a Chinese text
// may keep. So are the remarks of the zoo's model names (data/models name_zh).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/plan.h"
#include "model/exports.h"
#include "model/page_model.h"
#include "web_test_util.h"

namespace gpuplan::web {
namespace {

using page_test::catalog;
using page_test::serving;

PageModel page(const std::string& link) {
  return page_test::computed_page(link);
}

// The lines of the page's DOM mirror that carry the core's words: its notes and errors by tab,
// and each problem of the link.
std::vector<std::string> shown_lines(const PageModel& m) {
  set_money(page_money(m));
  const auto j = nlohmann::json::parse(results_json(m, ""));
  std::vector<std::string> out;
  for (const char* tab : {"results", "plans", "serving"})
    for (const auto& line : j["notes_shown"][tab]) out.push_back(line.get<std::string>());
  for (const auto& p : j["link_problems"]) out.push_back(p["shown"].get<std::string>());
  return out;
}

// Each link, words of what the English page says on it (flags as control names), so the test
// fails when a link stops producing the line it is here for rather than passing on nothing.
struct Case {
  const char* link;
  const char* english;
};
const Case kCases[] = {
    {"model=llama-2-7b&lora-rank=16&batch=8&gpu=a100-sxm4-80gb&memory-format=nchw&tokens=1e8",
     "applies to convolutions"},
    {"model=mixtral-8x7b&batch=64&precision=bf16&instance=aws-p5.48xlarge&nodes=2&ep=8&sp=true&"
     "tp=2&checkpointing=selective&tokens=1e9",
     "selective checkpointing (attention core) saves nothing"},
    {"model=resnet50&batch=256&precision=fp8&gpu=h100-sxm5-80gb&checkpointing=full",
     "Transformer Engine's fp8 quantises"},
    {"model=qwen3-30b-a3b&gpu=gb200&gpus=4&precision=mxfp8&framework=megatron&micro-batch=1&"
     "seq=4096&checkpointing=selective&zero=1&ep=4",
     "host-bound: the host launches"},
    {"model=gpt2-small&batch=8&tokens=1e8&pricing=spot&provider=runpod&tab=plans",
     "spot times assume no interruptions"},
    {"model=llama-2-7b&batch=512&seq=4096&tokens=1e11&budget-usd=1&tab=plans",
     "budget binds: the cheapest plan costs"},
    {"model=llama-3-8b&rate=5&lengths=sharegpt&gpu=h100-sxm5-80gb&tab=serving",
     "lengths: ShareGPT as vLLM's benchmark samples it"},
    {"model=llama-3-8b&rate=5&prompt-tokens=500&output-tokens=100&weights=fp8&gpu=a100-sxm4-80gb&"
     "tab=serving",
     "has no FP8 tensor cores"},
    {"model=llama-3-70b&rate=1&prompt-tokens=2000&output-tokens=200&tp=4&ttft-ms=5000&tpot-ms=200&"
     "gpu=l40s&tab=serving",
     "prefill is bound by the interconnect"},
    {"model=mixtral-8x7b&rate=5&tp=2&ep=2&attention-dp=1&gpu=h100-sxm5-80gb&tab=serving",
     "attention data parallel: each of the 2 GPUs"},
    {"model=llama-3-8b&rate=1&instance=runpod-community-cloud-1x-h100-sxm-80gb&disaggregate=1&"
     "tab=serving",
     "the KV transfer between them cannot be timed"},
    {"model=llama-3-8b&rate=5&runtime=trtllm&weights=fp8&gpu=h100-sxm5-80gb&tab=serving",
     "matmuls at the rates measured for its GEMM kernels on h100-sxm5-80gb"},
    {"model=mixtral-8x7b&mode=infer&precision=bf16&seq=512&generate=256&gpu=h100-sxm5-80gb&gpus=2&"
     "tp=2&runtime=vllm",
     "prefill and decode timed as gpuplan serve times a vllm replica"},
    {"model=deepseek-v3&mode=infer&precision=bf16&seq=512&generate=64&gpu=h200-sxm-141gb&gpus=8&"
     "tp=8",
     "checkpoint stores them"},
    {"model=llama-3.3-70b&mode=infer&precision=fp8&seq=512&gpu=h100-sxm5-80gb",
     "weights only, as serving runtimes load them"},
    {"model=llama-3-8b&mode=infer&precision=fp32&seq=512&generate=16&gpu=h100-sxm5-80gb",
     "decode timed by the roofline: fp32 keeps FP32 weights"},
    {"model=llama-3-8b&rate=5&gpu=l4&tab=serving",
     "matmuls at the shares of bandwidth and peak its GEMM kernels reach on l40s"},
    {"model=gpt-oss-20b&rate=5&gpu=h100-sxm5-80gb&tab=serving",
     "experts stream at the rate measured for its fused-MoE kernels on h100-sxm5-80gb"},
    {"model=gpt2-small&batch=-5", "-5 is out of range"},
};

// Whether a line holds a CJK ideograph (the page's Chinese is written in them).
bool has_chinese(const std::string& s) {
  static const std::regex cjk("[\xe4-\xe9][\x80-\xbf][\x80-\xbf]");
  return std::regex_search(s, cjk);
}

// The allow-list check of web/check_strings.py over every line: no English prose left.
void check_shown_with_script(const std::vector<std::string>& all) {
#ifdef GPUPLAN_CHECK_STRINGS
  const std::string path = ::testing::TempDir() + "zh_shown.txt";
  {
    std::ofstream out(path);
    for (const auto& line : all) out << line << "\n";
  }
  const std::string cmd =
      std::string(GPUPLAN_PYTHON3) + " " + GPUPLAN_CHECK_STRINGS + " --shown " + path + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string report;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) report += buf;
  EXPECT_EQ(pclose(pipe), 0) << report;
#else
  (void)all;
#endif
}

class ZhNotes : public ::testing::Test {
 protected:
  void TearDown() override {
    set_language(Lang::en);
    set_money(Money{});
  }
};

TEST_F(ZhNotes, EveryNoteAndErrorOfTheTabsIsChineseWithItsValues) {
  std::vector<std::string> all;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.link);
    set_language(Lang::en);
    const PageModel m = page(c.link);
    const std::vector<std::string> en = shown_lines(m);
    bool found = false;
    for (const auto& line : en) found = found || line.find(c.english) != std::string::npos;
    EXPECT_TRUE(found) << "the link no longer produces \"" << c.english << "\"";
    set_language(Lang::zh);
    PageModel zh = page(std::string(c.link) + "&lang=zh");
    zh.state.query.currency = "CNY";  // the Chinese page's default (app.cpp)
    const std::vector<std::string> lines = shown_lines(zh);
    EXPECT_EQ(lines.size(), en.size());
    for (const auto& line : lines) {
      EXPECT_TRUE(has_chinese(line)) << "English on the Chinese page: " << line;
      EXPECT_EQ(line.find(c.english), std::string::npos) << line;
      all.push_back(line);
    }
  }
  check_shown_with_script(all);
}

// Serving links the search refuses, each with the message id it ends on and words of its English
// text (flags left out: the English page names them by their controls).
struct ServeCase {
  const char* link;
  Msg id;
  const char* english;
};
const ServeCase kServeCases[] = {
    {"model=llama-3-70b&rate=1&prompt-tokens=100000&output-tokens=10&ttft-ms=10&"
     "gpu=h100-sxm5-80gb&tp=8&tab=serving",
     Msg::serve_slo_ttft, "SLO unreachable: the first token takes"},
    {"model=llama-3-8b&rate=1&prompt-tokens=100&output-tokens=10&tpot-ms=1&gpu=h100-sxm5-80gb&"
     "tab=serving",
     Msg::serve_slo_tpot, "SLO unreachable: a token takes"},
    {"model=llama-3-8b&rate=1&tp=16&gpu=h100-sxm5-80gb&tab=serving", Msg::serve_tp_domain,
     "no matching instance holds that many GPUs in one NVLink domain"},
    {"model=llama-3-8b&rate=1&provider=nosuch&tab=serving", Msg::serve_no_match,
     "no GPU or instance matches the filters"},
    {"model=llama-3-70b&rate=1&prompt-tokens=100&output-tokens=10&gpu=l4&tp=1&tab=serving",
     Msg::serve_does_not_fit, "does not fit on l4 at TP 1"},
    {"model=llama-3-8b&rate=1&gpu=h100-sxm5-80gb&tp=3&tab=serving", Msg::serve_tp_heads,
     "attention heads do not split evenly"},
    {"model=llama-3-8b&rate=1&gpu=h100-sxm5-80gb&runtime=hf&kv=fp8&tab=serving",
     Msg::serve_kv_format, "hf has no fp8 KV cache"},
    {"model=resnet50&rate=1&tab=serving", Msg::serve_not_causal_lm,
     "is not a decoder-only language model"},
    {"model=llama-3-8b&rate=1&gpu=a100-sxm4-80gb&weights=nvfp4&runtime=sglang&tab=serving",
     Msg::serve_no_fp4_kernel, "has no FP4 tensor cores and sglang has no weight-only nvfp4"},
};

// One refused link on both pages: the English page's error (`error_of`) has the case's id, its
// values (unless it is `may_lack_args`) and the case's words; the Chinese page, in CNY, shows as
// many lines. A fatal failure ends the caller's case (HasFatalFailure).
struct BothPages {
  Error error;  // the English page's
  PageModel zh;
  std::vector<std::string> lines;  // the Chinese page's
};
void open_both(const ServeCase& c, const Error& (*error_of)(const PageModel&), Msg may_lack_args,
               BothPages& out) {
  set_language(Lang::en);
  const PageModel en = page(c.link);
  out.error = error_of(en);
  ASSERT_EQ(out.error.id, c.id) << out.error.message;
  ASSERT_FALSE(out.error.args.empty() && c.id != may_lack_args) << out.error.message;
  const std::vector<std::string> en_lines = shown_lines(en);
  bool english = false;
  for (const auto& line : en_lines) english = english || line.find(c.english) != std::string::npos;
  EXPECT_TRUE(english) << "the English page no longer shows \"" << c.english << "\"";
  set_language(Lang::zh);
  out.zh = page(std::string(c.link) + "&lang=zh");
  out.zh.state.query.currency = "CNY";
  out.lines = shown_lines(out.zh);
  ASSERT_EQ(out.lines.size(), en_lines.size());
}

const Error& serve_error(const PageModel& m) {
  return m.serve.error;
}

TEST_F(ZhNotes, ServingErrorsAreChineseWithTheirValues) {
  std::vector<std::string> all;
  for (const ServeCase& c : kServeCases) {
    SCOPED_TRACE(c.link);
    BothPages both;
    open_both(c, serve_error, Msg::serve_no_match, both);
    if (HasFatalFailure()) return;
    const Error& error = both.error;
    const PageModel& zh = both.zh;
    const std::vector<std::string>& lines = both.lines;
    const std::string shown = page_message(zh.serve.error);
    EXPECT_NE(std::find(lines.begin(), lines.end(), shown), lines.end()) << shown;
    EXPECT_TRUE(has_chinese(shown)) << "English on the Chinese page: " << shown;
    EXPECT_EQ(shown.find(c.english), std::string::npos) << shown;
    for (const auto& value : error.args) EXPECT_NE(shown.find(value), std::string::npos) << value;
    for (const auto& line : lines) {
      EXPECT_TRUE(has_chinese(line)) << "English on the Chinese page: " << line;
      all.push_back(line);
    }
  }
  check_shown_with_script(all);
}

// Links the estimate, the training time model (the step time on the link's GPU) or the price and
// run cost refuse, each with the message id it ends on and words of its English text (flags left
// out: the English page names them by their controls).
const ServeCase kEstimateCases[] = {
    {"model=gpt2-small&batch=8&precision=nvfp4&gpu=h100-sxm5-80gb", Msg::time_no_fp4,
     "has no FP4 tensor cores"},
    {"model=gpt2-small&batch=8&precision=mxfp8&gpu=h100-sxm5-80gb", Msg::time_no_mx_fp8,
     "has no block-scaled (MX) FP8 tensor cores"},
    {"model=gpt2-small&batch=8&precision=bf16&gpu=v100-sxm2-32gb", Msg::time_no_peak,
     "has no sourced dense bf16 peak"},
    {"model=gpt2-small&batch=8&vp=2", Msg::est_vp_needs_pp, "2 or more"},
    {"model=resnet50&batch=8&cp=2", Msg::est_cp_graph, "has no sequence to split"},
    {"model=gpt2-small&batch=8&instance=lambda-gpu-1x-h100-sxm5&pricing=spot&tokens=1e8",
     Msg::price_not_sold, "does not sell spot capacity"},
    {"model=gpt2-small&batch=8&instance=aws-g4dn.xlarge&pricing=spot&"
     "spot-interruptions-per-hour=5&tokens=1e8",
     Msg::cost_spot_too_frequent, "the run would never finish"},
};

// The error a Results tab shows: the estimate's, else the step time's on the link's hardware.
const Error& results_error(const PageModel& m) {
  return m.ev && m.ev->hardware_error ? *m.ev->hardware_error : m.error;
}

TEST_F(ZhNotes, EstimateAndTimeModelErrorsAreChineseWithTheirValues) {
  std::vector<std::string> all;
  for (const ServeCase& c : kEstimateCases) {
    SCOPED_TRACE(c.link);
    BothPages both;
    open_both(c, results_error, Msg::cost_spot_too_frequent, both);
    if (HasFatalFailure()) return;
    const Error& error = both.error;
    const PageModel& zh = both.zh;
    const std::vector<std::string>& lines = both.lines;
    // The error itself and, kept inside the calibrated time's note, its English as the core
    // writes it: both in Chinese with the error's values.
    const std::string shown = page_message(results_error(zh));
    EXPECT_NE(std::find(lines.begin(), lines.end(), shown), lines.end()) << shown;
    const std::string note = core_note("calibrated time: " + error.message);
    for (const std::string& text : {shown, note}) {
      EXPECT_TRUE(has_chinese(text)) << "English on the Chinese page: " << text;
      EXPECT_EQ(text.find(c.english), std::string::npos) << text;
      EXPECT_EQ(text.find("calibrated"), std::string::npos) << text;
      for (const auto& value : error.args) EXPECT_NE(text.find(value), std::string::npos) << value;
      all.push_back(text);
    }
    for (const auto& line : lines) {
      EXPECT_TRUE(has_chinese(line)) << "English on the Chinese page: " << line;
      all.push_back(line);
    }
  }
  check_shown_with_script(all);
}

TEST_F(ZhNotes, AnErrorInsideANoteOrErrorIsChineseToo) {
  const std::string heads = render_message(message_english(Msg::serve_tp_heads), {"3", "32"});
  const std::string calibrated = "calibrated time: " + heads;
  const Error drafter = make_error(Errc::invalid_argument, Msg::serve_drafter_cannot_run,
                                   {"spec-draft-model", heads});
  set_language(Lang::en);
  EXPECT_EQ(core_note(calibrated), page_message(calibrated));
  EXPECT_NE(page_message(drafter).find("attention heads do not split evenly"), std::string::npos);
  set_language(Lang::zh);
  for (const std::string& shown : {core_note(calibrated), page_message(drafter)}) {
    EXPECT_TRUE(has_chinese(shown)) << shown;
    EXPECT_EQ(shown.find("attention heads"), std::string::npos) << shown;
    EXPECT_EQ(shown.find("calibrated"), std::string::npos) << shown;
    EXPECT_EQ(shown.find("drafter"), std::string::npos) << shown;
    for (const char* value : {"3", "32"}) EXPECT_NE(shown.find(value), std::string::npos) << shown;
  }
  // An inner message the table does not know stays as the core wrote it.
  EXPECT_NE(core_note("calibrated time: something new").find("something new"), std::string::npos);
}

TEST_F(ZhNotes, NoteValuesAreKeptInTheTranslation) {
  set_language(Lang::zh);
  const std::string note = core_note(
      "input pipeline bound: the GPUs could take 5200 images/s but 8 vCPUs decode about 1600 "
      "(use DALI/GPU decoding, pre-resized data, or more vCPUs)");
  for (const char* value : {"5200", "8 个 vCPU", "1600"})
    EXPECT_NE(note.find(value), std::string::npos) << note;
  // A note the table does not know stays as the core wrote it.
  EXPECT_EQ(core_note("something new: 42"), "something new: 42");
  std::vector<std::string> args;
  EXPECT_TRUE(match_note("measured batch {0} per step, predicted {1}",
                         "measured batch 64 per step, predicted 128", args));
  EXPECT_EQ(args, (std::vector<std::string>{"64", "128"}));
  EXPECT_FALSE(match_note("measured batch {0} per step", "measured batch  per step", args));
  EXPECT_FALSE(match_note("measured batch {0} per step", "measured batch 64 per hour", args));
}

// Every zoo model on the Chinese page (the sidebar's and the Serving tab's lists, the Results
// line): its own name as the English page writes it, and its remark ("(MoE)", ", span prediction
// (SQuAD)", "(llm-foundry benchmark configuration)") in Chinese, in full-width parentheses.
TEST_F(ZhNotes, EveryZooModelsRemarkIsChinese) {
  std::vector<std::string> remarks;
  int with_remark = 0;
  for (const Model& model : catalog().models) {
    SCOPED_TRACE(model.id);
    set_language(Lang::en);
    EXPECT_EQ(model_name(model), model.name);
    set_language(Lang::zh);
    const std::string shown = model_name(model);
    // The English remark follows the model's own name after " (" or ", ".
    const size_t cut = std::min(model.name.find(" ("), model.name.find(", "));
    if (cut == std::string::npos) {
      EXPECT_EQ(shown, model.name) << "a name without a remark is the same in both languages";
      continue;
    }
    ++with_remark;
    const std::string own = model.name.substr(0, cut) + "（", close = "）";
    ASSERT_EQ(shown.rfind(own, 0), 0u) << shown << " does not start with " << own;
    ASSERT_GT(shown.size(), own.size() + close.size()) << shown;
    ASSERT_EQ(shown.compare(shown.size() - close.size(), close.size(), close), 0) << shown;
    const std::string remark = shown.substr(own.size(), shown.size() - own.size() - close.size());
    EXPECT_TRUE(has_chinese(remark)) << "English on the Chinese page: " << shown;
    remarks.push_back(remark);
  }
  EXPECT_GT(with_remark, 30) << "the zoo's remarks were not found";
  check_shown_with_script(remarks);
}

TEST_F(ZhNotes, TheBudgetThatBindsIsInThePagesCurrency) {
  const char* link = "model=llama-2-7b&batch=512&seq=4096&tokens=1e11&budget-usd=1&tab=plans";
  PageModel m = page(link);
  ASSERT_EQ(m.plan_error.id, Msg::plan_budget_binds) << m.plan_error.message;
  const double usd = std::stod(m.plan_error.args.at(0));
  auto cny = money_for("CNY", catalog().pricing);
  ASSERT_TRUE(cny.ok());
  for (Lang lang : {Lang::en, Lang::zh}) {
    set_language(lang);
    set_money(cny.value());
    const std::string shown = page_message(m.plan_error);
    EXPECT_NE(shown.find(format_money(usd)), std::string::npos) << shown;
    EXPECT_NE(shown.find(lang == Lang::zh ? "¥" : " CNY"), std::string::npos) << shown;
    EXPECT_EQ(shown.find("USD"), std::string::npos) << shown;
    EXPECT_EQ(shown.find(tr(S::unit_usd)), std::string::npos) << shown;
    set_money(Money{});
    const std::string in_usd = page_message(m.plan_error);
    EXPECT_NE(in_usd.find(format_money(usd)), std::string::npos) << in_usd;
    EXPECT_NE(in_usd.find(tr(S::unit_usd)), std::string::npos) << in_usd;
  }
  // The CLI keeps the core's English, in USD.
  EXPECT_NE(m.plan_error.message.find(" USD (relax"), std::string::npos) << m.plan_error.message;
}

}  // namespace
}  // namespace gpuplan::web
