#include "cli.h"

#include <cstdio>
#include <fstream>
#include <sstream>

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

Result<Query> take_query(Args& args) {
  const std::string hf_path = take(args, "hf-config");
  auto q = parse_query(args);
  if (!q.ok()) return q.error();
  if (!hf_path.empty()) {
    std::string error;
    if (!read_file(hf_path, q.value().hf_config_text, error, kMaxJsonBytes)) {
      return make_error(Errc::invalid_argument, error);
    }
    q.value().hf_config_name = hf_path;
  }
  return q;
}

Result<ProbeCalibration> read_probe_calibration(const std::string& path) {
  std::string text, error;
  if (!read_file(path, text, error, kMaxProbeFileBytes)) return make_error(Errc::invalid_argument, error);
  auto f = signing::read_probe_file(text, {});
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
