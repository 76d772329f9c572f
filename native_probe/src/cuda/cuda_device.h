#pragma once
// The real device. Built from the .cu files when CMake finds nvcc; otherwise no_cuda.cpp
// provides a device whose open() explains that this build has no CUDA (exit code 3).

#include <memory>

#include "../device.h"

namespace gpuplan::probe {

std::unique_ptr<Device> make_cuda_device();

}  // namespace gpuplan::probe
