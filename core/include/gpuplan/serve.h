#pragma once
// Serving a transformer: one replica's capacity (memory left for the KV cache, concurrent
// sequences), its step time as a function of what the running batch holds, a seeded
// discrete-event simulation of continuous batching with chunked prefill (TTFT/TPOT
// percentiles at a request rate), the highest rate that meets a latency target, and a fleet
// sized for a 24-hour load curve with its cost. Pure functions: no I/O, no globals.
//
// Constants that are properties of a serving runtime (memory fractions, batch limits, kernel
// counts, all-reduce latency) come from the "serving" object of data/assumptions.json, each
// with its source; hardware efficiencies come from the same Efficiencies as the training model.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/hardware.h"
#include "gpuplan/model.h"
#include "gpuplan/result.h"
#include "gpuplan/timing.h"

namespace gpuplan {

// How weights are stored: 16-bit, FP8 (W8A8 where the GPU has FP8 tensor cores) or
// weight-only integer formats (dequantised to 16-bit for the matmul).
enum class WeightFormat { bf16, fp16, fp8, int8, int4 };
enum class KvFormat { bf16, fp8 };
enum class Runtime { vllm, trtllm, sglang, hf };
const char* weight_format_name(WeightFormat w);
const char* kv_format_name(KvFormat k);
const char* runtime_name(Runtime r);
std::optional<WeightFormat> parse_weight_format(const std::string& s);
std::optional<KvFormat> parse_kv_format(const std::string& s);
std::optional<Runtime> parse_runtime(const std::string& s);

// What a serving runtime does, from data/assumptions.json "serving" (each value cited there).
struct RuntimeProfile {
  Runtime runtime = Runtime::vllm;
  double memory_fraction = 0.9;  // share of memory the runtime takes for itself
  bool fraction_of_free =
      false;                   // of the memory free after weights (TensorRT-LLM) or of all (vLLM)
  int64_t max_num_seqs = 256;  // running sequences (GPUs under 70 GiB or A100)
  int64_t max_num_seqs_large = 256;       // on GPUs of 70 GiB and more, not A100 (vLLM's rule)
  int64_t max_num_batched_tokens = 2048;  // tokens per step, small GPUs
  int64_t max_num_batched_tokens_large = 2048;  // tokens per step, large GPUs
  bool continuous_batching = true;              // false: static batches (a batch runs to its end)
  bool reserve_full_sequence = false;           // KV for prompt + output reserved at admission
  double kernels_per_layer = 10;                // GPU kernels per block and step (fusion)
  bool cuda_graphs = true;             // false: the host issues each kernel (eager PyTorch)
  double allreduce_latency_s = 10e-6;  // one small tensor-parallel all-reduce
};

// Serving constants and the four runtime profiles.
struct ServingAssumptions {
  int64_t kv_block_tokens = 16;  // paged-attention block
  // Tensor parallelism over PCIe (no NVLink between the group's GPUs): the runtimes' custom
  // all-reduce kernels need NVLink, so NCCL's ring runs through the PCIe switches and the host.
  // Its bus bandwidth as a fraction of the PCIe x16 per-direction rate, for groups of 3-4 and of
  // 5-8 GPUs (two GPUs: the PCIe copy efficiency), and the latency of one small all-reduce.
  double pcie_allreduce_fraction_4 = 1;
  double pcie_allreduce_fraction_8 = 1;
  double pcie_allreduce_latency_s = 0;
  RuntimeProfile vllm, trtllm, sglang, hf;
  const RuntimeProfile& profile(Runtime r) const;
};

// Reads the "serving" object of data/assumptions.json (its text); errors name the field.
Result<ServingAssumptions> parse_serving_assumptions(std::string_view assumptions_json,
                                                     const std::string& where);
// The serving assumptions of the embedded catalog files (data/assumptions.json among `files`).
Result<ServingAssumptions> serving_assumptions(const std::vector<DataFile>& files);

// One replica: a model on `tp` GPUs of one kind.
struct ServeConfig {
  WeightFormat weights = WeightFormat::bf16;
  KvFormat kv = KvFormat::bf16;
  Runtime runtime = Runtime::vllm;
  int tp = 1;                          // tensor-parallel GPUs per replica
  int ep = 1;                          // expert-parallel degree for MoE layers (divides tp)
  int64_t max_num_seqs = 0;            // 0: the runtime's default for this GPU
  int64_t max_num_batched_tokens = 0;  // 0: the runtime's default for this GPU
  double memory_fraction = 0;          // 0: the runtime's default
  double link_busbw_bytes_per_s = 0;   // 0: NVLink if the GPU has it, else PCIe
};

// Memory of one GPU of a replica and what is left for the KV cache, by term.
struct ReplicaMemory {
  double gpu_bytes = 0;     // as the device reports it
  double budget_bytes = 0;  // the runtime's share
  double weight_bytes = 0;
  double activation_bytes = 0;    // peak intermediate tensors of one step at the token budget
  double context_bytes = 0;       // CUDA context and kernels
  double kv_bytes = 0;            // left for the KV cache
  double kv_bytes_per_token = 0;  // this GPU's share of one token's keys and values
  int64_t kv_blocks = 0;
  int64_t kv_tokens = 0;  // kv_blocks x block size
  bool fits = false;
};

// The step-time model of one replica, resolved once.
struct ReplicaModel {
  const Model* model = nullptr;
  const Gpu* gpu = nullptr;
  ServeConfig config;
  RuntimeProfile profile;
  ReplicaMemory memory;
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  int64_t block_tokens = 16;
  // Per GPU and step.
  double dense_weight_bytes = 0;      // read every step (attention, norms, head, router)
  double expert_bytes_per_layer = 0;  // all experts of one MoE layer (0 for dense models)
  double moe_layers = 0;
  double experts = 0, experts_per_token = 0;
  double gemm_flops_per_token =
      0;  // weight matmuls of one token through the blocks (active experts)
  double head_flops_per_token = 0;  // the LM head, for tokens that are sampled
  // The weight matmuls of a block for tile and wave quantisation: output columns on this GPU,
  // share of gemm_flops_per_token, and whether its rows are the tokens routed to one expert.
  struct Gemm {
    double cols = 0;
    double share = 0;
    bool expert = false;
  };
  std::vector<Gemm> gemms;
  double head_cols = 0;                    // vocabulary columns on this GPU
  int sms = 0;                             // the GPU's SM count (0: unknown, no quantisation)
  Efficiencies tiles;                      // the GEMM output tile (gemm_tile_rows x gemm_tile_cols)
  double activation_bytes_per_token = 0;   // matmul inputs/outputs of one token (with the weights)
  double elementwise_bytes_per_token = 0;  // norms, residual adds, activation function
  double attention_flops_per_pair = 0;     // one query against one key, all layers
  double compute_flop_per_s = 0;           // achievable matmul rate at the weights' precision
  double attention_flop_per_s = 0;         // achievable 16-bit rate: attention runs at 16 bits
  double hbm_bytes_per_s = 0;              // achievable
  double layers = 0;
  double hidden = 0;
  double link_busbw_bytes_per_s = 0;
  bool pcie_allreduce = false;     // the TP group's all-reduce runs through PCIe (NCCL)
  double allreduce_latency_s = 0;  // one small all-reduce: the runtime's kernel, or NCCL on PCIe
  double kernel_overhead_s = 0;    // per kernel, GPU side
  double host_overhead_per_kernel_s = 0;
  std::string compute_precision;  // "bf16", "fp8", ...
  std::vector<std::string> notes;
};

// Resolves the replica model; an Error when the setup is invalid (names the field) or the
// model does not fit (says by how much).
Result<ReplicaModel> build_replica(const Model& model, const Gpu& gpu, const ServeConfig& config,
                                   const ServingAssumptions& serving, const Efficiencies& eff);

// Maximum sequences running at once with prompt + output tokens each (KV and runtime limits).
int64_t max_concurrent_sequences(const ReplicaModel& r, double prompt_tokens, double output_tokens);

// What one engine step processes.
struct StepLoad {
  double decode_seqs = 0;     // sequences generating one token
  double decode_context = 0;  // sum of their context lengths (keys read)
  double prefill_tokens = 0;  // prompt tokens processed this step
  double prefill_last = 0;    // prompts whose last chunk is in this step (sampled)
  double prefill_pairs = 0;   // query-key pairs of those prompt tokens (causal)
};
// Step time by term.
struct StepBreakdown {
  double weights_s = 0;      // weight matmuls (roofline of bytes vs FLOPs)
  double elementwise_s = 0;  // norms, residual adds, activation function (memory-bound)
  double attention_s = 0;    // attention (KV reads vs FLOPs)
  double comm_s = 0;         // tensor-parallel all-reduces, expert-parallel all-to-all
  double overhead_s = 0;     // kernel gaps (or host time when it dominates)
  double total_s = 0;
  double experts_touched = 0;  // per MoE layer
};
StepBreakdown step_time(const ReplicaModel& r, const StepLoad& load);

// Expected experts a step touches in one MoE layer: E (1 - (1 - k/E)^tokens).
double experts_touched(double experts, double experts_per_token, double tokens);

// Prefill time of one prompt alone (chunked by the token budget), the zero-load TTFT.
double prefill_time_s(const ReplicaModel& r, double prompt_tokens);

// --- Simulation -------------------------------------------------------------------------------
// Request lengths: fixed, or drawn from a ShareGPT-like distribution with the given means.
enum class LengthDistribution { fixed, sharegpt };
struct ServeWorkload {
  double rate_per_s = 1;        // Poisson arrival rate; <= 0 or infinite: all at time 0 (burst)
  double prompt_tokens = 1000;  // mean
  double output_tokens = 200;   // mean
  LengthDistribution lengths = LengthDistribution::fixed;
  int requests = 2000;  // simulated requests (bounded for speed)
  uint64_t seed = 1;
};
struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};
struct SimulationResult {
  Percentiles ttft_s;
  Percentiles tpot_s;              // per request: (end - first token) / (output - 1)
  double output_tokens_per_s = 0;  // over the whole run
  double requests_per_s = 0;
  double mean_running = 0;  // sequences in the batch, time-averaged
  int64_t max_running = 0;
  bool saturated = false;  // the queue grew through the run (rate above capacity)
  int64_t steps = 0;
};
Result<SimulationResult> simulate(const ReplicaModel& r, const ServeWorkload& w);

