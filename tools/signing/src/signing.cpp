// Ed25519 through libsodium; identical code natively and in WebAssembly.
#include "gpuplan/signing.h"

#include <sodium.h>

#include "gpuplan/probe_file.h"
#include "sodium_init.h"

namespace gpuplan::signing {
namespace {

const unsigned char* bytes(const std::string& s) { return reinterpret_cast<const unsigned char*>(s.data()); }
unsigned char* bytes(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }

}  // namespace

KeyPair keypair_from_seed(const std::string& seed) {
  ensure_sodium_init();
  KeyPair k{std::string(kPublicKeyBytes, '\0'), std::string(kSecretKeyBytes, '\0')};
  if (seed.size() != kSeedBytes) return {};
  crypto_sign_ed25519_seed_keypair(bytes(k.public_key), bytes(k.secret_key), bytes(seed));
  return k;
}

std::optional<KeyPair> generate_keypair() {
  if (!ensure_sodium_init()) return std::nullopt;
  KeyPair k{std::string(kPublicKeyBytes, '\0'), std::string(kSecretKeyBytes, '\0')};
  crypto_sign_ed25519_keypair(bytes(k.public_key), bytes(k.secret_key));
  return k;
}

std::string sign_detached(const std::string& message, const std::string& secret_key) {
  ensure_sodium_init();
  if (secret_key.size() != kSecretKeyBytes) return {};
  std::string sig(kSignatureBytes, '\0');
  crypto_sign_ed25519_detached(bytes(sig), nullptr, bytes(message), message.size(), bytes(secret_key));
  return sig;
}

bool verify_detached(const std::string& message, const std::string& signature, const std::string& public_key) {
  ensure_sodium_init();
  if (signature.size() != kSignatureBytes || public_key.size() != kPublicKeyBytes) return false;
  return crypto_sign_ed25519_verify_detached(bytes(signature), bytes(message), message.size(),
                                             bytes(public_key)) == 0;
}

std::string sign_probe_payload(const std::string& payload, const KeyPair& key) {
  const std::string sig = sign_detached(dsse_pae(kProbePayloadType, payload), key.secret_key);
  return make_probe_envelope(payload, key.public_key, sig);
}

}  // namespace gpuplan::signing
