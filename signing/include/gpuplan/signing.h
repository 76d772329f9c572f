#pragma once
// The signing library: Ed25519 signatures, SHA-256 and base64 for probe files, all through
// libsodium (crypto_sign_ed25519_*, crypto_hash_sha256, sodium_bin2base64). The core reads the
// DSSE envelope and the payload with these functions injected (probe_crypto()), so core/ links
// no crypto library and nothing here is written by hand.
//
// Natively this links Debian's libsodium; under Emscripten it links a subset of libsodium 1.0.18
// compiled from source at build time (signing/CMakeLists.txt), so the page verifies with the
// same code. Keys and signatures are raw bytes in std::string.

#include <optional>
#include <string>
#include <string_view>

#include "gpuplan/probe_file.h"

namespace gpuplan::signing {

inline constexpr size_t kPublicKeyBytes = 32;
inline constexpr size_t kSecretKeyBytes = 64;  // seed followed by the public key, as libsodium
inline constexpr size_t kSeedBytes = 32;
inline constexpr size_t kSignatureBytes = 64;

// An Ed25519 key pair.
struct KeyPair {
  std::string public_key;  // 32 bytes
  std::string secret_key;  // 64 bytes
};

// The key pair for a 32-byte seed (deterministic).
KeyPair keypair_from_seed(const std::string& seed);
// A new key pair from the system's randomness; nullopt if none is available.
std::optional<KeyPair> generate_keypair();

// The detached 64-byte signature of `message`.
std::string sign_detached(const std::string& message, const std::string& secret_key);
// True when `signature` is a valid signature of `message` by `public_key`. Matches
// gpuplan::VerifyFn, so it can be passed to read_probe_file as it is.
bool verify_detached(const std::string& message, const std::string& signature,
                     const std::string& public_key);

// SHA-256 of `bytes` (32 raw bytes).
std::string sha256(std::string_view bytes);
// Standard base64 (RFC 4648, with padding).
std::string base64_encode(std::string_view bytes);
// Strict decoding: padding required, no whitespace, unused bits zero; nullopt when malformed.
std::optional<std::string> base64_decode(std::string_view text);

// The functions above as the core's probe-file reader takes them.
const ProbeCrypto& probe_crypto();

// The probe-file envelope for `payload`, signed with `key` (DSSE, see gpuplan/probe_file.h).
std::string sign_probe_payload(const std::string& payload, const KeyPair& key);
// read_probe_file with libsodium's cryptography.
Result<ProbeFile> read_probe_file(std::string_view text,
                                  const std::vector<std::string>& trusted_keys);
// Key id and fingerprint of a raw public key (see gpuplan/probe_file.h).
std::string key_id(const std::string& public_key);
std::string key_fingerprint(const std::string& public_key);

}  // namespace gpuplan::signing