// Steady-state output tokens/s of a burst (all requests at once, fixed lengths), in closed form.
double burst_output_tokens_per_s(const ReplicaModel& r, double prompt_tokens, double output_tokens);

// Latency targets (0: none) and the percentile they apply to.
struct Slo {
  double ttft_s = 0;
  double tpot_s = 0;
  double percentile = 90;  // 50, 90 or 99
};
bool meets_slo(const SimulationResult& s, const Slo& slo);
// The highest request rate one replica sustains within the SLO (bisection over simulations).
struct RateSearch {
  double max_rate_per_s = 0;  // 0: not even at a trickle
  SimulationResult at_max;
  SimulationResult at_zero_load;  // one request alone
  std::string limit;              // what binds at the next rate: "ttft", "tpot" or "throughput"
};
Result<RateSearch> max_rate_within_slo(const ReplicaModel& r, const ServeWorkload& w,
                                       const Slo& slo);

// --- Fleet and autoscaling -----------------------------------------------------------------------
// A day's load as 24 hourly rates (requests/s).
using LoadCurve = std::vector<double>;
// Presets scaled so their peak is `peak_rate`: "flat", "business-hours", "diurnal".
Result<LoadCurve> preset_load_curve(const std::string& name, double peak_rate);
// Reads 24 numbers separated by commas, spaces or newlines ('#' comments allowed).
Result<LoadCurve> parse_load_curve(std::string_view text, const std::string& where);
// The load-curve key's value: a preset's name ("" is flat), or the 24 rates written out
// ("4,3,3,...": the page's typed curve; its peak is its own, not `peak_rate`).
Result<LoadCurve> load_curve_from_key(const std::string& value, double peak_rate);
// The 24 rates written out as load_curve_from_key reads them back.
std::string load_curve_key(const LoadCurve& curve);

