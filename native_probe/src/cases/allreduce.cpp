// nccl_allreduce: NCCL all-reduce (sum, fp32) over every GPU, one row per message size.
// As nccl-tests (doc/PERFORMANCE.md): algbw = S / t, busbw = algbw * 2(n-1)/n, n = ranks;
// busbw is what compares with the link peak. Rows report busbw; params keep algbw.
#include "common.h"

namespace gpuplan::probe {
namespace {

class AllReduce : public Case {
 public:
  std::string name() const override { return "nccl_allreduce"; }
  std::string description() const override {
    return "NCCL all-reduce bus bandwidth over all GPUs (and nodes under MPI), per size; busbw = algbw * 2(n-1)/n";
  }
  bool per_gpu() const override { return false; }
  std::string filter(const Context& ctx, int) const override {
    const int ranks = ranks_of(ctx);
    if (ranks < 2) return "needs 2 or more GPUs (found " + std::to_string(ranks) + ")";
    return ctx.device.collectives_unavailable();
  }
  std::vector<Row> run(Context& ctx, int) override {
    const std::vector<int64_t> sizes =
        ctx.full ? std::vector<int64_t>{kMiB, 4 * kMiB, 16 * kMiB, 64 * kMiB, 256 * kMiB, kGiB}
                 : std::vector<int64_t>{8 * kMiB, 64 * kMiB, 512 * kMiB};
    std::vector<int> gpus;
    for (const auto& g : ctx.gpus) gpus.push_back(g.index);
    CollectiveGroup group = ctx.group;
    if (group.world_ranks == 0) group.world_ranks = int(gpus.size());
    const double n = group.world_ranks;
    const double factor = 2 * (n - 1) / n;
    std::vector<Row> rows;
    for (int64_t bytes : sizes) {
      auto m = ctx.measure(
          {bytes}, budget_for(ctx.full, 0.1, 0.4),
          [&](int64_t s, Iterations it) { return ctx.device.allreduce(gpus, group, s, it); },
          name() + " " + std::to_string(bytes) + " B");
      if (!m.ok()) {
        Row r = failed_row(name(), std::nullopt, m.failure());
        r.params = {{"bytes", bytes}, {"ranks", group.world_ranks}};
        rows.push_back(std::move(r));
        if (m.failure().kind == Failure::Kind::device_lost) break;
        continue;
      }
      Row r = rate_row(name(), std::nullopt, m.value(), double(bytes) * factor, "bytes_per_s",
                       {{"bytes", bytes},
                        {"ranks", group.world_ranks},
                        {"datatype", "float32"},
                        {"op", "sum"},
                        {"metric", "busbw"},
                        {"busbw_factor", "2(n-1)/n"}});
      r.params["algbw_median"] = round4(r.stats->median / factor);
      r.params["algbw_min"] = round4(r.stats->min / factor);
      r.params["algbw_max"] = round4(r.stats->max / factor);
      rows.push_back(std::move(r));
    }
    return rows;
  }

 private:
  static int ranks_of(const Context& ctx) {
    return ctx.group.world_ranks > 0 ? ctx.group.world_ranks : int(ctx.gpus.size());
  }
};

}  // namespace

void add_allreduce_case(std::vector<std::unique_ptr<Case>>& out) { out.push_back(std::make_unique<AllReduce>()); }

}  // namespace gpuplan::probe
