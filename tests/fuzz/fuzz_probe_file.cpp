// Probe files (gpuplan-probe output, `gpuplan verify`, the page's upload): read_probe_file over
// the DSSE envelope and the payload, and parse_probe_payload on the bytes as they are. The
// SHA-256 and base64 are the signing library's (libsodium); the Ed25519 check is a stand-in that
// accepts a signature whose first byte is 'V', so inputs reach the verified and trusted paths
// without real keys.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"

using namespace gpuplan;

namespace {

bool fake_verify(const std::string& message, const std::string& signature,
                 const std::string& public_key) {
  return !message.empty() && signature.size() == 64 && public_key.size() == 32 &&
         signature[0] == 'V';
}

void check_payload(const ProbePayload& p) {
  FUZZ_CHECK(p.results_passed >= 0 && p.results_waived >= 0 && p.results_failed >= 0);
  const ProbeSummary& s = p.summary;
  FUZZ_CHECK(s.gpu_count >= 0 && s.memory_bytes >= 0 && s.slowest_gpu >= 0);
  for (const auto& v :
       {s.gemm_flop_per_s.fp64, s.gemm_flop_per_s.fp32, s.gemm_flop_per_s.tf32,
        s.gemm_flop_per_s.fp16, s.gemm_flop_per_s.bf16, s.gemm_flop_per_s.fp8,
        s.hbm_copy_bytes_per_s, s.hbm_triad_bytes_per_s, s.h2d_pinned_bytes_per_s,
        s.d2h_pinned_bytes_per_s, s.p2p_bytes_per_s, s.allreduce_busbw_bytes_per_s}) {
    if (v) FUZZ_CHECK(fuzz::finite_nonneg(*v));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Base64 as the envelope uses it: what decodes re-encodes to the same text, and back.
  if (auto bytes = signing::base64_decode(text)) {
    FUZZ_CHECK(signing::base64_encode(*bytes) == text);
  }
  FUZZ_CHECK(signing::base64_decode(signing::base64_encode(text)) == std::string(text));

  static const std::vector<std::string> trusted = {std::string(43, 'A') + "="};
  ProbeCrypto crypto = signing::probe_crypto();
  crypto.verify = fake_verify;
  auto f = read_probe_file(text, crypto, trusted);
  if (!f.ok()) {
    fuzz::check_error(f.error());
  } else {
    const ProbeFile& pf = f.value();
    if (pf.signature == ProbeSignature::valid) {
      FUZZ_CHECK(pf.payload.has_value() !=
                 pf.measured.has_value());  // a probe's or a measured run's
      FUZZ_CHECK(pf.reason.empty());
      FUZZ_CHECK(pf.key_id.size() == 32 && pf.fingerprint.rfind("SHA256:", 0) == 0);
    } else {
      FUZZ_CHECK(!pf.trusted);
      FUZZ_CHECK(!pf.reason.empty());
    }
    if (pf.signature == ProbeSignature::invalid)
      FUZZ_CHECK(!pf.payload.has_value() && !pf.measured.has_value());
    if (pf.measured) FUZZ_CHECK(pf.measured->step.median_s > 0 && pf.measured->steps >= 1);
    if (pf.payload) check_payload(*pf.payload);
  }
  auto p = parse_probe_payload(text, "payload");
  if (p.ok())
    check_payload(p.value());
  else
    fuzz::check_error(p.error());
  return 0;
}
