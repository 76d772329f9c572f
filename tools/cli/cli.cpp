#include "cli.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "gpuplan/embedded_data.h"
#include "gpuplan/hf_config.h"

#include <cmath>
#include <cstdlib>

namespace gpuplan::cli {

int fail(const Error& e) {
  std::fprintf(stderr, "gpuplan: error: %s\n", e.message.c_str());
  return kExitInvalid;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "gpuplan: %s\n(run 'gpuplan --help' for usage)\n", message.c_str());
  return kExitUsage;
}

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

bool take_flag(Args& args, const std::string& key) { return take(args, key) == "1"; }

bool read_file(const std::string& path, std::string& out, std::string& error, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open file";
    return false;
  }
  in.seekg(0, std::ios::end);
  const auto size = static_cast<size_t>(in.tellg());
  if (size > max_bytes) {
    error = path + ": file is " + std::to_string(size) + " bytes; the limit is " +
            std::to_string(max_bytes) + " bytes";
    return false;
  }
  in.seekg(0);
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

Result<Catalog> load_embedded_catalog() { return load_catalog(embedded_data_files()); }

Result<double> parse_number(const std::string& text, const std::string& key) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double x = std::strtod(begin, &end);
  if (text.empty() || end != begin + text.size() || !std::isfinite(x)) {
    return make_error(Errc::invalid_argument, "--" + key + ": '" + text + "' is not a number");
  }
  if (x <= 0) return make_error(Errc::invalid_argument, "--" + key + ": must be > 0, got " + text);
  return x;
}

Result<Workload> take_workload(Args& args, const Catalog& catalog) {
  const std::string hf_path = take(args, "hf-config");
  auto request = parse_request(args);
  if (!request.ok()) return request.error();
  Workload w;
  w.request = request.value();
  if (!hf_path.empty()) {
    if (!w.request.model.empty()) return make_error(Errc::invalid_argument, "give --model or --hf-config, not both");
    std::string text, error;
    if (!read_file(hf_path, text, error, kMaxJsonBytes)) return make_error(Errc::invalid_argument, error);
    auto m = model_from_hf_config(text, hf_path);
    if (!m.ok()) return m.error();
    w.model = std::move(m).value();
    w.request.model = w.model.id;
    return w;
  }
  if (w.request.model.empty()) {
    return make_error(Errc::invalid_argument, "--model ID or --hf-config FILE is required");
  }
  const Model* m = catalog.find_model(w.request.model);
  if (!m) {
    const std::string like = catalog.similar_models(w.request.model);
    return make_error(Errc::not_found, "--model: unknown model '" + w.request.model + "'" +
                                           (like.empty() ? " (run 'gpuplan models' for the list)"
                                                         : "; did you mean one of: " + like));
  }
  w.model = *m;
  return w;
}

Result<RunOptions> take_run_options(Args& args) {
  RunOptions o;
  struct NumberArg {
    const char* key;
    double* out;
  };
  for (NumberArg n : {NumberArg{"tokens", &o.run.tokens}, NumberArg{"epochs", &o.run.epochs},
                      NumberArg{"dataset-size", &o.run.dataset_size},
                      NumberArg{"spot-interruptions-per-hour", &o.spot.interruptions_per_hour},
                      NumberArg{"checkpoint-interval-hours", &o.spot.checkpoint_interval_h},
                      NumberArg{"restart-hours", &o.spot.restart_h}}) {
    const std::string v = take(args, n.key);
    if (v.empty()) continue;
    auto x = parse_number(v, n.key);
    if (!x.ok()) return x.error();
    *n.out = x.value();
  }
  if (o.run.tokens > 0 && o.run.epochs > 0) {
    return make_error(Errc::invalid_argument, "give --tokens or --epochs, not both");
  }
  const std::string pricing = take(args, "pricing");
  if (!pricing.empty()) {
    auto p = parse_pricing(pricing);
    if (!p) {
      return make_error(Errc::invalid_argument, "--pricing: '" + pricing +
                                                    "' is not one of on-demand, monthly, reserved-1y, reserved-3y, bulk, spot");
    }
    o.pricing = *p;
  }
  o.region = take(args, "region");
  return o;
}

}  // namespace gpuplan::cli
