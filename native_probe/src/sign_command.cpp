// gpuplan-probe sign: the probe's key and envelope for payloads written elsewhere (sign_command.h).
#include "sign_command.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "gpuplan/key_file.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"
#include "output.h"

namespace gpuplan::probe {
namespace {

constexpr int kExitSigned = 0, kExitNotPayload = 1, kExitUsage = 2, kExitKeyOrFile = 4;

const char* kSignUsage = R"(usage: gpuplan-probe sign FILE [--key KEY] [--out OUT]

Signs FILE, a bare payload (for example measured.json from gpuplan-measure), with the probe's
Ed25519 key into the probe's DSSE envelope, and writes it atomically to OUT (default: FILE itself).
The payload must be one gpuplan reads (kind gpuplan-measure or gpuplan-probe, a supported
schema_version); its bytes are signed as they are, never re-serialised.
  --key KEY   signing key (default ~/.config/gpuplan/probe-key; made on first use, mode 0600)
exit codes: 0 signed, 1 not a payload gpuplan reads (or already signed), 2 usage, 4 key or file problem
)";

int say(int code, const std::string& message) {
  std::fprintf(stderr, "gpuplan-probe sign: %s\n", message.c_str());
  return code;
}

}  // namespace

int run_sign_command(int argc, char** argv) {
  std::string file, key_path, out;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kSignUsage, stdout);
      return kExitSigned;
    }
    if ((a == "--key" || a == "--out") && i + 1 < argc) {
      (a == "--key" ? key_path : out) = argv[++i];
    } else if (a.rfind("--", 0) == 0 || !file.empty()) {
      return say(kExitUsage, "unexpected argument '" + a + "' (run 'gpuplan-probe sign --help')");
    } else {
      file = a;
    }
  }
  if (file.empty()) return say(kExitUsage, "FILE is required (run 'gpuplan-probe sign --help')");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) return say(kExitKeyOrFile, "cannot read '" + file + "'");
  const std::string payload = text.str();
  if (payload.size() > kMaxProbeFileBytes)
    return say(kExitNotPayload, file + ": larger than the probe file limit");
  // Read it as `gpuplan verify` will, so nothing is signed that the readers reject.
  auto bare = signing::read_probe_file(payload, {});
  if (!bare.ok()) return say(kExitNotPayload, file + ": " + bare.error().message);
  if (bare.value().payload_bytes != payload)
    return say(kExitNotPayload, file + ": already an envelope, not a bare payload");
  auto key = signing::load_or_create_key(key_path.empty() ? signing::default_key_path() : key_path);
  if (!key.ok()) return say(kExitKeyOrFile, "signing key: " + key.error().message);
  const std::string envelope = signing::sign_probe_payload(payload, key.value().key);
  auto check =
      signing::read_probe_file(envelope, {signing::base64_encode(key.value().key.public_key)});
  if (!check.ok() || check.value().signature != ProbeSignature::valid) {
    return say(kExitKeyOrFile, "internal error: the signed file does not read back");
  }
  if (out.empty()) out = file;
  if (const std::string err = write_file_atomically(out, envelope); !err.empty())
    return say(kExitKeyOrFile, err);
  std::fprintf(stderr, "gpuplan-probe sign: wrote %s, signed by %s\n", out.c_str(),
               probe_key_fingerprint(key.value().key.public_key, signing::probe_crypto()).c_str());
  return kExitSigned;
}

}  // namespace gpuplan::probe
