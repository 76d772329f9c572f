#pragma once
// libsodium start-up, which differs by platform (sodium_init_native.cpp / sodium_init_wasm.cpp).

namespace gpuplan::signing {

// Prepares libsodium once; false when no randomness source is available.
bool ensure_sodium_init();

}  // namespace gpuplan::signing
