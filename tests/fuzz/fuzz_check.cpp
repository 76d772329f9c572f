// Shared invariant checks of the fuzz targets (see fuzz_check.h).
#include "fuzz_check.h"

#include <nlohmann/json.hpp>

#include "gpuplan/embedded_data.h"
#include "gpuplan/report.h"

namespace gpuplan::fuzz {

const Catalog& catalog() {
  static const Catalog c = [] {
    auto loaded = load_catalog(embedded_data_files());
    FUZZ_CHECK(loaded.ok());
    return loaded.value();
  }();
  return c;
}

void check_error(const Error& e) {
  FUZZ_CHECK(!e.message.empty());
  FUZZ_CHECK(std::string(errc_name(e.code)).size() > 0);
}

void check_estimate(const Estimate& e, const Setup& s) {
  for (double v : {e.memory.weights, e.memory.gradients, e.memory.optimizer, e.memory.activations,
                   e.memory.kv_cache, e.memory.workspace, e.memory.context, e.memory.fragmentation,
                   e.memory.total()}) {
    FUZZ_CHECK(finite_nonneg(v));
  }
  const FlopCounts& f = e.flops;
  for (double v : {f.forward_per_sample, f.forward_matmul_per_sample,
                   f.forward_attention_per_sample, f.forward_per_step, f.backward_per_step,
                   f.recompute_per_step, f.train_per_step, f.params_rule_per_token,
                   f.tokens_per_sample, f.prefill, f.decode_per_token, f.decode_bytes_per_token}) {
    FUZZ_CHECK(finite_nonneg(v));
  }
  FUZZ_CHECK(e.params.total >= 0 && e.params.trainable >= 0 && e.params.embedding >= 0);
  FUZZ_CHECK(e.params.active_per_token >= 0 && e.params.active_per_token <= e.params.total);
  FUZZ_CHECK(e.micro_batch >= 1 && e.grad_accum_steps >= 1);
  FUZZ_CHECK(e.global_batch == e.micro_batch * s.dp * e.grad_accum_steps);
  FUZZ_CHECK(e.num_gpus == static_cast<int64_t>(s.dp) * s.tp * s.pp);
}

void check_step_time(const StepTime& t) {
  for (double v : {t.forward_s, t.backward_s, t.recompute_s, t.optimizer_s, t.tp_comm_s,
                   t.dp_comm_s, t.dp_comm_exposed_s, t.pp_bubble_s, t.samples_per_s, t.tokens_per_s,
                   t.mfu, t.peak_flop_per_s, t.prefill_s, t.decode_token_s,
                   t.input_needed_samples_per_s, t.input_capacity_samples_per_s}) {
    FUZZ_CHECK(finite_nonneg(v));
  }
  FUZZ_CHECK(std::isfinite(t.step_s) && t.step_s > 0);
}

void check_run_cost(const RunCost& c, double usd_per_hour) {
  for (double v : {c.steps, c.hours, c.expected_hours, c.usd_per_hour, c.usd_total})
    FUZZ_CHECK(finite_nonneg(v));
  FUZZ_CHECK(c.expected_hours >= c.hours);
  // cost = time x price
  FUZZ_CHECK(std::fabs(c.usd_total - c.expected_hours * usd_per_hour) <= 1e-9 * (1 + c.usd_total));
}

bool json_writable(const std::vector<std::string>& strings) {
  try {
    (void)nlohmann::json(strings).dump();
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

void exercise(const Model& model, const Setup& s, const Gpu* gpu, int gpus) {
  auto e = estimate(model, s);
  if (!e.ok()) {
    check_error(e.error());
    return;
  }
  check_estimate(e.value(), s);
  Request r;
  r.model = model.id;
  r.setup = s;
  const auto j = nlohmann::json::parse(estimate_to_json(model, r, e.value(), -1), nullptr, false);
  FUZZ_CHECK(!j.is_discarded());
  (void)estimate_to_text(model, e.value());
  if (!gpu) return;
  auto work = build_work_profile(model, s, e.value());
  if (!work.ok()) return check_error(work.error());
  auto cluster = single_node_cluster(*gpu, gpus);
  if (!cluster.ok()) return check_error(cluster.error());
  auto t = estimate_step_time(model, s, e.value(), work.value(), cluster.value(),
                              catalog().efficiencies, catalog().input);
  if (!t.ok()) return check_error(t.error());
  check_step_time(t.value());
  RunLength run;
  run.tokens = 1e9;
  auto c = run_cost(e.value(), t.value(), run, 12.5, Pricing::on_demand, {});
  if (!c.ok()) return check_error(c.error());
  check_run_cost(c.value(), 12.5);
}

}  // namespace gpuplan::fuzz
