// p2p_copy: GPU-to-GPU copy bandwidth (cudaMemcpyPeerAsync), one row per ordered pair.
// --quick measures the pairs that include GPU 0; --full every ordered pair.
#include "common.h"

namespace gpuplan::probe {
namespace {

class PeerCopy : public Case {
 public:
  std::string name() const override { return "p2p_copy"; }
  std::string description() const override {
    return "peer-to-peer copy between GPUs (NVLink or PCIe P2P), unidirectional, per ordered pair";
  }
  bool per_gpu() const override { return false; }
  std::string filter(const Context& ctx, int) const override {
    if (ctx.gpus.size() < 2)
      return "needs 2 or more GPUs (found " + std::to_string(ctx.gpus.size()) + ")";
    return {};
  }
  std::vector<Row> run(Context& ctx, int) override {
    std::vector<Row> rows;
    const std::vector<int64_t> sizes = ctx.full ? std::vector<int64_t>{kGiB, 256 * kMiB, 64 * kMiB}
                                                : std::vector<int64_t>{256 * kMiB, 64 * kMiB};
    for (const auto& a : ctx.gpus) {
      for (const auto& b : ctx.gpus) {
        if (a.index == b.index || (!ctx.full && a.index != 0 && b.index != 0)) continue;
        const nlohmann::ordered_json pair = {{"src", a.index}, {"dst", b.index}};
        if (!ctx.device.peer_access(a.index, b.index)) {
          Row r;
          r.case_name = name();
          r.gpu = a.index;
          r.status = Status::waived;
          r.reason = "no peer access from GPU " + std::to_string(a.index) + " to GPU " +
                     std::to_string(b.index);
          r.params = pair;
          rows.push_back(std::move(r));
          continue;
        }
        auto m = ctx.measure(
            sizes, budget_for(ctx.full, 0.1, 0.5),
            [&](int64_t bytes, Iterations it) {
              return ctx.device.peer_copy(a.index, b.index, bytes, it);
            },
            name() + " " + std::to_string(a.index) + "->" + std::to_string(b.index));
        if (!m.ok()) {
          Row r = failed_row(name(), a.index, m.failure());
          r.params = pair;
          rows.push_back(std::move(r));
          if (m.failure().kind == Failure::Kind::device_lost) return rows;
          continue;
        }
        nlohmann::ordered_json params = pair;
        params["bytes"] = m.value().size;
        params["bytes_counted"] = "bytes copied once (one direction)";
        rows.push_back(
            rate_row(name(), a.index, m.value(), double(m.value().size), "bytes_per_s", params));
      }
    }
    return rows;
  }
};

}  // namespace

void add_p2p_case(std::vector<std::unique_ptr<Case>>& out) {
  out.push_back(std::make_unique<PeerCopy>());
}

}  // namespace gpuplan::probe
