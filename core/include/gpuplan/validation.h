#pragma once
// Checking predictions against measured throughput: a CSV of published measurements, each row
// predicted by the core and compared. Columns (header required, in this order):
//   id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value
// model and gpu are catalog ids or aliases; task is train or infer; metric is one of
// samples_per_s_total, tokens_per_s_per_gpu, mfu. Optional columns follow in any order, an empty
// cell meaning "not stated": memory_format (auto, nchw, channels-last) says how a run laid out its
// convolution tensors; the setup keys of the CLI with '_' for '-' (batch, dp, tp, pp, zero,
// checkpointing, checkpoint_every, grad_reduce, attention, dropout, sp) describe the rest of the
// run; max_positions sizes a learned position table to the run; gpus_per_node and
// network_gbps_per_node describe a multi-node cluster; flops_attention (causal or full) says how
// the source's MFU counts a causal model's attention: causal (half the score square, gpuplan's
// count) or full (the whole square, as llm-foundry's README formula does), so that mfu rows are
// predicted on the source's count. The parallelism and framework keys of the CLI (vp, cp,
// cp_comm, framework, tp_comm_overlap, overlap_grad_reduce, overlap_param_gather, fused_kernels)
// are columns too, and for mixture-of-experts runs ep, etp, capacity_factor, moe_pad_to_capacity,
// moe_imbalance, moe_dispatcher, moe_a2a_overlap; config_json names a Hugging Face config.json,
// relative to the CSV, whose model the row runs (its `model` cell is then a label); source names
// the published document the row came from (tools/validation_source.py's key, e.g.
// "DeepLearningExamples/BERT"): a row's error band is computed leaving its source out
// (gpuplan/accuracy.h).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/estimate.h"
#include "gpuplan/request.h"
#include "gpuplan/result.h"
#include "gpuplan/timing.h"

namespace gpuplan {

struct MeasuredRow {
  std::string id;
  std::string model;
  std::string gpu;
  int num_gpus = 1;
  std::string precision;
  int64_t batch_size_per_gpu = 1;
  int64_t seq_len_or_resolution = 0;
  std::string task;    // train | infer
  std::string metric;  // samples_per_s_total | tokens_per_s_per_gpu | mfu
  double value = 0;
  MemoryFormat memory_format = MemoryFormat::automatic;
  Args options;               // setup keys from the optional columns, CLI spelling
  int64_t max_positions = 0;  // 0: the model's own
  int gpus_per_node = 0;      // 0: all GPUs in one node
  // GPUs of one NVLink domain spanning several nodes (a GB200 NVL72 rack: 72 over 18 trays of 4);
  // 0: each node is its own domain.
  int nvlink_domain_gpus = 0;
  double network_bytes_per_s_per_node = 0;
  bool mfu_counts_full_attention = false;  // flops_attention = full
  std::string config_json;                 // as written in the CSV, relative to it
  std::string source;                      // empty: not stated (the band then leaves nothing out)
  int line = 0;                            // 1-based line in the file
  std::string problem;  // RowErrors::skip: why this row could not be read (its other fields unset)
};

// Sets one optional column (its CSV name, e.g. "grad_reduce" or "gpus_per_node") of `row` from
// its text; an empty cell leaves it unset. Published tables (gpuplan/published.h) describe a run's
// setup with the same names. Errors name `at` and the column.
std::optional<Error> set_optional_column(MeasuredRow& row, const std::string& column,
                                         const std::string& cell, const std::string& at);

// What a malformed data row does: fail the file (an Error naming its line and column), or come
// back with `problem` set, to be reported as skipped while the other rows are scored. A bad
// header, invalid UTF-8 or an oversize file fail either way.
enum class RowErrors { fail, skip };

// Parses the CSV; errors name the line and column.
Result<std::vector<MeasuredRow>> parse_measured_csv(std::string_view text, const std::string& where,
                                                    RowErrors rows = RowErrors::fail);

struct ValidatedRow {
  MeasuredRow row;
  double predicted = 0;
  double error = 0;  // (predicted - measured) / measured
  bool fits = true;  // predicted memory fits the GPU
  double predicted_memory_bytes = 0;
  StepTime time;        // the predicted step, part by part (why a row is off)
  std::string family;   // accuracy_family of the row's model and setup
  bool moe = false;     // the model is a mixture of experts
  RunGround ground;     // its kind, precision, parallel dimensions, GPU architecture, GPUs
  Fit fit = Fit::fits;  // the verdict the page and CLI would give, memory band included
  // The band stated for this row from the other sources' errors (its own source left out), and
  // the measured value's likely range from it, in the row's unit; in_band: measured inside it.
  ErrorBand band;
  Range measured_range;
  bool in_band = false;
};

// A row that could not be predicted, and why ("unknown model 'ssd300'").
struct SkippedRow {
  MeasuredRow row;
  std::string reason;
};

struct ValidationReport {
  std::vector<ValidatedRow> rows;   // predicted rows
  std::vector<SkippedRow> skipped;  // rows gpuplan cannot predict (unknown model or GPU, bad setup)
  double mape = 0;  // mean absolute percentage error over the predicted rows, as a fraction
  // Band coverage per source, per family and overall, over the rows with a band (not MFU
  // rows: each repeats its tokens/s row's run).
  BandCoverage coverage;
};

// --- Peak memory -----------------------------------------------------------------------------
// A CSV of measured peak GPU memory (what tools/convert_hf_memory.py writes), header:
//   id,model,gpu,mode,precision,optimizer,micro_batch,global_batch,seq_len,checkpointing,measured_bytes
// and optionally the columns pytorch (the release the row ran on: --pytorch; empty: current) and
// then source (the published document, as in the throughput CSV).
// mode: context (the CUDA context alone), weights (the model loaded), train or infer.
// measured_bytes is what nvidia-smi/NVML calls used memory, CUDA context included.
bool is_memory_csv(std::string_view text);

struct MemoryValidatedRow {
  std::string id, model, mode, family, source;
  RunGround ground;
  double measured_bytes = 0, predicted_bytes = 0;
  double error = 0;  // (predicted - measured) / measured
  // train and infer rows: the memory band from the other sources' rows, as in ValidatedRow.
  ErrorBand band;
  Range measured_range;
  bool in_band = false;
};
struct MemoryReport {
  std::vector<MemoryValidatedRow> rows;
  std::vector<std::pair<std::string, std::string>> skipped;  // (id, reason)
  double mape = 0;
  BandCoverage coverage;  // over the train and infer rows
};
// Predicts every row it can; rows it cannot read or predict are skipped with the reason.
// An Error for a malformed file (header, size, UTF-8) or when no row could be predicted.
Result<MemoryReport> validate_memory_csv(const Catalog& catalog, std::string_view text,
                                         const std::string& where);

// Predicts every row it can. A row it cannot (a model or GPU not in the catalog, a setup the
// model rejects) is listed in `skipped` with the reason, and the others are still scored; an
// Error only when no row at all could be predicted (naming the first row's reason).
// `configs`: the text of each config_json the rows name, keyed by the cell as written (the caller
// reads them; a row whose file is not there is listed with the reason).
Result<ValidationReport> validate_measurements(
    const Catalog& catalog, const std::vector<MeasuredRow>& rows, const Efficiencies& eff,
    const std::map<std::string, std::string>& configs = {});

}  // namespace gpuplan
