// gpuplan verify FILE [--json] [--trust KEY_B64]...: checks a probe file's signature and shows
// what it measured. Exit 0: valid (and, with --trust, signed by one of those keys); 1: invalid,
// unsigned, untrusted or unreadable; 2: usage.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"

namespace gpuplan::cli {
namespace {

using ojson = nlohmann::ordered_json;

template <class T>
ojson opt(const std::optional<T>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

ojson summary_json(const ProbeSummary& s) {
  const ProbeGemm& g = s.gemm_flop_per_s;
  return {{"gpu_name", s.gpu_name},
          {"catalog_gpu_id", opt(s.catalog_gpu_id)},
          {"gpu_count", s.gpu_count},
          {"node_count", s.node_count},
          {"slowest_gpu", s.slowest_gpu},
          {"gemm_flop_per_s",
           {{"fp64", opt(g.fp64)},
            {"fp32", opt(g.fp32)},
            {"tf32", opt(g.tf32)},
            {"fp16", opt(g.fp16)},
            {"bf16", opt(g.bf16)},
            {"fp8", opt(g.fp8)}}},
          {"hbm_copy_bytes_per_s", opt(s.hbm_copy_bytes_per_s)},
          {"hbm_triad_bytes_per_s", opt(s.hbm_triad_bytes_per_s)},
          {"h2d_pinned_bytes_per_s", opt(s.h2d_pinned_bytes_per_s)},
          {"d2h_pinned_bytes_per_s", opt(s.d2h_pinned_bytes_per_s)},
          {"p2p_bytes_per_s", opt(s.p2p_bytes_per_s)},
          {"allreduce_busbw_bytes_per_s", opt(s.allreduce_busbw_bytes_per_s)},
          {"memory_bytes", s.memory_bytes}};
}

// "742.1 TFLOP/s", "3.1 TB/s"; "-" when not measured (SI units at the edge only).
std::string rate(const std::optional<double>& v, const char* unit) {
  if (!v) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, *v >= 1e12 ? "%.1f T%s" : "%.1f G%s",
                *v >= 1e12 ? *v / 1e12 : *v / 1e9, unit);
  return buf;
}

void print_text(const std::string& path, const ProbeFile& f, bool pinned_keys) {
  std::printf("%s: %s", path.c_str(), probe_signature_name(f.signature));
  if (!f.reason.empty()) std::printf(" (%s)", f.reason.c_str());
  std::printf("\n");
  if (!f.fingerprint.empty()) {
    std::printf("  key:        %s (key id %s)%s\n", f.fingerprint.c_str(), f.key_id.c_str(),
                f.signature != ProbeSignature::valid ? ""
                : f.trusted                          ? ", trusted (--trust)"
                : pinned_keys                        ? ", NOT one of the --trust keys"
                              : ", not pinned (pass --trust PUBLIC_KEY to require it)");
    std::printf("  public key: %s\n", f.public_key.c_str());
  }
  if (f.measured) std::printf("%s", measured_run_to_text(*f.measured).c_str());
  if (!f.payload) return;
  const ProbePayload& p = *f.payload;
  const ProbeSummary& s = p.summary;
  std::printf(
      "  measured:   %s .. %s by %s %s (git %s)%s\n", p.started_utc.c_str(), p.finished_utc.c_str(),
      p.tool_name.c_str(), p.tool_version.c_str(), p.git_revision.c_str(),
      p.simulated
          ? "\n  SIMULATED:  figures are catalog peak x default efficiency, not measurements"
          : "");
  if (p.cloud_instance_type) {
    std::printf("  cloud:      %s %s %s\n", p.cloud_provider.value_or("").c_str(),
                p.cloud_instance_type->c_str(), p.cloud_region.value_or("").c_str());
  }
  std::printf("  gpus:       %lld x %s (catalog %s) on %lld node%s, slowest GPU %lld\n",
              static_cast<long long>(s.gpu_count), s.gpu_name.c_str(),
              s.catalog_gpu_id.value_or("none").c_str(), static_cast<long long>(s.node_count),
              s.node_count == 1 ? "" : "s", static_cast<long long>(s.slowest_gpu));
  std::printf("  results:    %lld passed, %lld waived, %lld failed\n",
              static_cast<long long>(p.results_passed), static_cast<long long>(p.results_waived),
              static_cast<long long>(p.results_failed));
  const ProbeGemm& g = s.gemm_flop_per_s;
  std::printf("  gemm:       fp64 %s, fp32 %s, tf32 %s, fp16 %s, bf16 %s, fp8 %s\n",
              rate(g.fp64, "FLOP/s").c_str(), rate(g.fp32, "FLOP/s").c_str(),
              rate(g.tf32, "FLOP/s").c_str(), rate(g.fp16, "FLOP/s").c_str(),
              rate(g.bf16, "FLOP/s").c_str(), rate(g.fp8, "FLOP/s").c_str());
  std::printf("  memory:     copy %s, triad %s\n", rate(s.hbm_copy_bytes_per_s, "B/s").c_str(),
              rate(s.hbm_triad_bytes_per_s, "B/s").c_str());
  std::printf("  transfers:  h2d %s, d2h %s, p2p %s, all-reduce busbw %s\n",
              rate(s.h2d_pinned_bytes_per_s, "B/s").c_str(),
              rate(s.d2h_pinned_bytes_per_s, "B/s").c_str(), rate(s.p2p_bytes_per_s, "B/s").c_str(),
              rate(s.allreduce_busbw_bytes_per_s, "B/s").c_str());
  for (const auto& w : p.warnings) std::printf("  warning:    %s\n", w.c_str());
}

}  // namespace

int cmd_verify(Args args) {
  const bool json = take_flag(args, "json");
  std::vector<std::string> trusted;
  std::string path;
  for (const auto& [key, value] : args) {
    if (key == "trust") {
      const auto pk = signing::base64_decode(value);
      if (!pk || pk->size() != 32)
        return usage_error("verify: --trust " + value +
                           ": expected a base64 Ed25519 public key (32 bytes)");
      trusted.push_back(value);
    } else if (key == "file" && path.empty()) {
      path = value;
    } else {
      return usage_error("verify: unknown option --" + key);
    }
  }
  if (path.empty())
    return usage_error("verify: FILE is required (gpuplan verify FILE [--json] [--trust KEY])");
  auto text = read_bounded_file(path, kMaxProbeFileBytes);
  if (!text.ok()) return fail(text.error());
  auto f = signing::read_probe_file(text.value(), trusted);
  if (!f.ok()) return fail(make_error(f.error().code, path + ": " + f.error().message));
  const ProbeFile& file = f.value();
  const bool ok = file.signature == ProbeSignature::valid && (trusted.empty() || file.trusted);
  if (json) {
    ojson out = {{"schema_version", kQuerySchemaVersion}};
    out["file"] = path;
    out["signature"] = probe_signature_name(file.signature);
    out["reason"] = file.reason.empty() ? ojson(nullptr) : ojson(file.reason);
    out["key_id"] = file.key_id.empty() ? ojson(nullptr) : ojson(file.key_id);
    out["fingerprint"] = file.fingerprint.empty() ? ojson(nullptr) : ojson(file.fingerprint);
    out["public_key"] = file.public_key.empty() ? ojson(nullptr) : ojson(file.public_key);
    out["trusted"] = file.trusted;
    out["simulated"] = file.payload ? ojson(file.payload->simulated) : ojson(nullptr);
    out["summary"] = file.payload ? summary_json(file.payload->summary) : ojson(nullptr);
    if (file.measured) out["measured"] = ojson::parse(measured_run_to_json(*file.measured));
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    print_text(path, file, !trusted.empty());
  }
  return ok ? 0 : kExitInvalid;
}

}  // namespace gpuplan::cli
