// nccl_allreduce: NCCL all-reduce (sum, fp32) over every GPU, one row per message size.
// As nccl-tests (doc/PERFORMANCE.md): algbw = S / t, busbw = algbw * 2(n-1)/n, n = ranks;
// busbw is what compares with the link peak. Rows report busbw; params keep algbw.
#include <functional>
#include <optional>

#include "common.h"

namespace gpuplan::probe {
namespace {

class AllReduce : public Case {
 public:
  std::string name() const override { return "nccl_allreduce"; }
  std::string description() const override {
    return "NCCL all-reduce bus bandwidth over all GPUs (and nodes under MPI), per size; busbw = "
           "algbw * 2(n-1)/n";
  }
  bool per_gpu() const override { return false; }
  std::string filter(const Context& ctx, int) const override {
    const int ranks = ranks_of(ctx);
    if (ranks < 2) return "needs 2 or more GPUs (found " + std::to_string(ranks) + ")";
    return ctx.device.collectives_unavailable();
  }
  bool collective() const override { return true; }
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
    const Budget budget = budget_for(ctx.full, 0.1, 0.4);
    std::vector<Row> rows;
    for (int64_t bytes : sizes) {
      auto m = measure_collective(ctx, budget, bytes, [&](Iterations it) {
        return ctx.device.allreduce(gpus, group, bytes, it);
      });
      if (!m.ok()) {
        Row r = failed_row(name(), std::nullopt, m.failure());
        r.params = {{"bytes", bytes}, {"ranks", group.world_ranks}};
        rows.push_back(std::move(r));
        if (m.failure().kind == Failure::Kind::device_lost || ctx.peers) break;
        continue;
      }
      Row r = rate_row(name(), std::nullopt, m.value(), double(bytes) * factor, "bytes_per_s",
                       {{"bytes", bytes},
                        {"ranks", group.world_ranks},
                        {"nodes", ctx.peers ? ctx.peers->size() : 1},
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
  // Calibrates, then measures, with every node using the slowest node's single-iteration time
  // for the counts (all must launch the same collectives) and each iteration's slowest node's
  // time (a collective ends with its slowest rank). One node's failure fails it everywhere.
  static Outcome<Measured> measure_collective(
      Context& ctx, const Budget& budget, int64_t size,
      const std::function<Outcome<Timings>(Iterations)>& run) {
    auto agreed = [&](const Outcome<Timings>& t) -> std::optional<Failure> {
      const std::string mine = t.ok() ? std::string() : t.failure().message;
      const std::string any = ctx.peers ? first_problem(*ctx.peers, mine) : mine;
      if (!t.ok()) return t.failure();
      if (!any.empty())
        return Failure{Failure::Kind::error, "peer_failed", "nccl_allreduce", "another node", any};
      return std::nullopt;
    };
    const Iterations single{1, 1};
    auto cal = run(single);
    if (auto f = agreed(cal)) return *f;
    double t1 = cal.value().empty() ? 0.0 : cal.value().front();
    if (ctx.peers) t1 = max_over_ranks(*ctx.peers, {t1}).front();
    const Iterations it = iterations_for(t1, budget);
    auto timed = run(it);
    if (auto f = agreed(timed)) return *f;
    Timings t = timed.value();
    if (ctx.peers) t = max_over_ranks(*ctx.peers, t);
    return Measured{size, it, t};
  }

  static int ranks_of(const Context& ctx) {
    return ctx.group.world_ranks > 0 ? ctx.group.world_ranks : int(ctx.gpus.size());
  }
};

}  // namespace

void add_allreduce_case(std::vector<std::unique_ptr<Case>>& out) {
  out.push_back(std::make_unique<AllReduce>());
}

}  // namespace gpuplan::probe
