// --emit torchrun|accelerate|deepspeed|megatron for `gpuplan estimate` and `gpuplan plan`: prints
// the launch config of the estimate or of the top-ranked plan (core/src/query/launch_config.cpp)
// instead of the report.
#include <cstdio>

#include "cli.h"

namespace gpuplan::cli {

int print_launch_config(const std::string& format, const LaunchInputs& inputs) {
  const auto f = parse_launch_format(format);
  if (!f)
    return usage_error("--emit: '" + format +
                       "' is not torchrun, accelerate, deepspeed or megatron");
  auto text = emit_launch_config(inputs, *f);
  if (!text.ok()) return fail(text.error());
  std::printf("%s", text.value().c_str());
  return 0;
}

}  // namespace gpuplan::cli