struct ScalingPolicy {
  double target_utilisation = 0.8;  // of a replica's max rate within the SLO
  int min_replicas = 1;
  double instance_start_s = 0;        // boot to ready (stated by the user)
  double model_load_bytes_per_s = 0;  // weights read from disk or network; 0: not counted
  double headroom = 0.2;              // fixed fleet: peak x (1 + headroom)
};
struct FleetHour {
  double rate_per_s = 0;
  int replicas = 0;
};
struct FleetPlan {
  double replica_rate_per_s = 0;   // one replica's max rate within the SLO x target utilisation
  int fixed_replicas = 0;          // for the peak with headroom
  std::vector<FleetHour> hours;    // autoscaled, 24 entries
  double scale_up_delay_s = 0;     // instance start + model load
  int scale_ups = 0;               // replicas started per day
  double replica_hours_fixed = 0;  // per day
  double replica_hours_autoscaled = 0;  // per day, scale-up lead time included
};
// Replicas per hour for a known daily curve: enough for each hour's rate at the target
// utilisation (never fewer than min_replicas); each replica added is started scale_up_delay_s
// ahead of its hour, and billed for that lead time, so a rising load never finds it missing.
Result<FleetPlan> plan_fleet(const LoadCurve& curve, double replica_max_rate, double model_bytes,
                             const ScalingPolicy& policy);

