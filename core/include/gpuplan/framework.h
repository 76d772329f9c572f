#pragma once
// Frameworks as users name them (--framework
// megatron|megatron-bridge|torchtitan|fsdp|deepspeed|hf-trainer): the defaults each really runs
// with, read from its code (the Method page cites file and commit). A preset fills only the setup
// fields the user did not give; every one can still be set.

#include <string>
#include <vector>

#include "gpuplan/estimate.h"

namespace gpuplan {

// One default of a framework: the setup key it sets (the CLI's spelling), and the source.
struct FrameworkDefault {
  const char* key;
  const char* value;
  const char* source;  // "repository@commit path: what the code does"
};

// The defaults a framework sets, in the order applied. Framework::none sets nothing.
const std::vector<FrameworkDefault>& framework_defaults(Framework framework);

// Applies setup.framework's defaults to the fields whose key `given` says the user did not
// give. The attention kernel applies only at 16-bit activations (fused kernels need them; the
// frameworks fall back to their unfused path in fp32), the gradient dtype only to recipes with
// fp32 master weights.
void apply_framework_defaults(Setup& setup, bool (*given)(const char* key, const void* context),
                              const void* context);

// Whether a framework trains on Megatron-Core (its DDP buckets, CUDA graph scopes): Megatron-LM
// itself and Megatron-Bridge.
bool runs_megatron_core(Framework framework);

// The setup a framework starts from: Setup{} with its defaults, at `precision`.
Setup framework_setup(Framework framework, Precision precision);

}  // namespace gpuplan
