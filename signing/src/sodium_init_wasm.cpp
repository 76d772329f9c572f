// WebAssembly: only the Ed25519 subset is compiled. sodium_init() would pull in every other
// primitive's set-up, and nothing in the subset needs it; randombytes uses the JS crypto API.
#include "sodium_init.h"

namespace gpuplan::signing {

bool ensure_sodium_init() {
  return true;
}

}  // namespace gpuplan::signing
