#pragma once
// The probe's signing key on disk (native only): made on first use, mode 0600, never rewritten.
//
// Format (versioned JSON, one object):
//   {"schema_version": 1, "kind": "gpuplan-probe-key", "alg": "Ed25519",
//    "seed": "<base64, 32 bytes>", "public_key": "<base64, 32 bytes>"}

#include <string>

#include "gpuplan/result.h"
#include "gpuplan/signing.h"

namespace gpuplan::signing {

// A key read from (or just written to) a key file.
struct KeyFile {
  KeyPair key;
  bool created = false;  // true when this call made the file
  std::string path;
};

// $XDG_CONFIG_HOME/gpuplan/probe-key, else $HOME/.config/gpuplan/probe-key.
std::string default_key_path();

// Reads the key at `path`, or makes one there (parent folders 0700, file 0600) if there is none.
// A file that others can read or write is refused (like ssh), and an existing file's mode is
// never changed. Errors name the path and say what to do.
Result<KeyFile> load_or_create_key(const std::string& path);

}  // namespace gpuplan::signing
