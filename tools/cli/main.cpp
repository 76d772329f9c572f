// gpuplan: the command-line front end of the core. Every command prints a human-readable
// report, or with --json one JSON object. Exit codes: 0 success, 1 the input was understood
// but is invalid (unknown model, impossible setup: the message says which field), 2 usage.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>

#include "cli.h"
#include "gpuplan/keys.h"

namespace {

using gpuplan::Args;

// The commands; the options of estimate, plan and serve follow, from the key table (keys.h).
const char* kCommands = R"(usage: gpuplan COMMAND [options]

commands:
  models [--json]                          list the model zoo
  estimate (--model ID | --hf-config FILE) [setup options] [hardware] [run length] [--json]
                                           parameters, FLOPs and peak memory per GPU; with
                                           hardware also step time, and with a run length, cost
  gpus [--json]                            the GPU catalog
  instances [--provider P] [--json]        cloud instances and prices
  plan (--model ID | --hf-config FILE) [setup options] run length [planner options] [--json]
                                           rank GPU/instance/parallelism choices
  validate FILE.csv [--json]               predict measured throughput (or peak-memory) rows; print
                                           errors and MAPE; rows it cannot predict are listed, skipped
  serve --model ID --rate R [serve options] [--json]
                                           rank instances for serving: replicas, autoscaling, cost
  verify FILE [--json] [--trust KEY_B64]   check a gpuplan-probe file's signature, show its summary;
                                           exit 0 valid (signed by a --trust key if given), 1 invalid,
                                           unsigned or untrusted
  published [--json]                       every published measurement (data/published) with
                                           gpuplan's prediction and the error per row
  keys [--json]                            every option below with its type, bounds and default

estimate and plan also take:
  --hf-config FILE              a Hugging Face config.json as the workload
  --probe FILE                  calibrate with a probe file (needs --gpu or --instance); a
                                gpuplan-measure file is shown as measured vs predicted
  --emit torchrun|accelerate|deepspeed|megatron
                                print a runnable launch config (estimate, or plan's top choice)
                                with its FSDP/DDP or ZeRO settings, or Megatron-LM's flags for the
                                whole layout, instead of the report
)";

const char* kExitCodes =
    "\nexit codes: 0 success, 1 invalid input (the message names the field), 2 usage error\n";

// One option of the table: "  --batch N    samples per ... (default: ...)".
template <class T>
std::string option_line(const gpuplan::KeyRow<T>& r) {
  std::string usage = "  " + gpuplan::key_usage(r);
  std::string help = r.help_en;
  if (!r.default_text.empty()) help += " (default: " + r.default_text + ")";
  if (usage.size() > 31) return usage + "\n" + std::string(32, ' ') + help + "\n";
  return usage + std::string(32 - usage.size(), ' ') + help + "\n";
}

// The whole help: the commands, then each group of the key table under its heading.
std::string usage_text() {
  std::string out = kCommands;
  std::optional<gpuplan::KeyGroup> group;
  auto heading = [&](gpuplan::KeyGroup g) {
    if (group == g) return;
    group = g;
    out += std::string("\n") + gpuplan::key_group_title(g) + ":\n";
  };
  for (const auto& r : gpuplan::query_key_rows()) {
    heading(r.group);
    out += option_line(r);
  }
  for (const auto& r : gpuplan::serve_key_rows()) {
    heading(r.group);
    out += option_line(r);
  }
  return out + kExitCodes;
}

// Flags that take no value: --json and the table's switches.
bool is_switch(const std::string& key) {
  if (key == "json") return true;
  const auto* q = gpuplan::find_query_key(key);
  const auto* r = gpuplan::find_serve_key(key);
  return (q && q->is_switch) || (r && r->is_switch);
}

// Splits "--key value" / "--key=value" / "--flag" arguments into Args.
gpuplan::Result<Args> parse_flags(int argc, char** argv, int first) {
  Args args;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a.size() < 3) {
      return gpuplan::make_error(gpuplan::Errc::invalid_argument,
                                 "unexpected argument '" + a + "'");
    }
    std::string key = a.substr(2);
    std::string value;
    const size_t eq = key.find('=');
    if (eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (!is_switch(key)) {
      if (i + 1 >= argc) {
        return gpuplan::make_error(gpuplan::Errc::invalid_argument, "--" + key + " needs a value");
      }
      value = argv[++i];
    } else {
      value = "1";
    }
    args.emplace_back(key, value);
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::fputs(usage_text().c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? gpuplan::cli::kExitUsage : 0;
  }
  const std::map<std::string, int (*)(Args)> commands = {
      {"models", gpuplan::cli::cmd_models},       {"estimate", gpuplan::cli::cmd_estimate},
      {"verify", gpuplan::cli::cmd_verify},       {"gpus", gpuplan::cli::cmd_gpus},
      {"instances", gpuplan::cli::cmd_instances}, {"plan", gpuplan::cli::cmd_plan},
      {"validate", gpuplan::cli::cmd_validate},   {"serve", gpuplan::cli::cmd_serve},
      {"published", gpuplan::cli::cmd_published}, {"keys", gpuplan::cli::cmd_keys},
  };
  const std::string command = argv[1];
  auto it = commands.find(command);
  if (it == commands.end()) return gpuplan::cli::usage_error("unknown command '" + command + "'");
  // validate and verify take their file as a positional argument.
  int first = 2;
  std::string positional;
  if ((command == "validate" || command == "verify") && argc > 2 &&
      std::strncmp(argv[2], "--", 2) != 0) {
    positional = argv[2];
    first = 3;
  }
  auto args = parse_flags(argc, argv, first);
  if (args.ok() && !positional.empty()) args.value().emplace_back("file", positional);
  if (!args.ok()) return gpuplan::cli::usage_error(args.error().message);
  return it->second(args.value());
}
