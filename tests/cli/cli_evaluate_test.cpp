// `gpuplan estimate --json` prints what evaluate() computes: for several queries the CLI's step
// time and cost are the same doubles as the core's (JSON writes doubles so they read back
// exactly). Usage: cli_evaluate_test PATH_TO_GPUPLAN
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/embedded_data.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/query.h"

namespace {

std::string run(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

// "model=a&gpu=b" -> " --model a --gpu b"
std::string flags_of(const gpuplan::Args& args) {
  std::string flags;
  for (const auto& [k, v] : args) flags += " --" + k + " '" + v + "'";
  return flags;
}

int failures = 0;

void expect_same(const std::string& what, const nlohmann::json& cli, double core) {
  if (cli.is_number() && cli.get<double>() == core) return;
  std::printf("FAIL %s: CLI %s, evaluate() %.17g\n", what.c_str(), cli.dump().c_str(), core);
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cli_evaluate_test PATH_TO_GPUPLAN\n");
    return 2;
  }
  auto catalog = gpuplan::load_catalog(gpuplan::embedded_data_files());
  if (!catalog.ok()) return std::printf("FAIL catalog: %s\n", catalog.error().message.c_str()), 1;
  const std::vector<std::string> links = {
      "model=gpt2-small&batch=8&gpu=a100-sxm4-80gb&tokens=1e9",
      "model=llama-2-7b&batch=64&seq=4096&precision=amp-bf16&zero=3&checkpointing=selective"
      "&instance=aws-p4d.24xlarge&nodes=2&tokens=2e10",
      "model=resnet50&batch=256&precision=amp-fp16&instance=aws-p4d.24xlarge&epochs=90&pricing="
      "spot",
      "model=bert-base&batch=32&gpu=t4&gpus=4&epochs=2&dataset-size=100000",
  };
  for (const std::string& link : links) {
    auto args = gpuplan::query_to_args(link);
    auto query = gpuplan::parse_query(args.value());
    auto ev = query.ok() ? gpuplan::evaluate(catalog.value(), query.value())
                         : gpuplan::Result<gpuplan::Evaluation>(query.error());
    if (!ev.ok() || !ev.value().time || !ev.value().cost) {
      std::printf("FAIL %s: evaluate() gave no time and cost: %s\n", link.c_str(),
                  ev.ok() ? "" : ev.error().message.c_str());
      ++failures;
      continue;
    }
    const std::string out = run(std::string(argv[1]) + " estimate --json" + flags_of(args.value()));
    const auto j = nlohmann::json::parse(out, nullptr, false);
    if (j.is_discarded() || !j.contains("time") || !j.contains("cost")) {
      std::printf("FAIL %s: CLI printed no time and cost: %s\n", link.c_str(), out.c_str());
      ++failures;
      continue;
    }
    const gpuplan::Evaluation& e = ev.value();
    expect_same(link + " schema_version", j["schema_version"], gpuplan::kQuerySchemaVersion);
    expect_same(link + " step_s", j["time"]["step_s"], e.time->step_s);
    expect_same(link + " samples_per_s", j["time"]["samples_per_s"], e.time->samples_per_s);
    expect_same(link + " expected_hours", j["cost"]["expected_hours"], e.cost->expected_hours);
    if (e.price) expect_same(link + " usd_total", j["cost"]["usd_total"], e.cost->usd_total);
    expect_same(link + " memory total", j["memory_bytes"]["total"], e.estimate.memory.total());
  }
  // Every key a query (estimate, plan) or a serve request understands is an option `gpuplan
  // --help` shows.
  const std::string help = run(std::string(argv[1]) + " --help");
  std::vector<std::string> keys = gpuplan::query_keys();
  for (const std::string& key : gpuplan::serve_keys()) keys.push_back(key);
  for (const std::string& key : keys) {
    if (help.find("--" + key + " ") == std::string::npos &&
        help.find("--" + key + "\n") == std::string::npos &&
        help.find("--" + key + "=") == std::string::npos) {
      std::printf("FAIL --help does not show --%s\n", key.c_str());
      ++failures;
    }
  }
  std::printf("%zu queries, %d failures\n", links.size(), failures);
  return failures == 0 ? 0 : 1;
}
