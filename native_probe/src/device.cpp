// Names of the device interface's enums.
#include "device.h"

namespace gpuplan::probe {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp64:
      return "fp64";
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
    case Precision::fp8:
      return "fp8";
  }
  return "?";
}

const char* memop_name(MemOp op) {
  switch (op) {
    case MemOp::read:
      return "read";
    case MemOp::write:
      return "write";
    case MemOp::copy:
      return "copy";
    case MemOp::triad:
      return "triad";
  }
  return "?";
}

int memop_arrays(MemOp op) {
  return op == MemOp::copy ? 2 : op == MemOp::triad ? 3 : 1;
}

}  // namespace gpuplan::probe