// Cost of a fleet under one pricing model.
struct FleetCost {
  std::string pricing;  // "on-demand", "reserved", "reserved base + spot bursts"
  double usd_per_day_fixed = 0;
  double usd_per_day_autoscaled = 0;
  double usd_per_month_fixed = 0;  // 730 hours
  double usd_per_month_autoscaled = 0;
  double usd_per_million_output_tokens = 0;  // autoscaled
  std::string note;
};
// Prices per instance-hour; a replica uses gpus_per_replica GPUs of instances with
// gpus_per_instance (several replicas share an instance; a large one spans instances).
struct FleetPrices {
  double on_demand_usd_per_hour = 0;
  std::optional<double> reserved_usd_per_hour;
  std::optional<double> spot_usd_per_hour;
  int gpus_per_replica = 1;
  int gpus_per_instance = 1;
};
// Instances needed for `replicas`.
int instances_for(int replicas, const FleetPrices& p);
// Daily and monthly cost, fixed vs autoscaled, for each pricing model with a price.
std::vector<FleetCost> fleet_costs(const FleetPlan& plan, const FleetPrices& prices,
                                   double output_tokens_per_request);

// --- Ranking instances ---------------------------------------------------------------------------
// What to plan a serving fleet for.
struct ServeQuery {
  ServeConfig config;      // tp 0: try 1, 2, 4, 8 up to the instance's GPU count
  ServeWorkload workload;  // rate_per_s unused here: the curve's peak is the rate
  Slo slo;
  LoadCurve curve;  // 24 hourly rates
  ScalingPolicy policy;
  std::string gpu;  // filters (catalog ids); empty: any
  std::string instance;
  std::string provider;
  std::string region;
  int top_k = 10;
};
// One ranked option: an instance type, its replica and fleet, and the costs.
struct ServeOption {
  std::string instance;  // empty: a GPU with no priced instance (--gpu alone)
  std::string provider;
  std::string gpu;
  int gpus_per_instance = 0;
  int tp = 1;
  ReplicaMemory memory;
  int64_t max_seqs = 0;      // at the mean prompt + output lengths
  double prefill_s = 0;      // one mean prompt alone
  double decode_step_s = 0;  // batch of one at the mean context
  RateSearch rate;
  FleetPlan fleet;
  PriceQuote price;              // on-demand, per instance
  std::vector<FleetCost> costs;  // on-demand first
  std::vector<std::string> notes;
};
struct ServePlan {
  std::vector<ServeOption> options;  // cheapest autoscaled on-demand fleet first
  int evaluated = 0;
  std::vector<std::string> notes;
};
// Evaluates every matching instance (or the GPU alone) and ranks them. An Error when none
// works, saying why: the model does not fit even at the largest TP tried (by how much), or the
// latency targets are below what an idle replica achieves (by how much).
// What a serving query names, looked up in the catalog: the model and the GPU's catalog id
// (aliases resolved; empty when none is named). An unknown model, GPU or instance is an Error
// with the message id `gpuplan estimate` uses (evaluate.unknown_model[_like],
// evaluate.unknown_gpu[_like], evaluate.unknown_instance), so the page shows it translated.
struct ServeTargets {
  const Model* model = nullptr;
  std::string gpu;
};
Result<ServeTargets> find_serve_targets(const Catalog& catalog, const std::string& model,
                                        const std::string& gpu, const std::string& instance);

