#pragma once
// How far gpuplan's predictions are from measured runs: an error band for every predicted time
// and memory figure, the evidence it rests on, and fit verdicts that allow for it.
//
// data/accuracy.json (tools/accuracy_bands.py writes it from `gpuplan validate --json` over every
// tests/validation/*.csv with a source column) holds each validated run: its source (the
// published document it came from), its family, its ground (model kind, precision, parallel
// dimensions, GPU architecture, GPUs) and its signed error. The bands are computed here, from
// those rows, so that a band can leave a source out: a validation row's band comes only from the
// other sources' rows (held-out error), and a user's query, itself an unseen source, gets the
// band of every row. A test fails when the file no longer matches the model.

#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/result.h"

namespace gpuplan {

struct Gpu;

// What makes two runs "of the same kind": the facets a band's evidence is counted on.
struct RunGround {
  std::string kind;       // model kind: cnn, encoder, decoder, moe, hybrid (model_kind)
  std::string precision;  // the dtype the matmuls run in: fp32, tf32, fp16, bf16, fp8
  std::string parallel;   // the parallel dimensions above 1: "single", "dp", "dp+tp+pp", ...
  std::string arch;       // GPU architecture ("Hopper"); empty: no GPU (not compared)
  int gpus = 1;
  // The serving engine (runtime_name: vllm, trtllm, sglang, hf, llamacpp) of a serving run;
  // empty for training runs (not compared).
  std::string runtime;
};

// One validated run of data/accuracy.json.
struct AccuracyRow {
  std::string id;
  std::string source;  // the published document (tools/validation_source.py's key)
  std::string family;  // accuracy_family of its model and setup
  RunGround ground;
  double error = 0;  // (predicted - measured) / measured
};

struct AccuracyTable {
  std::vector<AccuracyRow> time;    // throughput rows (not MFU: it repeats its tokens/s row)
  std::vector<AccuracyRow> memory;  // peak-memory rows of training and inference
  // Serving rows (gpuplan/serve_validation.h): family = the row's group ("output tokens/s",
  // "TTFT/TPOT at rate", ...), error on the row's own metric.
  std::vector<AccuracyRow> serving;
  std::string generated;  // YYYY-MM-DD the file was written
};

// The band of a prediction: the 10th-90th percentile range of the signed error that held-out
// runs like it showed, widened for a small or one-source pool and for a setup outside the
// validated ground; and the evidence it rests on.
struct ErrorBand {
  std::string family;   // the prediction's family: "decoder/16-bit/sharded", ...
  std::string pool;     // the rows the band came from: that family, "decoder/16-bit/*", "all"
  int rows = 0;         // rows in the pool; 0: no validated rows at all (no band)
  int sources = 0;      // distinct sources in the pool
  double low = 0;       // 10th percentile of the signed error, widened
  double high = 0;      // 90th percentile, widened
  double mape = 0;      // mean absolute error of the pool, as a fraction
  double pool_low = 0;  // the pool's own 10th and 90th percentiles (source-balanced)
  double pool_high = 0;
  // Evidence: validated runs of this kind (every facet of RunGround equal, any GPU count).
  int evidence_rows = 0;
  int evidence_sources = 0;
  int evidence_max_gpus = 0;  // the largest of them (or of the nearest kind when none)
  // Facets outside the validated ground: "kind", "precision", "parallel", "arch", "runtime",
  // "scale", "sources" (a pool of one source); each widened the band. `reason` says why in words.
  std::vector<std::string> outside;
  std::vector<std::string> never_validated;  // of them, facets whose value no validated run used
  std::string reason;  // "no validated decoder run used fp8 with dp+pp on Hopper: band widened"
};

// A model's kind for its evidence: cnn, encoder, decoder, moe (a decoder with routed experts), or
// hybrid (a decoder with linear-attention or Mamba-2 mixers, experts or not: its token mixing is
// a workload no attention run validates).
std::string model_kind(const Model& model);

// The family of a workload and setup: model kind (model_kind), precision (fp32, 16-bit, fp8) and
// parallelism (single, data-parallel, sharded, model-parallel).
std::string accuracy_family(const Model& model, const Setup& setup);

// The ground of a run on `gpus` GPUs of `gpu` (null: no GPU named, the architecture not compared).
RunGround run_ground(const Model& model, const Setup& setup, const Gpu* gpu, int gpus);

// The band for a prediction of `family` on `ground` from `rows`, leaving out every row of
// `held_out_source` (empty: none left out). The rule (site/docs/method.md, "Error bands"):
//  1. pool: the family's rows, else its kind and precision, else its kind, else all rows, the
//     first with at least kMinPoolRows rows from at least kMinPoolSources sources;
//  2. the pool's source-balanced 10th, 50th and 90th percentiles (each source weighs the same);
//  3. widened for the pool's size: the normal prediction interval's t_{0.9,n-1} sqrt(1 + 1/n)
//     over z_{0.9}, n the pool's effective size (Kish);
//  4. widened, in quadrature, by the spread between sources (a pool of one source: as wide as
//     its band) and by the spread between the validated values of each facet outside the
//     ground (a random-effects prediction interval).
ErrorBand error_band(const std::vector<AccuracyRow>& rows, const std::string& family,
                     const RunGround& ground, const std::string& held_out_source = "");

constexpr int kMinPoolRows = 20;
constexpr int kMinPoolSources = 2;

// One line for people: "rests on 60 validated runs of this kind from 1 source (decoder, bf16,
// dp, Hopper, up to 512 GPUs); band from 273 runs of 5 sources (all)".
std::string evidence_line(const ErrorBand& band, const RunGround& ground);

// A predicted value with the range measured runs of its family fell in.
struct Range {
  double value = 0;
  double low = 0;
  double high = 0;
};

// A step time from a throughput band: measured time = predicted time x (1 + throughput error).
Range time_range_s(double predicted_s, const ErrorBand& band);
// Where the measured value of a predicted rate or size lies: measured = predicted / (1 + error).
Range measured_range(double predicted, const ErrorBand& band);
// A memory figure from a memory band: measured = predicted / (1 + error).
Range memory_range_bytes(double predicted_bytes, const ErrorBand& band);

// Band coverage: the share of measured values inside their stated band, per source, per family
// and overall, beside the mean absolute error.
struct BandedRow {
  std::string source, family;
  double measured = 0;
  double low = 0, high = 0;  // the stated band, in the measured value's unit
  bool has_band = false;     // false: no band was stated (not counted in the coverage)
  double error = 0;          // (predicted - measured) / measured
};
struct Coverage {
  std::string key;  // a source, a family, or "all"
  int rows = 0;     // rows with a band
  int inside = 0;   // of them, measured within [low, high]
  double mape = 0;  // over the same rows
  double share() const { return rows > 0 ? static_cast<double>(inside) / rows : 0; }
};
struct BandCoverage {
  std::vector<Coverage> by_source;  // sorted by key
  std::vector<Coverage> by_family;
  Coverage overall;
  int without_band = 0;  // rows that stated none
};
BandCoverage band_coverage(const std::vector<BandedRow>& rows);

enum class Fit { fits, tight, does_not_fit };
const char* fit_name(Fit fit);  // "fits", "tight", "does not fit"

struct FitVerdict {
  Fit fit = Fit::fits;
  Range memory_bytes;         // predicted per GPU, with its band
  double capacity_bytes = 0;  // what the GPU gives PyTorch
  double margin_bytes = 0;    // capacity - predicted (negative: over)
  ErrorBand band;             // the memory band it allowed for
};

// fits: even the band's high end is within capacity; does not fit: even its low end is over;
// tight: the capacity lies inside the band. A run that ran is never "does not fit" unless the
// prediction errs by more than its band allows.
FitVerdict fit_verdict(double predicted_bytes, double capacity_bytes, const ErrorBand& memory_band);

// The source key of a citation "owner/repo@commit path/to/FILE.md (...)" (or a URL): the
// repository's name, a slash, and the document: the file's stem, or its folder for a README
// ("DeepLearningExamples/BERT", "llm-foundry/benchmarking", "TensorRT-LLM/perf-overview"); a
// URL's host for a web page. Forks of a repository share its name, so they count as one source.
std::string source_key(std::string_view citation);

// Parses data/accuracy.json.
Result<AccuracyTable> parse_accuracy_json(std::string_view text, const std::string& where);

}  // namespace gpuplan
