#pragma once
// Ed25519 signing for probe files (libsodium's crypto_sign_ed25519_*).
//
// Natively this links Debian's libsodium; under Emscripten it links a subset of libsodium 1.0.18
// compiled from source at build time (tools/signing/CMakeLists.txt), so the page verifies with
// the same code. Keys and signatures are raw bytes in std::string.

#include <optional>
#include <string>

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
bool verify_detached(const std::string& message, const std::string& signature, const std::string& public_key);

// The probe-file envelope for `payload`, signed with `key` (DSSE, see gpuplan/probe_file.h).
std::string sign_probe_payload(const std::string& payload, const KeyPair& key);

}  // namespace gpuplan::signing
