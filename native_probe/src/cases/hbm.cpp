// hbm_<op>: device-memory bandwidth with STREAM-style float4 kernels.
// Byte counting (stated in each row): read N, write N, copy 2N (read a, write b), triad 3N
// (read b and c, write a), N = bytes per array; write-allocate traffic is not counted, so copy
// and triad report what the program moved, as STREAM and nvbandwidth do. 1 GB/s = 1e9 B/s.
#include "common.h"

namespace gpuplan::probe {
namespace {

class Hbm : public Case {
 public:
  explicit Hbm(MemOp op) : op_(op) {}
  std::string name() const override { return std::string("hbm_") + memop_name(op_); }
  std::string description() const override {
    switch (op_) {
      case MemOp::read:
        return "device memory read bandwidth (sum of a float4 array; counts N bytes)";
      case MemOp::write:
        return "device memory write bandwidth (fill a float4 array; counts N bytes)";
      case MemOp::copy:
        return "device memory copy bandwidth b = a (counts 2N bytes)";
      case MemOp::triad:
        return "STREAM triad a = b + s*c (counts 3N bytes)";
    }
    return "";
  }
  std::vector<Row> run(Context& ctx, int gpu) override {
    const std::vector<int64_t> sizes =
        ctx.full ? std::vector<int64_t>{2 * kGiB, kGiB, 256 * kMiB, 64 * kMiB}
                 : std::vector<int64_t>{kGiB, 256 * kMiB, 64 * kMiB};
    auto m = ctx.measure(
        sizes, budget_for(ctx.full, 0.15, 0.8),
        [&](int64_t bytes, Iterations it) { return ctx.device.memory(gpu, op_, bytes, it); },
        name() + " gpu " + std::to_string(gpu));
    if (!m.ok()) return {failed_row(name(), gpu, m.failure())};
    const int arrays = memop_arrays(op_);
    const double bytes = double(arrays) * double(m.value().size);
    return {rate_row(
        name(), gpu, m.value(), bytes, "bytes_per_s",
        {{"array_bytes", m.value().size},
         {"bytes_per_iteration", int64_t(arrays) * m.value().size},
         {"bytes_counted", std::to_string(arrays) + " x array bytes (" +
                               (arrays == 1 ? std::string(memop_name(op_)) : "reads + writes") +
                               "); write-allocate traffic not counted"}})};
  }

 private:
  MemOp op_;
};

}  // namespace

void add_hbm_cases(std::vector<std::unique_ptr<Case>>& out) {
  for (MemOp op : {MemOp::read, MemOp::write, MemOp::copy, MemOp::triad})
    out.push_back(std::make_unique<Hbm>(op));
}

}  // namespace gpuplan::probe
