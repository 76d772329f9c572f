// gpuplan: the command-line front end of the core. Every command prints a human-readable
// report, or with --json one JSON object. Exit codes: 0 success, 1 the input was understood
// but is invalid (unknown model, impossible setup: the message says which field), 2 usage.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuplan/catalog.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/report.h"
#include "gpuplan/request.h"

namespace {

using gpuplan::Args;

constexpr int kExitInvalid = 1;
constexpr int kExitUsage = 2;

const char* kUsage = R"(usage: gpuplan COMMAND [options]

commands:
  models [--json]                          list the model zoo
  estimate (--model ID | --hf-config FILE) [setup options] [--json]
                                           parameters, FLOPs and peak memory per GPU

setup options:
  --mode train|infer            --batch N (global)       --micro-batch N (per GPU)
  --seq N | --resolution N      --precision fp32|tf32|fp16|bf16|amp-fp16|amp-bf16|fp8
  --optimizer sgd|sgd-momentum|adam|adamw|adam-8bit|adafactor
  --checkpointing none|selective|full     --attention auto|eager|flash
  --dp N  --zero 0|1|2|3  --tp N  --sp  --pp N
  --lora-rank N  --qlora  --lora-targets q_proj,v_proj   --generate N (inference)
)";

int fail(const gpuplan::Error& e) {
  std::fprintf(stderr, "gpuplan: error: %s\n", e.message.c_str());
  return kExitInvalid;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "gpuplan: %s\n(run 'gpuplan --help' for usage)\n", message.c_str());
  return kExitUsage;
}

// Splits "--key value" / "--flag" arguments into Args; flags listed in `boolean` take no value.
gpuplan::Result<Args> parse_flags(int argc, char** argv, int first,
                                  const std::vector<std::string>& boolean) {
  Args args;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a.size() < 3) {
      return gpuplan::make_error(gpuplan::Errc::invalid_argument, "unexpected argument '" + a + "'");
    }
    std::string key = a.substr(2);
    std::string value;
    const size_t eq = key.find('=');
    if (eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (std::find(boolean.begin(), boolean.end(), key) == boolean.end()) {
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

// Removes and returns the value of `key`, or "" when absent.
std::string take(Args& args, const std::string& key) {
  std::string value;
  for (auto it = args.begin(); it != args.end();) {
    if (it->first == key) {
      value = it->second;
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  return value;
}

bool read_file(const std::string& path, std::string& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open file";
    return false;
  }
  in.seekg(0, std::ios::end);
  const auto size = static_cast<size_t>(in.tellg());
  if (size > gpuplan::kMaxJsonBytes) {
    error = path + ": file is " + std::to_string(size) + " bytes; the limit is " +
            std::to_string(gpuplan::kMaxJsonBytes) + " bytes";
    return false;
  }
  in.seekg(0);
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

gpuplan::Result<gpuplan::Catalog> load() { return gpuplan::load_catalog(gpuplan::embedded_data_files()); }

int cmd_models(Args args) {
  const bool json = take(args, "json") == "1";
  if (!args.empty()) return usage_error("models: unknown option --" + args.front().first);
  auto catalog = load();
  if (!catalog.ok()) return fail(catalog.error());
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& m : catalog.value().models) {
      out.push_back({{"id", m.id}, {"name", m.name}, {"kind", m.kind == gpuplan::ModelKind::transformer ? "transformer" : "graph"},
                     {"task", m.task}, {"aliases", m.aliases}, {"source", m.source.url}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  for (const auto& m : catalog.value().models) {
    std::printf("%-16s %-28s %s\n", m.id.c_str(), m.name.c_str(), m.task.c_str());
  }
  return 0;
}

int cmd_estimate(Args args) {
  const bool json = take(args, "json") == "1";
  const std::string hf_path = take(args, "hf-config");
  auto request = gpuplan::parse_request(args);
  if (!request.ok()) return fail(request.error());
  gpuplan::Model model;
  if (!hf_path.empty()) {
    if (!request.value().model.empty()) return usage_error("estimate: give --model or --hf-config, not both");
    std::string text, error;
    if (!read_file(hf_path, text, error)) return fail({gpuplan::Errc::invalid_argument, error});
    auto m = gpuplan::model_from_hf_config(text, hf_path);
    if (!m.ok()) return fail(m.error());
    model = std::move(m).value();
    request.value().model = model.id;
  } else {
    if (request.value().model.empty()) return usage_error("estimate: --model ID or --hf-config FILE is required");
    auto catalog = load();
    if (!catalog.ok()) return fail(catalog.error());
    const gpuplan::Model* m = catalog.value().find_model(request.value().model);
    if (!m) {
      return fail({gpuplan::Errc::not_found, "--model: unknown model '" + request.value().model +
                                                 "' (run 'gpuplan models' for the list)"});
    }
    model = *m;
  }
  auto e = gpuplan::estimate(model, request.value().setup);
  if (!e.ok()) return fail(e.error());
  if (json) {
    std::printf("%s\n", gpuplan::estimate_to_json(model, request.value(), e.value()).c_str());
  } else {
    std::printf("%s", gpuplan::estimate_to_text(model, e.value()).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : 0;
  }
  const std::string command = argv[1];
  auto args = parse_flags(argc, argv, 2, {"json", "sp", "qlora"});
  if (!args.ok()) return usage_error(args.error().message);
  if (command == "models") return cmd_models(args.value());
  if (command == "estimate") return cmd_estimate(args.value());
  return usage_error("unknown command '" + command + "'");
}
