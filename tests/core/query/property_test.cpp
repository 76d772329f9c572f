// Properties that hold for every configuration the planner visits, checked over a few thousand
// random ones drawn from the same space (zoo model x catalog instance x nodes x tensor/pipeline/
// data parallelism x ZeRO stage x micro-batch x checkpointing x precision x optimizer x shape):
//   memory grows with batch and with sequence length (or resolution);
//   more data-parallel GPUs never raise per-GPU weights under ZeRO-3;
//   cost = time x price;
//   no NaN and no negative value in estimates, step times and costs.
// The generator is a fixed-seed splitmix64, so a failure names a configuration that reproduces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gpuplan/plan.h"
#include "gpuplan/timing.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// splitmix64 (Steele, Lea & Flood 2014): the same sequence on every platform and library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
  // 1, 2, 4, ... up to max (at least 1).
  int64_t power_of_two(int64_t max) {
    int64_t n = 0;
    while ((int64_t{2} << n) <= max) ++n;
    return int64_t{1} << below(static_cast<size_t>(n + 1));
  }

 private:
  uint64_t state_;
};

bool finite_nonneg(double x) {
  return std::isfinite(x) && x >= 0;
}

std::string describe(const Model& m, const Instance& in, int nodes, const Setup& s) {
  std::ostringstream o;
  o << m.id << " on " << nodes << "x " << in.id << ": dp=" << s.dp << " tp=" << s.tp
    << " pp=" << s.pp << " zero=" << s.zero_stage << " micro=" << s.micro_batch
    << " batch=" << s.global_batch << " seq=" << s.seq_len << " res=" << s.resolution
    << " precision=" << precision_name(s.precision) << " optimizer=" << optimizer_name(s.optimizer)
    << " ckpt=" << checkpointing_name(s.checkpointing);
  return o.str();
}

void expect_sane(const Estimate& e, const std::string& where) {
  const MemoryBytes& m = e.memory;
  for (double v : {m.weights, m.gradients, m.optimizer, m.activations, m.kv_cache, m.workspace,
                   m.context, m.fragmentation, m.total()}) {
    ASSERT_TRUE(finite_nonneg(v)) << where;
  }
  const FlopCounts& f = e.flops;
  for (double v :
       {f.forward_per_sample, f.forward_per_step, f.backward_per_step, f.recompute_per_step,
        f.train_per_step, f.prefill, f.decode_per_token, f.decode_bytes_per_token}) {
    ASSERT_TRUE(finite_nonneg(v)) << where;
  }
  ASSERT_GE(e.params.total, 0) << where;
  ASSERT_GE(e.params.trainable, 0) << where;
}

void expect_sane(const StepTime& t, const std::string& where) {
  for (double v : {t.forward_s, t.backward_s, t.recompute_s, t.optimizer_s, t.tp_comm_s,
                   t.dp_comm_s, t.dp_comm_exposed_s, t.pp_bubble_s, t.samples_per_s, t.tokens_per_s,
                   t.mfu, t.peak_flop_per_s}) {
    ASSERT_TRUE(finite_nonneg(v)) << where;
  }
  ASSERT_TRUE(std::isfinite(t.step_s) && t.step_s > 0) << where;
}

void expect_cost_is_time_times_price(const RunCost& c, double usd_per_hour, double step_s,
                                     const std::string& where) {
  for (double v : {c.steps, c.hours, c.expected_hours, c.usd_per_hour, c.usd_total}) {
    ASSERT_TRUE(finite_nonneg(v)) << where;
  }
  EXPECT_NEAR(c.hours, c.steps * step_s / 3600.0, 1e-9 * c.hours) << where;
  EXPECT_GE(c.expected_hours, c.hours) << where;
  EXPECT_DOUBLE_EQ(c.usd_per_hour, usd_per_hour) << where;
  EXPECT_NEAR(c.usd_total, c.expected_hours * usd_per_hour, 1e-9 * c.usd_total) << where;
}

// One random configuration of the planner's search space, or nothing when the draw has no
// valid layout (e.g. no tensor-parallel degree divides the heads).
struct Config {
  const Model* model;
  const Instance* instance;
  const Gpu* gpu;
  int nodes;
  Setup setup;
};

