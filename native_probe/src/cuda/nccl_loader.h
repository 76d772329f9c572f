#pragma once
// NCCL through dlopen("libnccl.so.2"), so a single-GPU machine without NCCL still runs every
// other case. The types are declared here with NCCL's ABI values (nccl.h: ncclFloat32 = 7,
// ncclSum = 0, ncclUniqueId = 128 bytes), so building needs no nccl.h either.

#include <string>

namespace gpuplan::probe::nccl {

using Comm = struct ncclComm*;
struct UniqueId {
  char internal[128];
};
inline constexpr int kFloat32 = 7;
inline constexpr int kSum = 0;
inline constexpr int kSuccess = 0;

struct Api {
  bool loaded = false;
  std::string error;  // why not loaded
  int (*GetVersion)(int*) = nullptr;
  int (*GetUniqueId)(UniqueId*) = nullptr;
  int (*CommInitAll)(Comm*, int, const int*) = nullptr;
  int (*CommInitRank)(Comm*, int, UniqueId, int) = nullptr;
  int (*CommDestroy)(Comm) = nullptr;
  int (*AllReduce)(const void*, void*, size_t, int, int, Comm, void* stream) = nullptr;
  int (*GroupStart)() = nullptr;
  int (*GroupEnd)() = nullptr;
  const char* (*GetErrorString)(int) = nullptr;
};

// Loads once (thread-safe); check loaded.
const Api& api();

}  // namespace gpuplan::probe::nccl