Result<ServePlan> plan_serving(const Catalog& catalog, const ServingAssumptions& serving,
                               const Model& model, const ServeQuery& query);

// The same ranking in steps, so a page can spread the work over frames: one (GPU, TP) replica
// evaluated per step (the expensive part: a rate search of simulations), then the ranking.
// plan_serving() is start, every step, then finish: the results are the same.
struct ServeEvaluation {
  std::string gpu;
  int tp = 1;
  std::optional<ServeOption> option;  // nullopt: the replica does not fit (see error)
  Error error = make_error(Errc::invalid_argument, "");  // empty message: none
};
struct ServeSearch {
  std::vector<std::pair<std::string, int>> pending;  // (GPU id, TP) to evaluate, in order
  size_t next = 0;                                   // the next entry of `pending`
  std::vector<ServeEvaluation> done;                 // in evaluation order
  bool finished() const { return next >= pending.size(); }
  double progress() const {
    return pending.empty() ? 1.0 : static_cast<double>(next) / static_cast<double>(pending.size());
  }
};
// The replicas the query's instances need, none evaluated yet.
ServeSearch start_serve_search(const Catalog& catalog, const ServeQuery& query);
// Evaluates the next replica; false when there was none left.
bool step_serve_search(const Catalog& catalog, const ServingAssumptions& serving,
                       const Model& model, const ServeQuery& query, ServeSearch& search);
// Prices every instance with the replicas evaluated (evaluating any still pending) and ranks
// them, as plan_serving() does.
Result<ServePlan> finish_serve_search(const Catalog& catalog, const ServingAssumptions& serving,
                                      const Model& model, const ServeQuery& query,
                                      ServeSearch& search);

// --- Validation against published serving measurements
// -------------------------------------------- A CSV with the columns of measured_serving_dev.csv
// (found by header name, any order): id, source_kind, model, gpu, num_gpus, tp, precision,
// framework, input_len, output_len, concurrency_or_batch, request_rate, metric, value, notes.
bool is_serving_csv(std::string_view text);

struct ServingRow {
  std::string id, source_kind, model, gpu, precision, framework, metric, notes;
  std::string source;  // the citation (optional column): its source_key is the row's source
  std::string input_len, output_len, num_gpus, tp, batch, rate;  // as written
  double value = 0;
  int line = 0;
};
struct ServingPrediction {
  ServingRow row;
  std::string group;  // "output tokens/s", "batch-1 decode tokens/s", "TTFT/TPOT at rate", "other"
  double predicted = 0;
  double error = 0;  // (predicted - measured) / measured
  // The error band, as for training rows (gpuplan/accuracy.h), from the other sources' rows of
  // the same file: family = group, ground = the serving setup (weights format, tp, GPU
  // architecture, GPUs); the measured value's range from it, in the row's unit.
  std::string source;  // source_key of row.source ("" when the file has no source column)
  RunGround ground;
  ErrorBand band;
  Range measured_range;
  bool in_band = false;
};
struct ServingReport {
  std::vector<ServingPrediction> rows;
  std::vector<std::pair<std::string, std::string>> skipped;  // (id, reason)
  // Mean absolute percentage error (fraction) and row count by metric, source and group.
  std::vector<std::tuple<std::string, double, int>> by_metric, by_source, by_group;
  BandCoverage coverage;  // per source (source_key), per group and overall
};
// Predicts what gpuplan can express: max-throughput rows as a burst at the batch the KV cache
// allows (or the static batch given), online rows by simulation at their request rate, batch-1
// decode rows; lists the rest with the reason. An Error for a malformed file.
Result<ServingReport> validate_serving_csv(const Catalog& catalog,
                                           const ServingAssumptions& serving, std::string_view text,
                                           const std::string& where);

}  // namespace gpuplan
