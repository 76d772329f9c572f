// h2d_/d2h_ pinned/pageable: host <-> device copies over PCIe (or C2C). Pinned memory uses
// cudaMemcpyAsync timed with CUDA events; pageable memory goes through the driver's staging
// buffer, so it is timed on the host around a synchronous cudaMemcpy.
#include "common.h"

namespace gpuplan::probe {
namespace {

class HostDevice : public Case {
 public:
  HostDevice(CopyDir dir, bool pinned) : dir_(dir), pinned_(pinned) {}
  std::string name() const override {
    return std::string(dir_ == CopyDir::h2d ? "h2d" : "d2h") + (pinned_ ? "_pinned" : "_pageable");
  }
  std::string description() const override {
    return std::string(dir_ == CopyDir::h2d ? "host to device" : "device to host") + " copy from " +
           (pinned_ ? "pinned (cudaMallocHost) memory" : "pageable (malloc) memory");
  }
  std::vector<Row> run(Context& ctx, int gpu) override {
    const std::vector<int64_t> sizes = ctx.full
                                           ? std::vector<int64_t>{kGiB, 256 * kMiB, 64 * kMiB}
                                           : std::vector<int64_t>{256 * kMiB, 64 * kMiB, 16 * kMiB};
    auto m = ctx.measure(
        sizes, budget_for(ctx.full, 0.15, 0.8),
        [&](int64_t bytes, Iterations it) {
          return ctx.device.host_copy(gpu, dir_, pinned_, bytes, it);
        },
        name() + " gpu " + std::to_string(gpu));
    if (!m.ok()) return {failed_row(name(), gpu, m.failure())};
    Row r = rate_row(name(), gpu, m.value(), double(m.value().size), "bytes_per_s",
                     {{"bytes", m.value().size}, {"bytes_counted", "bytes copied once"}});
    if (!pinned_) r.params["timer"] = "host_steady_clock";
    return {r};
  }

 private:
  CopyDir dir_;
  bool pinned_;
};

}  // namespace

void add_host_device_cases(std::vector<std::unique_ptr<Case>>& out) {
  out.push_back(std::make_unique<HostDevice>(CopyDir::h2d, true));
  out.push_back(std::make_unique<HostDevice>(CopyDir::d2h, true));
  out.push_back(std::make_unique<HostDevice>(CopyDir::h2d, false));
  out.push_back(std::make_unique<HostDevice>(CopyDir::d2h, false));
}

}  // namespace gpuplan::probe
