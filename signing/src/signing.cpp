// Ed25519, SHA-256 and base64 through libsodium; identical code natively and in WebAssembly.
#include "gpuplan/signing.h"

#include <sodium.h>

#include "gpuplan/probe_file.h"
#include "sodium_init.h"

namespace gpuplan::signing {
namespace {

const unsigned char* bytes(const std::string& s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}
unsigned char* bytes(std::string& s) {
  return reinterpret_cast<unsigned char*>(s.data());
}

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
  crypto_sign_ed25519_detached(bytes(sig), nullptr, bytes(message), message.size(),
                               bytes(secret_key));
  return sig;
}

bool verify_detached(const std::string& message, const std::string& signature,
                     const std::string& public_key) {
  ensure_sodium_init();
  if (signature.size() != kSignatureBytes || public_key.size() != kPublicKeyBytes) return false;
  return crypto_sign_ed25519_verify_detached(bytes(signature), bytes(message), message.size(),
                                             bytes(public_key)) == 0;
}

std::string sha256(std::string_view text) {
  ensure_sodium_init();
  std::string out(crypto_hash_sha256_BYTES, '\0');
  crypto_hash_sha256(bytes(out), reinterpret_cast<const unsigned char*>(text.data()), text.size());
  return out;
}

std::string base64_encode(std::string_view text) {
  ensure_sodium_init();
  const int variant = sodium_base64_VARIANT_ORIGINAL;
  std::string out(sodium_base64_ENCODED_LEN(text.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(text.data()),
                    text.size(), variant);
  out.resize(out.size() - 1);  // the terminating NUL sodium writes
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  ensure_sodium_init();
  // libsodium 1.0.18's constant-time character classifier takes some bytes >= 0x80 for digits
  // ("\x85\x82\x84\x88" decodes; found by fuzz_probe_file), so anything outside the RFC 4648
  // alphabet is refused before it is decoded.
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                          (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
    if (!alphabet) return std::nullopt;
  }
  std::string out(text.size() / 4 * 3 + 3, '\0');
  size_t length = 0;
  // No characters to ignore and no end pointer: the whole text must be one canonical, padded
  // encoding (libsodium rejects non-zero unused bits and missing padding in this variant).
  if (sodium_base642bin(bytes(out), out.size(), text.data(), text.size(), nullptr, &length, nullptr,
                        sodium_base64_VARIANT_ORIGINAL) != 0) {
    return std::nullopt;
  }
  out.resize(length);
  return out;
}

const ProbeCrypto& probe_crypto() {
  static const ProbeCrypto crypto{verify_detached, sha256, base64_encode, base64_decode};
  return crypto;
}

std::string sign_probe_payload(const std::string& payload, const KeyPair& key) {
  const std::string sig = sign_detached(dsse_pae(kProbePayloadType, payload), key.secret_key);
  return make_probe_envelope(payload, key.public_key, sig, probe_crypto());
}

Result<ProbeFile> read_probe_file(std::string_view text,
                                  const std::vector<std::string>& trusted_keys) {
  return gpuplan::read_probe_file(text, probe_crypto(), trusted_keys);
}

std::string key_id(const std::string& public_key) {
  return probe_key_id(public_key, probe_crypto());
}
std::string key_fingerprint(const std::string& public_key) {
  return probe_key_fingerprint(public_key, probe_crypto());
}

}  // namespace gpuplan::signing
