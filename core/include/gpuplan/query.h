#pragma once
// A query is everything a user can set: the workload, its setup, the hardware, the run length,
// the pricing and the planner's filters. One parser reads it from CLI flags (`--nodes 2`) and
// from the page's URL (`nodes=2`): the same keys, the same bounds and the same error messages,
// so a command line and a shared link say the same thing (sokol_args reads argv and the URL
// the same way).
//
// Zero and empty mean "the default"; resolve_defaults() in evaluate.h is the one place that
// turns them into values.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/cost.h"
#include "gpuplan/model.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/request.h"
#include "gpuplan/result.h"
#include "gpuplan/serve_plan.h"

namespace gpuplan {

// The version of the link and `--json` formats this build writes and reads.
inline constexpr int kQuerySchemaVersion = 1;

// Planner limits when the query leaves them at 0 (PlanQuery starts from the same).
inline constexpr int kDefaultMaxNodes = 16;
inline constexpr int kDefaultTopK = 10;
// Bounds of the planner's limits (the parser and plan() check the same).
inline constexpr int kMaxPlanNodes = 1024;
inline constexpr int kMaxTopK = 1024;

// A compliance filter: a region meets it when its provider's flag is set (data/providers). The
// one list the parser, the planner and the page use, in display order.
struct ComplianceKind {
  const char* id;                     // "hipaa", "gdpr", "gov" (the --compliance values)
  const char* label;                  // for people
  std::optional<bool> Region::*flag;  // the region's field that says so
};
const std::vector<ComplianceKind>& compliance_kinds();
// Whether `region` meets the compliance `id` ("": no requirement); false for an unknown id.
bool region_meets(const Region& region, const std::string& id);

// What the planner ranks by.
enum class Objective { cost, time };

// A model described by the user rather than picked from the zoo.
struct CustomModel {
  enum class Kind { none, transformer, cnn } kind = Kind::none;
  TransformerSpec transformer;         // kind == transformer (editor or uploaded config.json)
  std::string cnn_builder = "resnet";  // kind == cnn: resnet, vgg, mobilenet_v2, yolov5
  int64_t cnn_depth = 50;
  int64_t cnn_classes = 1000;
  double cnn_width = 1.0;           // mobilenet width / yolov5 width multiple
  double cnn_depth_multiple = 1.0;  // yolov5
  std::string name;                 // shown to the user (e.g. the uploaded model's name)
};

// Measured figures from a probe file, already read and checked by the face (the core does not
// verify signatures itself; see probe_file.h).
struct ProbeCalibration {
  std::string name;  // the file's name, for notes
  ProbeSummary summary;
  bool simulated = false;      // written by `gpuplan-probe --simulate`
  bool unsigned_file = false;  // no signature
};

// A measured run of the user's own model (a gpuplan-measure file), already read and checked by
// the face like a probe file; evaluate() sets it beside the prediction.
struct MeasuredInput {
  std::string name;  // the file's name, for notes
  MeasuredRun run;
  bool unsigned_file = false;  // no signature
};

// Everything a user can set. Zero or empty fields take the defaults (see resolve_defaults).
struct Query {
  // Workload: a zoo model (request.model), a custom model, or a Hugging Face config.json.
  Request request;
  bool dp_given = false;  // --dp was set; otherwise data parallelism fills the GPUs
  CustomModel custom;
  std::string hf_config_text;  // not a key: the CLI reads --hf-config FILE, the page an upload
  std::string hf_config_name;  // that file's name, for messages; set: the config is the workload
  // Hardware: a GPU and a count in one box, or an instance type and a node count.
  std::string gpu;
  int gpus = 0;  // 0: 1, or the instance's GPUs x nodes
  std::string instance;
  int nodes = 0;  // 0: 1
  // Run length and pricing.
  RunLength run;  // dataset_size 0: the model's dataset
  Pricing pricing = Pricing::on_demand;
  std::string region;    // empty: the cheapest region
  SpotAssumptions spot;  // interruptions and restart 0: data/assumptions.json
  std::string
      spot_bucket;        // a published interruption bucket (pricing_rules.json) instead of a rate
  Commitment commitment;  // reservations: the share of the term the user will use (0: the term)
  std::string currency = "USD";  // the currency prices are shown in: USD or CNY
  // Planner filters and limits.
  std::string provider;    // empty: any
  std::string compliance;  // "hipaa", "gdpr", "gov"; empty: any
  Objective objective = Objective::cost;
  double deadline_hours = 0;     // 0: none
  double budget_usd = 0;         // 0: none
  double min_gpu_memory_gb = 0;  // decimal GB, as GPU makers count; 0: any
  std::string plan_gpu;          // only this GPU's instances (catalog id or alias); empty: any
  int max_nodes = 0;             // 0: kDefaultMaxNodes
  int top_k = 0;                 // 0: kDefaultTopK
  // Inference with --generate: the serving engine whose replica model times prefill and decode
  // (transformers' generate by default, as a PyTorch user runs it).
  Runtime runtime = Runtime::hf;
  // The runtimes' profiles (data/assumptions.json's "serving"): not a key; the CLI and the page
  // set it. Without them a generation is not timed (the time says so).
  const ServingAssumptions* serving = nullptr;
  // Calibration: not a key (the CLI reads --probe FILE, the page an upload).
  std::optional<ProbeCalibration> probe;
  // A measured run to compare with: not a key (the CLI reads --probe FILE, the page an upload).
  std::optional<MeasuredInput> measured;
};

// The keys parse_query understands (request keys first), in display order.
const std::vector<std::string>& query_keys();

// Reads a query from key/value pairs; unknown keys and malformed or out-of-range values give an
// Error naming the key ("--nodes: 0 is out of range [1, 4096]"). A "v" key (schema version)
// must be kQuerySchemaVersion; links without it are read as version 1.
Result<Query> parse_query(const Args& args);
// The same from a URL query string ("model=gpt2-small&nodes=2", optional leading '#' or '?').
Result<Query> parse_query_string(std::string_view url_query);

// The keys that reproduce `query` (what differs from an empty Query only), without "v".
Args query_to_key_values(const Query& query);

// `gpuplan serve`'s options, which are also the page's Serving link keys: one table, so a
// command line and a link say the same (`--prompt-tokens 1500` is `prompt-tokens=1500`). The
// defaults are the CLI's; a field equal to its default is left out of a link.
struct ServeRequest {
  std::string model;
  double rate_per_s = 0;   // --rate: the peak, requests/s; 0: not given
  std::string load_curve;  // --load-curve: "" (flat), business-hours, diurnal; the CLI: a file
  double prompt_tokens = 1000;
  double output_tokens = 200;
  double ttft_ms = 0;  // 0: no target
  double tpot_ms = 0;
  int percentile = 90;  // 50, 90 or 99
  Runtime runtime = Runtime::vllm;
  // nullopt: the checkpoint's own (ServeConfig::checkpoint_weights).
  std::optional<WeightFormat> weights;
  KvFormat kv = KvFormat::bf16;
  int tp = 0;                 // 0: try 1, 2, 4, 8
  int pp = 0;                 // pipeline stages per replica, each on tp GPUs; 0: auto
  int ep = 1;                 // expert-parallel GPUs per replica (MoE); 0: all of the replica's
  bool attention_dp = false;  // attention data parallel over the replica's GPUs (MoE)
  LengthDistribution lengths = LengthDistribution::fixed;
  int requests = 400;  // simulated requests per rate
  int min_replicas = 1;
  double target_utilisation = 0.8;
  double headroom = 0.2;
  double start_s = 0;        // instance start to ready
  double load_gb_per_s = 0;  // model load bandwidth; 0: not counted
  int top = 10;
  std::string gpu, instance, provider, region;  // filters; empty: any ("auto")
  double prefix_hit_rate = 0;                   // share of prompt tokens found in the prefix cache
  SpecMethod spec_method = SpecMethod::none;    // speculative decoding
  int spec_tokens = 0;                          // draft tokens per step; required with a method
  double spec_acceptance = 0;    // per-token acceptance rate; required with a method (no default)
  std::string spec_draft_model;  // the draft model (--spec-method draft)
  bool disaggregate = false;     // also plan prefill and decode on separate pools
  int prefill_tp = 0;            // their replicas' GPUs; 0: the best co-located replica's
  int decode_tp = 0;
  std::string currency = "USD";  // the currency costs are shown in: USD or CNY (--currency)
};

// The serve keys (the CLI's `serve` options but --json), in display order.
const std::vector<std::string>& serve_keys();
// Reads a ServeRequest from key/value pairs, with the same messages as parse_query.
Result<ServeRequest> parse_serve_request(const Args& args);
// Speculative decoding's keys together, checked before planning (the CLI after reading its
// options, the page before each plan; a link keeps them as they are, so the page can show the
// error on the field): a method needs --spec-tokens and the user's measured --spec-acceptance
// (gpuplan has no default for it), --spec-method draft a --spec-draft-model, and none of them
// goes without a method.
std::optional<Error> check_serve_spec(const ServeRequest& r);
// --lengths sharegpt takes ShareGPT's own lengths: a --prompt-tokens or --output-tokens other
// than its default (one a link would carry) is refused rather than ignored or rescaled. The
// CLI and the page call it with check_serve_spec.
std::optional<Error> check_serve_lengths(const ServeRequest& r);
// The keys that reproduce `r` (what differs from a default ServeRequest).
Args serve_request_to_key_values(const ServeRequest& r);
// The planner's query for a request and its day's load curve.
ServeQuery serve_query(const ServeRequest& r, LoadCurve curve);

// The serving issue's worked example, which bench_serve times natively and the page's bench in
// the browser: `gpuplan serve --model llama-3-70b --rate 30 --load-curve diurnal --prompt-tokens
// 1500 --output-tokens 300 --ttft-ms 1000 --tpot-ms 50` (p90, TP chosen), every GPU and instance.
ServeRequest serving_example_request();
// Its planner query: the request with the diurnal curve at its peak rate.
ServeQuery serving_example_query();

// Strict positive-or-zero decimal number for --key within [min, max]; the message names the
// key and the bounds. Shared with the CLI's own options.
Result<double> parse_bounded_number(const std::string& key, const std::string& text, double min,
                                    double max);

}  // namespace gpuplan
