#include "gpuplan/evaluate.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "gpuplan/calibration.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/report.h"
#include "gpuplan/serve_generation.h"
#include "gpuplan/serve_validation.h"

namespace gpuplan {
namespace {

// The custom models stay out of resolve_model (noinline): the page compiles a WebAssembly
// function when it is first called, and a zoo model, the usual first call, needs neither.
[[gnu::noinline]] Result<Model> custom_transformer(const CustomModel& c) {
  Model m;
  m.id = "custom";
  m.name = c.name.empty() ? "Custom transformer" : c.name;
  m.task = "causal-lm";
  m.kind = ModelKind::transformer;
  m.transformer = c.transformer;
  // The editor has no sequence-length default of its own: the context, up to 2048 tokens.
  m.default_seq_len =
      m.transformer.max_positions > 0 ? std::min<int64_t>(m.transformer.max_positions, 2048) : 2048;
  if (auto err = validate_transformer(m.transformer, "custom transformer")) return *err;
  return m;
}

// A CNN from a family builder goes through the same loader as a zoo file.
[[gnu::noinline]] Result<Model> custom_cnn(const CustomModel& c) {
  nlohmann::json spec = {{"builder", c.cnn_builder}, {"num_classes", c.cnn_classes}};
  if (c.cnn_builder == "resnet" || c.cnn_builder == "vgg") spec["depth"] = c.cnn_depth;
  if (c.cnn_builder == "mobilenet_v2") spec["width_mult"] = c.cnn_width;
  if (c.cnn_builder == "yolov5") {
    spec["width_multiple"] = c.cnn_width;
    spec["depth_multiple"] = c.cnn_depth_multiple;
  }
  nlohmann::json doc = {{"schema_version", kCatalogSchemaVersion},
                        {"id", "custom"},
                        {"name", "Custom " + c.cnn_builder},
                        {"kind", "graph"},
                        {"task", "image-classification"},
                        {"source", {{"title", "described by the user"}, {"url", ""}, {"date", ""}}},
                        {"defaults", {{"resolution", c.cnn_builder == "yolov5" ? 640 : 224}}},
                        {"graph", spec}};
  return parse_model_json(doc.dump(), "custom CNN");
}

// The hardware a query names: an instance (its GPU), or a GPU.
struct Hardware {
  const Gpu* gpu = nullptr;
  const Instance* instance = nullptr;
};

Result<Hardware> find_hardware(const Catalog& catalog, const Query& q) {
  Hardware h;
  if (!q.instance.empty()) {
    h.instance = catalog.find_instance(q.instance);
    if (!h.instance) return unknown_instance_error(q.instance);
    h.gpu = catalog.find_gpu(h.instance->gpu);
    if (!q.gpu.empty() && catalog.find_gpu(q.gpu) != h.gpu) {
      return make_error(Errc::invalid_argument, Msg::eval_gpu_not_instance_gpu,
                        {q.gpu, q.instance, h.instance->gpu});
    }
    if (q.gpus != 0) return make_error(Errc::invalid_argument, Msg::eval_instance_gpu_count, {});
    return h;
  }
  if (q.gpu.empty()) {
    if (q.gpus != 0 || q.nodes != 0)
      return make_error(Errc::invalid_argument, Msg::eval_count_needs_hardware, {});
    return h;
  }
  h.gpu = catalog.find_gpu(q.gpu);
  if (!h.gpu) return unknown_gpu_error(catalog, q.gpu);
  if (q.nodes > 1) return make_error(Errc::invalid_argument, Msg::eval_nodes_need_instance, {});
  return h;
}

// Data parallelism fills the GPUs left by tensor, pipeline and context parallelism unless --dp
// is given.
std::optional<Error> resolve_parallelism(Query& q, int gpus) {
  Setup& s = q.request.setup;
  // int64: --tp, --pp and --cp may each be up to 10^6 (estimate() then refuses the setup).
  const int64_t per_replica = static_cast<int64_t>(s.tp) * s.pp * s.cp;
  if (!q.dp_given) {
    if (gpus % per_replica != 0) {
      return make_error(Errc::invalid_argument, Msg::eval_tp_pp_not_divide,
                        {std::to_string(per_replica), std::to_string(gpus)});
    }
    s.dp = static_cast<int>(gpus / per_replica);
  } else if (s.dp * per_replica != gpus) {
    return make_error(Errc::invalid_argument, Msg::eval_dp_tp_pp_not_equal,
                      {std::to_string(s.dp * per_replica), std::to_string(gpus)});
  }
  return std::nullopt;
}

// What frees the largest memory term; at inference, what an inference can change (no optimizer,
// no checkpointing, no ZeRO).
const char* advice_for(const std::string& key, Mode mode) {
  if (mode == Mode::infer && key == "weights")
    return "use tensor or pipeline parallelism, or narrower weights (an FP8 or 4-bit checkpoint).";
  if (mode == Mode::infer && key == "activations")
    return "lower the batch or sequence length, or add tensor parallelism.";
  if (key == "activations") {
    return "turn on activation checkpointing, lower the micro-batch or sequence length, or add "
           "tensor parallelism.";
  }
  if (key == "optimizer")
    return "use ZeRO stage 1-3 across data-parallel GPUs, an 8-bit optimizer or Adafactor, or "
           "LoRA.";
  if (key == "gradients") return "use ZeRO stage 2-3 or LoRA.";
  if (key == "weights")
    return "use ZeRO-3/FSDP, tensor or pipeline parallelism, 16-bit weights, or QLoRA.";
  if (key == "kv_cache") return "shorten the context, lower the batch, or add tensor parallelism.";
  return "lower the micro-batch.";
}

// Step time, price and cost with one set of efficiencies (spec or calibrated).
struct Timed {
  std::optional<StepTime> time;
  std::optional<RunCost> cost;
};

struct Chain {
  const Catalog& catalog;
  const Evaluation& ev;
  const WorkProfile& work;
  const Cluster& cluster;
  double usd_per_hour_total;
};

// Inference with --generate on a decoder-only language model: prefill and decode as gpuplan serve
// times them (serve_generation.h), in place of the roofline's; otherwise the roofline's stand,
// with a note saying why.
std::optional<Error> time_generation_of(const Chain& c, const Efficiencies& eff, StepTime& st) {
  const Query& q = c.ev.query;
  const Setup& s = q.request.setup;
  if (!generates_tokens(s)) return std::nullopt;
  if (auto why = generation_not_served(c.ev.model, s)) {
    st.notes.push_back(*why);
    return std::nullopt;
  }
  if (!q.serving) return make_error(Errc::invalid_argument, Msg::time_no_serving_profiles, {});
  // A serving replica keeps tensor (and expert) parallelism inside one NVLink domain.
  if (s.tp > c.cluster.domain_gpus()) {
    return make_error(Errc::invalid_argument, Msg::time_generation_tp_domain,
                      {std::to_string(s.tp), std::to_string(c.cluster.domain_gpus())});
  }
  return time_generation(c.ev.model, s, c.ev.estimate, *c.cluster.gpu, q.runtime, *q.serving, eff,
                         st);
}

Result<Timed> time_and_cost(const Chain& c, const Efficiencies& eff) {
  const Query& q = c.ev.query;
  auto t = estimate_step_time(c.ev.model, q.request.setup, c.ev.estimate, c.work, c.cluster, eff,
                              c.catalog.input);
  if (!t.ok()) return t.error();
  Timed out;
  out.time = t.value();
  if (auto err = time_generation_of(c, eff, *out.time)) return *err;
  if (!q.run.empty()) {
    auto cost = run_cost(c.ev.estimate, *out.time, q.run, c.usd_per_hour_total, q.pricing, q.spot,
                         q.commitment);
    if (!cost.ok()) return cost.error();
    out.cost = cost.value();
  }
  return out;
}

void calibrate_into(const Chain& c, const ProbeCalibration& probe, Evaluation& ev) {
  const Calibrated cal =
      calibrate(c.catalog.efficiencies, probe.summary, *ev.gpu, ev.query.request.setup.precision);
  ev.calibration_notes = cal.notes;
  ev.probe_gpu_matches = cal.gpu_matches;
  if (!cal.gpu_matches) return;
  if (probe.simulated) ev.calibration_notes.push_back("the probe file is SIMULATED (not measured)");
  if (probe.unsigned_file) ev.calibration_notes.push_back("the probe file is unsigned");
  auto timed = time_and_cost(c, cal.efficiencies);
  if (!timed.ok()) {
    ev.calibration_notes.push_back("calibrated time: " + timed.error().message);
    return;
  }
  ev.time_calibrated = timed.value().time;
  ev.time_calibrated->notes.insert(ev.time_calibrated->notes.begin(), cal.notes.begin(),
                                   cal.notes.end());
  ev.cost_calibrated = timed.value().cost;
}

// Time, price, cost and calibration on the query's hardware; a failure is kept in the
// evaluation (the estimate stands).
std::optional<Error> time_on_hardware(const Catalog& catalog, Evaluation& ev) {
  const Query& q = ev.query;
  auto work = build_work_profile(ev.model, q.request.setup, ev.estimate);
  if (!work.ok()) return work.error();
  auto cluster = ev.instance ? instance_cluster(*ev.instance, *ev.gpu, q.nodes)
                             : single_node_cluster(*ev.gpu, ev.gpus);
  if (!cluster.ok()) return cluster.error();
  double usd_per_hour_total = 0;  // no instance: time to train without a price
  if (ev.instance) {
    auto price = quote_price(*ev.instance, q.pricing, catalog.pricing, q.region);
    if (price.ok()) {
      ev.price = price.value();
      usd_per_hour_total = ev.price->usd_per_hour * q.nodes;
    } else if (price.error().id == Msg::price_none) {
      ev.price_error = price.error();  // nothing to pick instead: timed, not costed
    } else {
      return price.error();  // the region or the pricing asked for: the user can change it
    }
  }
  const Chain chain{catalog, ev, work.value(), cluster.value(), usd_per_hour_total};
  auto timed = time_and_cost(chain, catalog.efficiencies);
  if (!timed.ok()) return timed.error();
  ev.time = timed.value().time;
  ev.cost = timed.value().cost;
  if (q.probe) calibrate_into(chain, *q.probe, ev);
  return std::nullopt;
}

// The published runs of the evaluated setup, and the query's measured run beside the step time.
void measured_beside(const Catalog& catalog, Evaluation& ev) {
  const StepTime* time = ev.time ? &*ev.time : nullptr;
  const PublishedQuery pq = published_query(ev.model, *ev.gpu, ev.query.request.setup, ev.estimate);
  for (const auto& run : match_published(catalog.published, pq))
    ev.published.push_back(compare_run(run, ev.model, ev.estimate, time));
  if (!ev.query.measured || !time) return;
  const MeasuredInput& m = *ev.query.measured;
  ev.measured_run = compare_measured(m.run, *time, *ev.gpu, ev.estimate.global_batch, ev.gpus);
  if (m.unsigned_file) ev.measured_run->notes.push_back("the file is unsigned");
}

}  // namespace

std::vector<MemoryTerm> memory_terms(const MemoryBytes& m) {
  return {{"weights", "weights", m.weights},
          {"gradients", "gradients", m.gradients},
          {"optimizer", "optimizer states", m.optimizer},
          {"activations", "activations", m.activations},
          {"kv_cache", "KV cache", m.kv_cache},
          {"workspace", "workspace", m.workspace},
          {"context", "CUDA context", m.context},
          {"fragmentation", "allocator fragmentation", m.fragmentation}};
}

FitReport fit_report(const MemoryBytes& m, const Gpu& gpu, Fit verdict, Mode mode) {
  FitReport f;
  f.needed_bytes = m.total();
  f.gpu_memory_bytes = gpu.memory_bytes;
  f.fits = f.needed_bytes <= f.gpu_memory_bytes;
  // The CUDA context and allocator rounding are not something a user can change: advise on the
  // largest of the other terms.
  auto terms = memory_terms(m);
  terms.resize(6);
  const auto largest = std::max_element(
      terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  f.largest_term = largest->label;
  f.largest_term_bytes = largest->bytes;
  if (!f.fits) {
    const std::string headline = verdict == Fit::tight
                                     ? "Tight, may not fit (over the capacity, within the "
                                       "measured memory error): needs "
                                     : "Does not fit: needs ";
    f.advice = headline + format_bytes(f.needed_bytes) + " per GPU, " + gpu.name + " has " +
               format_bytes(f.gpu_memory_bytes) + ". The largest term is " + f.largest_term + " (" +
               format_bytes(f.largest_term_bytes) + "): " + advice_for(largest->key, mode);
  }
  return f;
}

Result<Model> resolve_model(const Catalog& catalog, const Query& q) {
  if (!q.hf_config_name.empty() || !q.hf_config_text.empty()) {
    if (!q.request.model.empty())
      return make_error(Errc::invalid_argument, Msg::eval_model_and_config, {});
    return model_from_hf_config(q.hf_config_text, q.hf_config_name);
  }
  if (q.custom.kind == CustomModel::Kind::transformer) return custom_transformer(q.custom);
  if (q.custom.kind == CustomModel::Kind::cnn) return custom_cnn(q.custom);
  if (q.request.model.empty())
    return make_error(Errc::invalid_argument, Msg::eval_model_required, {});
  const auto match = resolve_model(catalog, q.request.model);
  if (!match) return unknown_model_error(catalog, q.request.model);
  return named_checkpoint(*match);
}

namespace {

// The global batch when the query gives neither --batch nor --micro-batch: one sample per
// data-parallel replica; for the planner, which chooses the parallelism, a fixed batch
// (kPlannerDefaultBatch), or the micro-batch when only that is given.
void resolve_batch(Setup& s, DefaultsFor purpose) {
  if (s.global_batch != 0) return;
  if (purpose == DefaultsFor::plan) {
    s.global_batch = s.micro_batch > 0 ? s.micro_batch : kPlannerDefaultBatch;
  } else {
    s.global_batch = (s.micro_batch > 0 ? s.micro_batch : 1) * s.dp;
  }
}

// Spot interruptions: a published bucket's rate, else data/assumptions.json's; the restart time
// likewise.
std::optional<Error> resolve_spot(const Catalog& catalog, Query& q) {
  if (q.spot.restart_h == 0) q.spot.restart_h = catalog.restart_s / 3600.0;
  if (!q.spot_bucket.empty()) {
    if (q.spot.interruptions_per_hour > 0) {
      return about_key(make_error(Errc::invalid_argument, Msg::eval_spot_both, {}),
                       "spot-interruption-bucket");
    }
    auto rate = interruptions_per_hour_from_bucket(catalog.pricing, q.spot_bucket);
    if (!rate.ok()) {
      return about_key(make_error(rate.error().code, Msg::eval_spot_bucket, rate.error().args),
                       "spot-interruption-bucket");
    }
    q.spot.interruptions_per_hour = rate.value();
  }
  if (q.spot.interruptions_per_hour == 0 && catalog.pricing.spot_interruptions_per_hour) {
    q.spot.interruptions_per_hour = *catalog.pricing.spot_interruptions_per_hour;
  }
  return std::nullopt;
}

}  // namespace

Result<Query> resolve_defaults(const Catalog& catalog, const Model& model, Query q,
                               DefaultsFor purpose) {
  auto hw = find_hardware(catalog, q);
  if (!hw.ok()) return hw.error();
  if (hw.value().gpu) {
    if (q.nodes == 0) q.nodes = 1;
    if (hw.value().instance) q.gpus = hw.value().instance->gpu_count * q.nodes;
    if (q.gpus == 0) q.gpus = 1;
    if (auto err = resolve_parallelism(q, q.gpus)) return *err;
  }
  resolve_batch(q.request.setup, purpose);
  if (q.run.epochs > 0 && q.run.dataset_size == 0)
    q.run.dataset_size = static_cast<double>(model.dataset_size);
  if (auto err = resolve_spot(catalog, q)) return *err;
  if (q.max_nodes == 0) q.max_nodes = kDefaultMaxNodes;
  if (q.top_k == 0) q.top_k = kDefaultTopK;
  return q;
}

namespace {

// Whether the evaluation's time is a generation timed by the serving model (time_generation_of).
bool generation_served(const Evaluation& ev) {
  const Setup& s = ev.query.request.setup;
  return generates_tokens(s) && ev.query.serving && !generation_not_served(ev.model, s);
}

// A generation timed by the serving model takes the serving runs' band (output tokens/s, whose
// errors are on rates, as the step time's are) on the serving ground: weight format, GPUs per
// replica, GPU and runtime. The memory verdict keeps the estimate's own band.
void serving_time_band(const Catalog& catalog, Evaluation& ev) {
  const Setup& s = ev.query.request.setup;
  const int per_replica = s.tp * s.pp;
  ev.family = serving_band_family(kServingThroughputGroup, false);
  const WeightFormat weights = *inference_weight_format(ev.model.checkpoint_weights, s.precision);
  ev.ground = serving_run_ground(&ev.model, weight_format_name(weights), per_replica, ev.gpu,
                                 per_replica, ev.query.runtime);
  ev.time_band = error_band(catalog.accuracy.serving, ev.family, ev.ground);
}

Result<Evaluation> evaluate_setup(const Catalog& catalog, const Query& query) {
  auto model = resolve_model(catalog, query);
  if (!model.ok()) return model.error();
  auto hw = find_hardware(catalog, query);
  if (!hw.ok()) return hw.error();
  auto resolved = resolve_defaults(catalog, model.value(), query);
  if (!resolved.ok()) return resolved.error();
  Evaluation ev;
  ev.query = std::move(resolved).value();
  ev.model = std::move(model).value();
  if (ev.query.request.model.empty() || !ev.query.hf_config_name.empty() ||
      ev.query.custom.kind != CustomModel::Kind::none) {
    ev.query.request.model = ev.model.id;
  }
  auto e = estimate(ev.model, ev.query.request.setup);
  if (!e.ok()) return e.error();
  ev.estimate = std::move(e).value();
  ev.gpu = hw.value().gpu;
  ev.instance = hw.value().instance;
  ev.family = accuracy_family(ev.model, ev.query.request.setup);
  ev.ground = run_ground(ev.model, ev.query.request.setup, ev.gpu, ev.query.gpus);
  ev.time_band = error_band(catalog.accuracy.time, ev.family, ev.ground);
  if (!ev.gpu) return ev;
  ev.gpus = ev.query.gpus;
  ev.verdict = fit_verdict(ev.estimate.memory.total(), ev.gpu->memory_bytes,
                           error_band(catalog.accuracy.memory, ev.family, ev.ground));
  ev.fit = fit_report(ev.estimate.memory, *ev.gpu, ev.verdict.fit, ev.query.request.setup.mode);
  ev.hardware_error = time_on_hardware(catalog, ev);
  if (ev.time && generation_served(ev)) serving_time_band(catalog, ev);
  measured_beside(catalog, ev);
  return ev;
}

// Micro-batch "auto": the largest micro-batch (a divisor of the batch per replica) whose estimate
// fits the GPU. 0 when the micro-batch was given, the whole batch fits, or nothing does.
int64_t largest_fitting_micro_batch(const Evaluation& ev) {
  const Setup& setup = ev.query.request.setup;
  if (setup.micro_batch != 0 || ev.fit.fits || !ev.gpu) return 0;
  const int64_t per_replica = ev.estimate.global_batch / std::max(1, setup.dp);
  for (int64_t micro = per_replica - 1; micro >= 1; --micro) {
    if (per_replica % micro != 0) continue;
    Setup trial = setup;
    trial.global_batch = ev.estimate.global_batch;
    trial.micro_batch = micro;
    auto t = estimate(ev.model, trial);
    if (t.ok() && t.value().memory.total() <= ev.gpu->memory_bytes) return micro;
  }
  return 0;
}

}  // namespace

Result<Evaluation> evaluate(const Catalog& catalog, const Query& query) {
  auto ev = evaluate_setup(catalog, query);
  if (!ev.ok()) return ev;
  if (const int64_t micro = largest_fitting_micro_batch(ev.value())) {
    Query fitted = query;
    fitted.request.setup.global_batch = ev.value().estimate.global_batch;
    fitted.request.setup.micro_batch = micro;
    auto again = evaluate_setup(catalog, fitted);
    if (again.ok()) return again;
  }
  return ev;
}

PlanQuery plan_query(const Catalog& catalog, const Model& model, const Query& query) {
  PlanQuery p;
  Query q = query;
  q.gpu.clear();  // the planner chooses the hardware
  q.instance.clear();
  q.gpus = q.nodes = 0;
  auto resolved = resolve_defaults(catalog, model, q, DefaultsFor::plan);
  if (resolved.ok()) q = std::move(resolved).value();
  // --plan-gpu narrows the search to that GPU's instances; --gpu is the estimate's, not the plan's.
  if (!query.plan_gpu.empty()) {
    const Gpu* g = catalog.find_gpu(query.plan_gpu);
    p.gpu = g ? g->id : query.plan_gpu;
  }
  p.request = q.request;
  p.run = q.run;
  p.pricing = q.pricing;
  p.objective = q.objective;
  p.deadline_hours = q.deadline_hours;
  p.budget_usd = q.budget_usd;
  p.provider = q.provider;
  p.region = q.region;
  p.compliance = q.compliance;
  p.min_gpu_memory_bytes = q.min_gpu_memory_gb * 1e9;
  p.max_nodes = q.max_nodes;
  p.max_nodes_auto = query.max_nodes == 0;
  p.top_k = q.top_k;
  p.efficiencies = catalog.efficiencies;
  p.input = catalog.input;
  p.spot = q.spot;
  return p;
}

}  // namespace gpuplan
