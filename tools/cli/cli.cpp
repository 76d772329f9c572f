#include "cli.h"

#include <cstdio>

#include "gpuplan/embedded_data.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"

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

Result<Catalog> load_embedded_catalog() { return load_catalog(embedded_data_files()); }

Result<Query> take_query(Args& args) {
  const std::string hf_path = take(args, "hf-config");
  auto q = parse_query(args);
  if (!q.ok()) return q.error();
  if (!hf_path.empty()) {
    auto text = read_bounded_file(hf_path, kMaxJsonBytes);
    if (!text.ok()) return text.error();
    q.value().hf_config_text = std::move(text).value();
    q.value().hf_config_name = hf_path;
  }
  return q;
}

Result<ProbeCalibration> read_probe_calibration(const std::string& path) {
  auto text = read_bounded_file(path, kMaxProbeFileBytes);
  if (!text.ok()) return text.error();
  auto f = signing::read_probe_file(text.value(), {});
  if (!f.ok()) return make_error(f.error().code, path + ": " + f.error().message);
  if (f.value().signature == ProbeSignature::invalid) {
    return make_error(Errc::signature_invalid, path + ": signature invalid: " + f.value().reason);
  }
  ProbeCalibration p;
  p.name = path;
  p.summary = f.value().payload->summary;
  p.simulated = f.value().payload->simulated;
  p.unsigned_file = f.value().signature == ProbeSignature::unsigned_file;
  return p;
}

}  // namespace gpuplan::cli
