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
    case Precision::mxfp8:
      return "mxfp8";
    case Precision::nvfp4:
      return "nvfp4";
  }
  return "?";
}

bool block_scaled(Precision p) {
  return p == Precision::mxfp8 || p == Precision::nvfp4;
}

const char* catalog_peak_key(Precision p) {
  return p == Precision::mxfp8 ? "fp8" : p == Precision::nvfp4 ? "fp4" : precision_name(p);
}

// CUDA C Programming Guide, "Compute Capabilities" table: 7.0 Volta, 7.5 Turing, 8.0/8.6/8.7
// Ampere, 8.9 Ada, 9.0 Hopper, 10.0/10.3/11.0/12.0/12.1 Blackwell.
const char* architecture_name(int cc_major, int cc_minor) {
  switch (cc_major) {
    case 7:
      return cc_minor == 5 ? "Turing" : "Volta";
    case 8:
      return cc_minor == 9 ? "Ada" : "Ampere";
    case 9:
      return "Hopper";
    case 10:
    case 11:
    case 12:
      return "Blackwell";
    default:
      return "unknown";
  }
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
