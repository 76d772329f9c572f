#pragma once
// Probe files: what gpuplan-probe writes and what `gpuplan verify` and the page read.
//
// A probe file is a DSSE envelope (in-toto/Sigstore format) around the exact bytes of a JSON
// payload (schema_version 1, kind "gpuplan-probe"; data/schema/probe.schema.json):
//   {"payloadType": kProbePayloadType, "payload": base64(bytes),
//    "signatures": [{"alg": "Ed25519", "keyid": hex, "public_key": base64, "sig": base64}]}
// Each signature covers dsse_pae(payloadType, payload bytes). The core does no cryptography of
// its own: Ed25519, SHA-256 (key ids) and base64 are passed in as a ProbeCrypto (signing/
// provides libsodium's, natively and in WebAssembly), so core/ stays free of crypto libraries.
// The payload is parsed only after a signature verifies (or when the file is unsigned).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/measured_run.h"
#include "gpuplan/result.h"

namespace gpuplan {

// The payload schema version this build reads and writes.
inline constexpr int kProbeSchemaVersion = 1;
// The DSSE payloadType of a probe file.
inline constexpr const char* kProbePayloadType = "application/vnd.gpuplan.probe+json";
// Files larger than this are rejected before parsing.
inline constexpr size_t kMaxProbeFileBytes = 8 * 1024 * 1024;

// Checks a detached Ed25519 signature (64 bytes) of `message` by `public_key` (32 bytes).
using VerifyFn = bool (*)(const std::string& message, const std::string& signature,
                          const std::string& public_key);

// The cryptography probe files need, injected (signing::probe_crypto() gives libsodium's).
struct ProbeCrypto {
  VerifyFn verify = nullptr;
  std::string (*sha256)(std::string_view bytes) = nullptr;         // 32 raw bytes
  std::string (*base64_encode)(std::string_view bytes) = nullptr;  // RFC 4648, padded
  // Strict decoding (padding required, no whitespace, canonical); nullopt when malformed.
  std::optional<std::string> (*base64_decode)(std::string_view text) = nullptr;
};

// What the signatures of a file say.
enum class ProbeSignature {
  valid,          // a signature verifies over the exact payload bytes
  invalid,        // signatures present but none verifies (tampered, wrong key, wrong type)
  unsigned_file,  // no signature at all (bare payload, or an empty signatures list)
};
// "valid", "invalid" or "unsigned".
const char* probe_signature_name(ProbeSignature s);

// Measured GEMM throughput per precision, FLOP/s; nullopt when not measured. mxfp8 and nvfp4 are
// the block-scaled recipes (sm_100+, CUDA 12.8+); files of older probes leave them out.
struct ProbeGemm {
  std::optional<double> fp64, fp32, tf32, fp16, bf16, fp8, mxfp8, nvfp4;
  // The rate of a recipe by name ("fp8", "mxfp8", "nvfp4", "bf16", ...); nullopt when not measured
  // or not a name above.
  std::optional<double> rate(const std::string& recipe) const;
};

// The payload's "summary" object: what gpuplan's calibration reads. Base units; nullopt = null.
struct ProbeSummary {
  std::string gpu_name;
  std::optional<std::string> catalog_gpu_id;  // data/gpus id matched from the device name
  int64_t gpu_count = 0;                      // over all nodes
  int64_t node_count = 1;                     // > 1: a multi-node run (gpuplan-probe-mpi)
  int64_t slowest_gpu = 0;                    // index into the payload's gpus
  ProbeGemm gemm_flop_per_s;
  // The low-precision recipes ("fp8", "mxfp8", "nvfp4") whose GEMM the probe measured; empty in
  // files of probes that predate the field.
  std::vector<std::string> gemm_recipes_measured;
  std::optional<double> hbm_copy_bytes_per_s, hbm_triad_bytes_per_s;
  std::optional<double> h2d_pinned_bytes_per_s, d2h_pinned_bytes_per_s;
  std::optional<double> p2p_bytes_per_s;
  std::optional<double> allreduce_busbw_bytes_per_s;  // at the largest size measured; across nodes
                                                      // when node_count > 1
  int64_t memory_bytes = 0;
};

// The parts of a payload that gpuplan shows and uses.
struct ProbePayload {
  bool simulated = false;  // figures from SimulatedDevice (catalog peak x default efficiency)
  std::string tool_name, tool_version, git_revision;
  std::string started_utc, finished_utc;
  std::optional<std::string> cloud_provider, cloud_instance_type, cloud_region;
  int64_t results_passed = 0, results_waived = 0, results_failed = 0;
  std::vector<std::string> warnings;
  ProbeSummary summary;
};

// A probe file as read by read_probe_file.
struct ProbeFile {
  ProbeSignature signature = ProbeSignature::unsigned_file;
  std::string reason;                    // why the file is invalid or unsigned; empty when valid
  Msg reason_id = Msg::none;             // the reason's message id (gpuplan/messages.h)
  std::vector<std::string> reason_args;  // and its values
  std::string key_id;       // hex of the first 16 bytes of SHA-256(public key) of the verifying key
  std::string fingerprint;  // "SHA256:" + unpadded base64 of SHA-256(public key), as ssh prints
  std::string public_key;   // base64 of the verifying key (or of the first key when invalid)
  bool trusted = false;     // the verifying key is one of the caller's trusted (pinned) keys
  std::string payload_bytes;            // the exact signed bytes (empty when invalid)
  std::optional<ProbePayload> payload;  // parsed when valid or unsigned (kind gpuplan-probe)
  std::optional<MeasuredRun> measured;  // instead, a measured model run (kind gpuplan-measure)
};

// Reads a probe file. Errors (size, JSON syntax, envelope fields, and after a signature verifies
// the payload's schema_version and fields) name the field; signature problems are not errors
// but ProbeSignature::invalid with a reason. `trusted_keys` are base64 public keys.
Result<ProbeFile> read_probe_file(std::string_view text, const ProbeCrypto& crypto,
                                  const std::vector<std::string>& trusted_keys);

// Parses a payload without any signature check. `where` prefixes error messages.
Result<ProbePayload> parse_probe_payload(std::string_view payload, const std::string& where);

// DSSE pre-authentication encoding: "DSSEv1 <len(type)> <type> <len(body)> <body>".
std::string dsse_pae(std::string_view type, std::string_view body);

// Builds the envelope text around `payload` with one Ed25519 signature over
// dsse_pae(kProbePayloadType, payload). `public_key` and `signature` are raw bytes.
std::string make_probe_envelope(std::string_view payload, const std::string& public_key,
                                const std::string& signature, const ProbeCrypto& crypto);

// Lower-case hex of `bytes`.
std::string hex_encode(std::string_view bytes);
// Key id: hex of the first 16 bytes of SHA-256(public key).
std::string probe_key_id(const std::string& public_key, const ProbeCrypto& crypto);
// Fingerprint: "SHA256:" + base64 (no padding) of SHA-256(public key).
std::string probe_key_fingerprint(const std::string& public_key, const ProbeCrypto& crypto);

}  // namespace gpuplan
