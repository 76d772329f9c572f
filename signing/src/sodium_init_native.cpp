// Native: the full Debian libsodium, which wants sodium_init() before use.
#include <sodium.h>

#include "sodium_init.h"

namespace gpuplan::signing {

bool ensure_sodium_init() {
  static const bool ok = sodium_init() >= 0;  // thread-safe; 1 = already initialised
  return ok;
}

}  // namespace gpuplan::signing