std::optional<Config> draw(Rng& rng) {
  const Catalog& cat = test::catalog();
  Config c;
  c.model = &cat.models[rng.below(cat.models.size())];
  c.instance = &cat.instances[rng.below(cat.instances.size())];
  c.gpu = cat.find_gpu(c.instance->gpu);
  if (!c.gpu) return std::nullopt;
  c.nodes = c.instance->network_bytes_per_s > 0 ? static_cast<int>(rng.power_of_two(4)) : 1;
  const bool transformer = c.model->kind == ModelKind::transformer;
  const TransformerSpec& t = c.model->transformer;
  const int n = c.instance->gpu_count * c.nodes;
  Setup& s = c.setup;
  s.tp = transformer ? static_cast<int>(rng.power_of_two(c.instance->gpu_count)) : 1;
  if (transformer && (t.heads % s.tp != 0 || t.kv_heads_or_default() % s.tp != 0))
    return std::nullopt;
  const int64_t layers = transformer ? t.layers + t.decoder_layers : 1;
  s.pp = transformer ? static_cast<int>(rng.power_of_two(std::min<int64_t>(n / s.tp, layers))) : 1;
  if (n % (s.tp * s.pp) != 0) return std::nullopt;
  s.dp = n / (s.tp * s.pp);
  s.zero_stage = s.dp > 1 ? static_cast<int>(rng.below(4)) : 0;
  s.micro_batch = rng.power_of_two(16);
  s.global_batch = s.micro_batch * s.dp * rng.power_of_two(4);
  s.checkpointing = transformer
                        ? rng.pick(std::vector<Checkpointing>{
                              Checkpointing::none, Checkpointing::selective, Checkpointing::full})
                        : Checkpointing::none;
  s.precision = rng.pick(std::vector<Precision>{Precision::fp32, Precision::tf32, Precision::fp16,
                                                Precision::bf16, Precision::amp_fp16,
                                                Precision::amp_bf16, Precision::fp8});
  if (!dense_peak_flop_per_s(*c.gpu, s.precision).ok()) s.precision = Precision::fp32;
  s.optimizer = rng.pick(std::vector<Optimizer>{Optimizer::sgd, Optimizer::sgd_momentum,
                                                Optimizer::adam, Optimizer::adamw,
                                                Optimizer::adam_8bit, Optimizer::adafactor});
  s.sequence_parallel = s.tp > 1 && rng.below(2) == 1;
  if (transformer && !t.is_vision()) {
    const int64_t max_seq = t.positions == PositionKind::learned ? t.max_positions : 32768;
    s.seq_len = 64 * rng.power_of_two(std::max<int64_t>(max_seq / 64, 1));
  } else if (transformer) {
    s.resolution =
        t.patch_size * (t.image_size / t.patch_size) * static_cast<int64_t>(1 + rng.below(2));
  } else {
    s.resolution = c.model->default_resolution * static_cast<int64_t>(1 + rng.below(2));
  }
  return c;
}

