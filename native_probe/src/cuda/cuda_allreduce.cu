// NCCL all-reduce across this process's GPUs (and, under MPI, other processes' GPUs).
// All iterations are queued back to back with an event per GPU between them; an iteration's
// time is the longest of its GPUs' times, since a collective ends when its slowest rank does.
#include <algorithm>

#include "real_device.h"

namespace gpuplan::probe {
namespace {

Failure nccl_failure(int r, const char* expression, int line) {
  const auto& api = nccl::api();
  Failure f;
  f.kind = Failure::Kind::error;
  f.name = "ncclResult_t " + std::to_string(r);
  f.expression = expression;
  f.location = "cuda_allreduce.cu:" + std::to_string(line);
  f.message = std::string(api.GetErrorString ? api.GetErrorString(r) : "NCCL error") + " in " +
              f.expression + " at " + f.location;
  return f;
}

#define PROBE_NCCL(expr)                                                              \
  do {                                                                                \
    const int probe_nr_ = (expr);                                                     \
    if (probe_nr_ != nccl::kSuccess) return nccl_failure(probe_nr_, #expr, __LINE__); \
  } while (0)

}  // namespace

std::string RealCudaDevice::collectives_unavailable() {
  const auto& api = nccl::api();
  return api.loaded ? std::string() : api.error;
}

std::string RealCudaDevice::collective_id() {
  const auto& api = nccl::api();
  nccl::UniqueId id{};
  if (!api.loaded || api.GetUniqueId(&id) != nccl::kSuccess) return {};
  return std::string(id.internal, sizeof id.internal);
}

Outcome<Timings> RealCudaDevice::allreduce(const std::vector<int>& gpus,
                                           const CollectiveGroup& group, int64_t bytes,
                                           Iterations it) {
  const auto& api = nccl::api();
  if (!api.loaded)
    return Failure{Failure::Kind::unsupported, "nccl_missing", "dlopen(libnccl.so.2)",
                   "nccl_loader.cpp", api.error};
  std::lock_guard<std::mutex> lock(comm_mutex_);
  const size_t k = gpus.size();
  if (comms_.empty() || comm_gpus_ != gpus || comm_id_ != group.unique_id) {
    for (nccl::Comm c : comms_) api.CommDestroy(c);
    comms_.assign(k, nullptr);
    if (group.unique_id.empty()) {
      PROBE_NCCL(api.CommInitAll(comms_.data(), int(k), gpus.data()));
    } else {
      nccl::UniqueId id{};
      std::copy(group.unique_id.begin(), group.unique_id.end(), id.internal);
      PROBE_NCCL(api.GroupStart());
      for (size_t i = 0; i < k; ++i) {
        PROBE_CUDA(cudaSetDevice(gpus[i]));
        PROBE_NCCL(api.CommInitRank(&comms_[i], group.world_ranks, id, group.first_rank + int(i)));
      }
      PROBE_NCCL(api.GroupEnd());
    }
    comm_gpus_ = gpus;
    comm_id_ = group.unique_id;
  }

  const size_t count = size_t(bytes) / sizeof(float);
  std::vector<DeviceBuffer> send(k), recv(k);
  std::vector<StreamEvents> se(k);
  for (size_t i = 0; i < k; ++i) {
    PROBE_CUDA(cudaSetDevice(gpus[i]));
    PROBE_CUDA(send[i].allocate(count * sizeof(float)));
    PROBE_CUDA(recv[i].allocate(count * sizeof(float)));
    PROBE_CUDA(cudaMemset(send[i].get(), 0, count * sizeof(float)));
    PROBE_CUDA(se[i].create(it.timed + 1));
  }
  auto launch = [&]() -> std::optional<Failure> {
    PROBE_NCCL(api.GroupStart());
    for (size_t i = 0; i < k; ++i) {
      PROBE_NCCL(api.AllReduce(send[i].get(), recv[i].get(), count, nccl::kFloat32, nccl::kSum,
                               comms_[i], se[i].stream));
    }
    PROBE_NCCL(api.GroupEnd());
    return std::nullopt;
  };
  for (int w = 0; w < it.warmup; ++w) {
    if (auto f = launch()) return *f;
  }
  for (size_t i = 0; i < k; ++i) {
    PROBE_CUDA(cudaSetDevice(gpus[i]));
    PROBE_CUDA(cudaEventRecord(se[i].events[0], se[i].stream));
  }
  for (int n = 0; n < it.timed; ++n) {
    if (auto f = launch()) return *f;
    for (size_t i = 0; i < k; ++i) {
      PROBE_CUDA(cudaSetDevice(gpus[i]));
      PROBE_CUDA(cudaEventRecord(se[i].events[size_t(n) + 1], se[i].stream));
    }
  }
  Timings t(size_t(it.timed), 0.0);
  for (size_t i = 0; i < k; ++i) {
    PROBE_CUDA(cudaSetDevice(gpus[i]));
    PROBE_CUDA(cudaEventSynchronize(se[i].events[size_t(it.timed)]));
    for (int n = 0; n < it.timed; ++n) {
      float ms = 0;
      PROBE_CUDA(cudaEventElapsedTime(&ms, se[i].events[size_t(n)], se[i].events[size_t(n) + 1]));
      t[size_t(n)] = std::max(t[size_t(n)], double(ms) * 1e-3);
    }
  }
  return t;
}

}  // namespace gpuplan::probe