TEST(Properties, HoldForRandomPlannerConfigurations) {
  Rng rng(20240611);
  const Catalog& cat = test::catalog();
  int checked = 0, timed = 0, zero3 = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::optional<Config> drawn = draw(rng);
    if (!drawn) continue;
    const Config& c = *drawn;
    const gpuplan::Setup& s = c.setup;
    const std::string where = describe(*c.model, *c.instance, c.nodes, s);
    auto e = estimate(*c.model, s);
    if (!e.ok()) {
      // The planner skips these; the message must still say what is wrong.
      EXPECT_FALSE(e.error().message.empty()) << where;
      continue;
    }
    ++checked;
    expect_sane(e.value(), where);
    if (HasFatalFailure()) return;

    // Twice the batch (same number of micro-batches): no less memory, more activations.
    gpuplan::Setup bigger = s;
    bigger.micro_batch *= 2;
    bigger.global_batch *= 2;
    if (auto e2 = estimate(*c.model, bigger); e2.ok()) {
      EXPECT_GE(e2.value().memory.total(), e.value().memory.total()) << where;
      EXPECT_GE(e2.value().memory.activations, e.value().memory.activations) << where;
    }
    // Twice the sequence (or image side): no less memory.
    gpuplan::Setup longer = s;
    if (s.seq_len > 0)
      longer.seq_len *= 2;
    else
      longer.resolution *= 2;
    if (auto e2 = estimate(*c.model, longer); e2.ok()) {
      EXPECT_GE(e2.value().memory.total(), e.value().memory.total()) << where << " (x2 sequence)";
    }
    // ZeRO-3: twice the data-parallel replicas, same micro-batch, never more weights per GPU.
    if (s.dp > 1) {
      gpuplan::Setup z = s;
      z.zero_stage = 3;
      gpuplan::Setup wider = z;
      wider.dp *= 2;
      wider.global_batch *= 2;
      auto narrow = estimate(*c.model, z);
      auto wide = estimate(*c.model, wider);
      if (narrow.ok() && wide.ok()) {
        ++zero3;
        EXPECT_LE(wide.value().memory.weights, narrow.value().memory.weights)
            << where << " (ZeRO-3, dp x2)";
        EXPECT_LE(wide.value().memory.optimizer, narrow.value().memory.optimizer)
            << where << " (ZeRO-3, dp x2)";
      }
    }

    // Step time on the drawn cluster, and the cost of a run at the instance's price.
    auto work = build_work_profile(*c.model, s, e.value());
    ASSERT_TRUE(work.ok()) << where << ": " << work.error().message;
    auto cluster = instance_cluster(*c.instance, *c.gpu, c.nodes);
    if (!cluster.ok()) continue;
    auto t = estimate_step_time(*c.model, s, e.value(), work.value(), cluster.value(),
                                cat.efficiencies, cat.input);
    if (!t.ok()) {
      EXPECT_FALSE(t.error().message.empty()) << where;
      continue;
    }
    ++timed;
    expect_sane(t.value(), where);
    for (Pricing pricing : {Pricing::on_demand, Pricing::spot}) {
      auto price = quote_price(*c.instance, pricing, cat.pricing, "");
      if (!price.ok()) continue;
      const double usd_per_hour = price.value().usd_per_hour * c.nodes;
      RunLength run;
      run.tokens = 1e10;
      const SpotAssumptions spot{0.05, 1.0, 0.1};
      auto cost = run_cost(e.value(), t.value(), run, usd_per_hour, pricing, spot);
      ASSERT_TRUE(cost.ok()) << where << ": " << cost.error().message;
      expect_cost_is_time_times_price(cost.value(), usd_per_hour, t.value().step_s, where);
    }
    if (HasFatalFailure()) return;
  }
  // The draw must reach the interesting parts of the space, not just error paths.
  EXPECT_GT(checked, 1000);
  EXPECT_GT(timed, 500);
  EXPECT_GT(zero3, 100);
}

TEST(Properties, EveryPlanThePlannerReturnsIsSaneAndPricedAsTimeTimesPrice) {
  Rng rng(7);
  const Catalog& cat = test::catalog();
  for (const char* id : {"gpt2-medium", "llama-2-7b", "resnet50", "vit-b-16"}) {
    PlanQuery q;
    q.request.model = id;
    q.request.setup.precision =
        rng.pick(std::vector<Precision>{Precision::amp_bf16, Precision::amp_fp16, Precision::bf16});
    q.request.setup.global_batch = 64 * rng.power_of_two(8);
    q.run.tokens = 1e9;
    q.run.epochs = 0;
    q.max_nodes = 2;
    q.top_k = 1000;
    q.efficiencies = cat.efficiencies;
    auto r = plan(cat, test::model(id), q);
    ASSERT_TRUE(r.ok()) << id << ": " << r.error().message;
    EXPECT_GE(r.value().candidates, r.value().fitting);
    EXPECT_GE(r.value().fitting, r.value().within_limits);
    for (const auto* list : {&r.value().plans, &r.value().pareto}) {
      for (const Plan& p : *list) {
        const std::string where =
            std::string(id) + " on " + std::to_string(p.nodes) + "x " + p.instance;
        EXPECT_LE(p.memory.total(), p.gpu_memory_bytes) << where;
        expect_sane(p.time, where);
        expect_cost_is_time_times_price(p.cost, p.price.usd_per_hour * p.nodes, p.time.step_s,
                                        where);
        EXPECT_EQ(p.gpus, p.setup.dp * p.setup.tp * p.setup.pp) << where;
      }
    }
  }
}

}  // namespace
}  // namespace gpuplan
