#include "gpuplan/validation.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "gpuplan/accuracy.h"
#include "gpuplan/estimate.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/request.h"

namespace gpuplan {
namespace {

constexpr size_t kMaxCsvBytes = 4 * 1024 * 1024;
const char* kHeader =
    "id,model,gpu,num_gpus,precision,batch_size_per_gpu,seq_len_or_resolution,task,metric,value";

// Splits one CSV line (RFC 4180 quotes allowed) into fields.
Result<std::vector<std::string>> split_csv(std::string_view line, const std::string& where) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  if (quoted) return make_error(Errc::parse_error, where + ": unterminated quoted field");
  return out;
}

// Length of the well-formed UTF-8 sequence at s[i] (Unicode 15, table 3-7), 0 when ill-formed.
size_t utf8_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u;
  };
  const unsigned c = byte(0);
  const auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return byte(k) >= lo && byte(k) <= hi;
  };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (c >= 0xE1 && c <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

// The optional columns after the required ten: memory_format, the CLI's setup keys with '_' for
// '-', and the run's model and cluster facts.
const std::vector<std::string>& optional_columns() {
  static const std::vector<std::string> names = {"memory_format",
                                                 "batch",
                                                 "dp",
                                                 "tp",
                                                 "pp",
                                                 "zero",
                                                 "dp_shard",
                                                 "optimizer",
                                                 "optimizer_loop",
                                                 "clip_grad_norm",
                                                 "checkpointing",
                                                 "checkpoint_every",
                                                 "recompute_modules",
                                                 "grad_reduce",
                                                 "attention",
                                                 "dropout",
                                                 "sp",
                                                 "compile",
                                                 "fused_loss",
                                                 "pytorch",
                                                 "ep",
                                                 "etp",
                                                 "capacity_factor",
                                                 "moe_pad_to_capacity",
                                                 "moe_rank_capacity",
                                                 "moe_imbalance",
                                                 "moe_dispatcher",
                                                 "moe_a2a_overlap",
                                                 "max_positions",
                                                 "gpus_per_node",
                                                 "network_gbps_per_node",
                                                 "flops_attention",
                                                 "vp",
                                                 "cp",
                                                 "cp_comm",
                                                 "framework",
                                                 "tp_comm_overlap",
                                                 "overlap_grad_reduce",
                                                 "overlap_param_gather",
                                                 "fused_kernels",
                                                 "cache_quantized_weights",
                                                 "bf16_first_layers",
                                                 "bf16_last_layers",
                                                 "quantized_params",
                                                 "fp8_attention",
                                                 "optimizer_state_dtype",
                                                 "master_dtype",
                                                 "mtp_layers",
                                                 "offload_activation_layers",
                                                 "offload_modules",
                                                 "cuda_graph_modules",
                                                 "recompute_num_layers",
                                                 "nvlink_domain_gpus",
                                                 "config_json",
                                                 "source"};
  return names;
}

}  // namespace

std::optional<Error> set_optional_column(MeasuredRow& r, const std::string& column,
                                         const std::string& cell, const std::string& at) {
  if (cell.empty()) return std::nullopt;
  const auto& known = optional_columns();
  if (std::find(known.begin(), known.end(), column) == known.end())
    return make_error(Errc::schema_error, at + ": unknown setup key '" + column + "'");
  if (column == "memory_format") {
    const auto format = parse_memory_format(cell);
    if (!format) {
      return make_error(Errc::schema_error, at + ": column memory_format: '" + cell +
                                                "' is not auto, nchw or channels-last");
    }
    r.memory_format = *format;
  } else if (column == "flops_attention") {
    if (cell != "causal" && cell != "full") {
      return make_error(Errc::schema_error,
                        at + ": column flops_attention: '" + cell + "' is not causal or full");
    }
    r.mfu_counts_full_attention = cell == "full";
  } else if (column == "config_json") {
    r.config_json = cell;
  } else if (column == "source") {
    r.source = cell;
  } else if (column == "max_positions" || column == "gpus_per_node" ||
             column == "nvlink_domain_gpus" || column == "network_gbps_per_node") {
    char* endp = nullptr;
    const double v = std::strtod(cell.c_str(), &endp);
    if (endp != cell.c_str() + cell.size() || !std::isfinite(v) || v <= 0 || v > 1e9) {
      return make_error(Errc::schema_error,
                        at + ": column " + column + ": '" + cell + "' is not a positive number");
    }
    if (column == "max_positions")
      r.max_positions = static_cast<int64_t>(v);
    else if (column == "gpus_per_node")
      r.gpus_per_node = static_cast<int>(v);
    else if (column == "nvlink_domain_gpus")
      r.nvlink_domain_gpus = static_cast<int>(v);
    else
      r.network_bytes_per_s_per_node = v * 1e9 / 8;
  } else {
    std::string key = column;
    std::replace(key.begin(), key.end(), '_', '-');
    r.options.emplace_back(key, cell);
  }
  return std::nullopt;
}

namespace {

// One data row; errors name the line (`at`) and the column.
Result<MeasuredRow> parse_row(std::string_view line, const std::string& at, int line_no,
                              const std::vector<std::string>& extra) {
  auto fields = split_csv(line, at);
  if (!fields.ok()) return fields.error();
  const auto& f = fields.value();
  const size_t columns = 10 + extra.size();
  if (f.size() != columns) {
    return make_error(Errc::schema_error, at + ": expected " + std::to_string(columns) +
                                              " columns, got " + std::to_string(f.size()));
  }
  MeasuredRow r;
  r.line = line_no;
  r.id = f[0];
  r.model = f[1];
  r.gpu = f[2];
  auto integer = [&](const std::string& s, const char* column, int64_t min,
                     int64_t max) -> Result<int64_t> {
    auto v = parse_int(s, column);
    if (!v.ok() || v.value() < min || v.value() > max) {
      return make_error(Errc::schema_error, at + ": column " + column + ": '" + s +
                                                "' is not an integer in [" + std::to_string(min) +
                                                ", " + std::to_string(max) + "]");
    }
    return v.value();
  };
  auto n = integer(f[3], "num_gpus", 1, 100000);
  if (!n.ok()) return n.error();
  r.num_gpus = static_cast<int>(n.value());
  r.precision = f[4];
  if (!parse_precision(r.precision))
    return make_error(Errc::schema_error, at + ": column precision: unknown '" + f[4] + "'");
  auto b = integer(f[5], "batch_size_per_gpu", 1, 1000000);
  if (!b.ok()) return b.error();
  r.batch_size_per_gpu = b.value();
  auto s = integer(f[6], "seq_len_or_resolution", 1, 10000000);
  if (!s.ok()) return s.error();
  r.seq_len_or_resolution = s.value();
  r.task = f[7];
  if (r.task != "train" && r.task != "infer") {
    return make_error(Errc::schema_error,
                      at + ": column task: '" + f[7] + "' is not train or infer");
  }
  r.metric = f[8];
  if (r.metric != "samples_per_s_total" && r.metric != "tokens_per_s_per_gpu" &&
      r.metric != "mfu") {
    return make_error(Errc::schema_error,
                      at + ": column metric: '" + f[8] +
                          "' is not samples_per_s_total, tokens_per_s_per_gpu or mfu");
  }
  char* endp = nullptr;
  r.value = std::strtod(f[9].c_str(), &endp);
  if (f[9].empty() || endp != f[9].c_str() + f[9].size() || !std::isfinite(r.value) ||
      r.value <= 0) {
    return make_error(Errc::schema_error,
                      at + ": column value: '" + f[9] + "' is not a positive number");
  }
  for (size_t k = 0; k < extra.size(); ++k) {
    if (auto err = set_optional_column(r, extra[k], f[10 + k], at)) return *err;
  }
  return r;
}

// The id column of a row that did not parse, for the report ("" when even that is missing).
std::string first_field(std::string_view line) {
  auto fields = split_csv(line, "");
  return fields.ok() && !fields.value().empty() ? fields.value()[0] : std::string();
}

// What both CSV readers require of the whole text: the size limit, and UTF-8 (ids and names
// are echoed into JSON reports).
std::optional<Error> check_csv_text(std::string_view text, const std::string& where) {
  if (text.size() > kMaxCsvBytes) {
    return make_error(Errc::too_large, where + ": file is " + std::to_string(text.size()) +
                                           " bytes; the limit is " + std::to_string(kMaxCsvBytes) +
                                           " bytes");
  }
  for (size_t i = 0, line = 1; i < text.size();) {
    const size_t n = utf8_length(text, i);
    if (n == 0) {
      return make_error(Errc::parse_error, where + ":" + std::to_string(line) +
                                               ": not valid UTF-8 (save the file as UTF-8)");
    }
    if (text[i] == '\n') ++line;
    i += n;
  }
  return std::nullopt;
}

// The lines that are neither blank nor '#' comments, CR stripped, with their 1-based numbers.
struct ContentLine {
  std::string_view text;
  int number;
};
std::vector<ContentLine> content_lines(std::string_view text) {
  std::vector<ContentLine> out;
  int number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && line[0] != '#') out.push_back({line, number});
  }
  return out;
}

// The header: the ten required columns, then optional ones by name (returned).
Result<std::vector<std::string>> parse_header(std::string_view line, const std::string& at) {
  const std::string required(kHeader);
  if (line.substr(0, required.size()) != required ||
      (line.size() > required.size() && line[required.size()] != ',')) {
    return make_error(Errc::schema_error,
                      at + ": header must start with '" + required +
                          "' (optional columns may follow: memory_format, batch, dp, tp, ...)");
  }
  std::vector<std::string> extra;
  if (line.size() == required.size()) return extra;
  auto names = split_csv(line.substr(required.size() + 1), at);
  if (!names.ok()) return names.error();
  const auto& known = optional_columns();
  for (const auto& n : names.value()) {
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return make_error(Errc::schema_error,
                        at + ": unknown column '" + n + "' (optional columns: " + list + ")");
    }
    if (std::find(extra.begin(), extra.end(), n) != extra.end()) {
      return make_error(Errc::schema_error, at + ": column '" + n + "' appears twice");
    }
    extra.push_back(n);
  }
  return extra;
}

}  // namespace

Result<std::vector<MeasuredRow>> parse_measured_csv(std::string_view text, const std::string& where,
                                                    RowErrors mode) {
  if (auto err = check_csv_text(text, where)) return *err;
  std::vector<MeasuredRow> rows;
  bool header_seen = false;
  std::vector<std::string> extra;
  for (const auto& [line, line_no] : content_lines(text)) {
    const std::string at = where + ":" + std::to_string(line_no);
    if (!header_seen) {
      auto header = parse_header(line, at);
      if (!header.ok()) return header.error();
      extra = std::move(header).value();
      header_seen = true;
      continue;
    }
    auto row = parse_row(line, at, line_no, extra);
    if (!row.ok()) {
      if (mode == RowErrors::fail) return row.error();
      MeasuredRow bad;
      bad.line = line_no;
      bad.id = first_field(line);
      bad.problem = row.error().message;
      rows.push_back(std::move(bad));
      continue;
    }
    rows.push_back(std::move(row).value());
  }
  if (!header_seen) return make_error(Errc::schema_error, where + ": empty file (no header)");
  return rows;
}

namespace {

// The setup a row describes: one sample per GPU and data parallelism over all GPUs unless its
// optional columns say otherwise (same keys and checks as the CLI).
Result<Setup> row_setup(const MeasuredRow& r, bool images) {
  Args args = {{"mode", r.task},
               {"precision", r.precision},
               {"micro-batch", std::to_string(r.batch_size_per_gpu)},
               {images ? "resolution" : "seq", std::to_string(r.seq_len_or_resolution)}};
  args.insert(args.end(), r.options.begin(), r.options.end());
  auto request = parse_request(args);
  if (!request.ok()) return request.error();
  Setup s = request.value().setup;
  s.memory_format = r.memory_format;
  const auto given = [&](const char* key) {
    return std::any_of(r.options.begin(), r.options.end(),
                       [&](const auto& kv) { return kv.first == key; });
  };
  if (!given("dp")) s.dp = std::max(1, r.num_gpus / (s.tp * s.pp * s.cp));
  if (!given("batch")) s.global_batch = r.batch_size_per_gpu * s.dp;
  return s;
}

// The cluster a row ran on: one node, or nodes of gpus_per_node joined by the stated network.
Result<Cluster> row_cluster(const MeasuredRow& r, const Gpu& gpu) {
  if (r.gpus_per_node <= 0 || r.num_gpus <= r.gpus_per_node)
    return single_node_cluster(gpu, r.num_gpus);
  if (r.num_gpus % r.gpus_per_node != 0) {
    return make_error(Errc::invalid_argument, std::to_string(r.num_gpus) +
                                                  " GPUs do not fill nodes of " +
                                                  std::to_string(r.gpus_per_node));
  }
  auto c = single_node_cluster(gpu, r.gpus_per_node);
  if (!c.ok()) return c;
  Cluster out = c.value();
  out.nodes = r.num_gpus / r.gpus_per_node;
  out.inter_node_bytes_per_s = r.network_bytes_per_s_per_node;
  if (r.nvlink_domain_gpus > 0) {
    if (r.nvlink_domain_gpus % r.gpus_per_node != 0 || gpu.nvlink_bandwidth_bytes_per_s <= 0) {
      return make_error(Errc::invalid_argument,
                        "nvlink_domain_gpus " + std::to_string(r.nvlink_domain_gpus) +
                            " is not a whole number of NVLink-connected nodes of " +
                            std::to_string(r.gpus_per_node));
    }
    out.gpus_per_domain = r.nvlink_domain_gpus;
  }
  if (out.domains() > 1 && out.inter_node_bytes_per_s <= 0) {
    return make_error(Errc::invalid_argument,
                      "a row across nodes or NVLink domains needs network_gbps_per_node");
  }
  return out;
}

// The source's model FLOPs over gpuplan's: a source that counts the whole score square of a
// causal model (flops_attention = full) credits the run with the masked half too.
double mfu_count_ratio(const MeasuredRow& r, const Estimate& e) {
  if (!r.mfu_counts_full_attention || e.flops.forward_per_sample <= 0) return 1.0;
  const double masked =
      e.flops.forward_attention_unmasked_per_sample - e.flops.forward_attention_per_sample;
  return 1.0 + masked / e.flops.forward_per_sample;
}

// Predicts one row's metric; an Error says why it cannot.
// The model a row runs: its config.json through the Hugging Face importer, or a catalog entry.
Result<Model> row_model(const Catalog& catalog, const MeasuredRow& r,
                        const std::map<std::string, std::string>& configs) {
  if (!r.config_json.empty()) {
    auto text = configs.find(r.config_json);
    if (text == configs.end()) {
      return make_error(Errc::not_found, "config_json '" + r.config_json + "' was not read");
    }
    return model_from_hf_config(text->second, r.config_json);
  }
  const Model* found = catalog.find_model(r.model);
  if (!found) return make_error(Errc::not_found, "unknown model '" + r.model + "'");
  return *found;
}

Result<ValidatedRow> predict_row(const Catalog& catalog, const MeasuredRow& r,
                                 const Efficiencies& eff,
                                 const std::map<std::string, std::string>& configs) {
  auto loaded = row_model(catalog, r, configs);
  if (!loaded.ok()) return loaded.error();
  const Gpu* gpu = catalog.find_gpu(r.gpu);
  if (!gpu) return make_error(Errc::not_found, "unknown GPU '" + r.gpu + "'");
  Model model = std::move(loaded).value();
  if (r.max_positions > 0) model.transformer.max_positions = r.max_positions;
  const bool images = model.kind == ModelKind::graph || model.transformer.is_vision();
  auto s = row_setup(r, images);
  if (!s.ok()) return s.error();
  auto e = estimate(model, s.value());
  if (!e.ok()) return e.error();
  auto work = build_work_profile(model, s.value(), e.value());
  if (!work.ok()) return work.error();
  auto cluster = row_cluster(r, *gpu);
  if (!cluster.ok()) return cluster.error();
  auto t = estimate_step_time(model, s.value(), e.value(), work.value(), cluster.value(), eff);
  if (!t.ok()) return t.error();
  ValidatedRow v;
  v.row = r;
  if (r.metric == "samples_per_s_total")
    v.predicted = t.value().samples_per_s;
  else if (r.metric == "tokens_per_s_per_gpu")
    v.predicted = t.value().tokens_per_s / r.num_gpus;
  else
    v.predicted = t.value().mfu * mfu_count_ratio(r, e.value());
  v.error = (v.predicted - r.value) / r.value;
  v.predicted_memory_bytes = e.value().memory.total();
  v.time = t.value();
  v.family = accuracy_family(model, s.value());
  v.moe = model.kind == ModelKind::transformer && model.transformer.is_moe();
  v.ground = run_ground(model, s.value(), gpu, r.num_gpus);
  v.fit = fit_verdict(v.predicted_memory_bytes, gpu->memory_bytes,
                      error_band(catalog.accuracy.memory, v.family, v.ground, r.source))
              .fit;
  v.band = error_band(catalog.accuracy.time, v.family, v.ground, r.source);
  if (v.band.rows > 0) {
    v.measured_range = measured_range(v.predicted, v.band);
    v.in_band = r.value >= v.measured_range.low && r.value <= v.measured_range.high;
  }
  v.fits = v.predicted_memory_bytes <= gpu->memory_bytes;
  return v;
}

}  // namespace

Result<ValidationReport> validate_measurements(const Catalog& catalog,
                                               const std::vector<MeasuredRow>& rows,
                                               const Efficiencies& eff,
                                               const std::map<std::string, std::string>& configs) {
  ValidationReport report;
  double sum = 0;
  std::optional<Error> first_problem;
  for (const auto& r : rows) {
    auto skip = [&](Errc code, const std::string& reason) {
      report.skipped.push_back({r, reason});
      if (!first_problem) {
        first_problem =
            make_error(code, "row " + r.id + " (line " + std::to_string(r.line) + "): " + reason);
      }
    };
    if (!r.problem.empty()) {
      skip(Errc::schema_error, r.problem);
      continue;
    }
    auto v = predict_row(catalog, r, eff, configs);
    if (!v.ok()) {
      skip(v.error().code, v.error().message);
      continue;
    }
    sum += std::fabs(v.value().error);
    report.rows.push_back(std::move(v).value());
  }
  if (report.rows.empty() && first_problem) {
    Error e = *first_problem;
    if (rows.size() > 1) e.message += " (and no other row could be predicted either)";
    return e;
  }
  report.mape = report.rows.empty() ? 0 : sum / static_cast<double>(report.rows.size());
  std::vector<BandedRow> banded;
  for (const auto& v : report.rows) {
    if (v.row.metric == "mfu") continue;
    banded.push_back({v.row.source, v.family, v.row.value, v.measured_range.low,
                      v.measured_range.high, v.band.rows > 0, v.error});
  }
  report.coverage = band_coverage(banded);
  return report;
}

namespace {
const char* kMemoryHeader =
    "id,model,gpu,mode,precision,optimizer,micro_batch,global_batch,seq_len,checkpointing,measured_"
    "bytes";

// The columns after the required eleven: none, pytorch, or pytorch and source (0 when the line
// is not a memory header).
size_t memory_columns(std::string_view line) {
  const std::string base(kMemoryHeader);
  if (line == base) return 11;
  if (line == base + ",pytorch") return 12;
  if (line == base + ",pytorch,source") return 13;
  return 0;
}

// One data row's prediction (f: its fields, `columns` of them); an Error names why it cannot.
Result<MemoryValidatedRow> predict_memory_row(const Catalog& catalog,
                                              const std::vector<std::string>& f, size_t columns,
                                              const std::string& at) {
  if (f.size() != columns) {
    return make_error(Errc::schema_error, at + ": expected " + std::to_string(columns) +
                                              " columns, got " + std::to_string(f.size()));
  }
  const auto release =
      columns >= 12 && !f[11].empty() ? parse_torch_release(f[11]) : TorchRelease::v2_0_or_later;
  if (!release) {
    return make_error(Errc::schema_error, at + ": column pytorch: '" + f[11] +
                                              "' is not a release number such as 1.10");
  }
  const Model* model = catalog.find_model(f[1]);
  if (!model) return make_error(Errc::not_found, "unknown model '" + f[1] + "'");
  const auto precision = parse_precision(f[4]);
  const auto optimizer = parse_optimizer(f[5]);
  const auto checkpointing = parse_checkpointing(f[9]);
  auto micro = parse_int(f[6], "micro_batch"), global = parse_int(f[7], "global_batch"),
       seq = parse_int(f[8], "seq_len");
  char* endp = nullptr;
  const double measured = std::strtod(f[10].c_str(), &endp);
  const bool mode_ok = f[3] == "context" || f[3] == "weights" || f[3] == "train" || f[3] == "infer";
  if (!precision || !optimizer || !checkpointing || !mode_ok || !micro.ok() || !global.ok() ||
      !seq.ok() || f[10].empty() || endp != f[10].c_str() + f[10].size() ||
      !std::isfinite(measured) || measured <= 0) {
    return make_error(
        Errc::schema_error,
        at + ": a value it cannot read (mode context|weights|train|infer, a precision, optimizer "
             "and checkpointing gpuplan names, integer batches and seq_len, measured_bytes > 0)");
  }
  Setup s;
  s.precision = *precision;
  s.optimizer = *optimizer;
  s.checkpointing = *checkpointing;
  s.micro_batch = micro.value();
  s.global_batch = global.value();
  s.seq_len = seq.value();
  s.torch_release = *release;
  if (f[3] != "train") s.mode = Mode::infer;
  MemoryValidatedRow v;
  v.id = f[0];
  v.model = model->id;
  v.mode = f[3];
  v.source = columns >= 13 ? f[12] : "";
  v.measured_bytes = measured;
  v.family = accuracy_family(*model, s);
  v.ground = run_ground(*model, s, catalog.find_gpu(f[2]), 1);
  if (f[3] == "context") {
    v.predicted_bytes = s.assumptions.cuda_context_bytes;
  } else {
    auto e = estimate(*model, s);
    if (!e.ok()) return e.error();
    const MemoryBytes& m = e.value().memory;
    v.predicted_bytes = f[3] == "weights" ? m.weights + m.context : m.total();
  }
  v.error = (v.predicted_bytes - measured) / measured;
  return v;
}

// The band of each train and infer row, its own source left out, and their coverage.
void memory_bands(const Catalog& catalog, MemoryReport& report) {
  std::vector<BandedRow> banded;
  for (auto& v : report.rows) {
    if (v.mode != "train" && v.mode != "infer") continue;
    v.band = error_band(catalog.accuracy.memory, v.family, v.ground, v.source);
    if (v.band.rows > 0) {
      v.measured_range = memory_range_bytes(v.predicted_bytes, v.band);
      v.in_band =
          v.measured_bytes >= v.measured_range.low && v.measured_bytes <= v.measured_range.high;
    }
    banded.push_back({v.source, v.family, v.measured_bytes, v.measured_range.low,
                      v.measured_range.high, v.band.rows > 0, v.error});
  }
  report.coverage = band_coverage(banded);
}

}  // namespace

bool is_memory_csv(std::string_view text) {
  const auto lines = content_lines(text);
  return !lines.empty() && memory_columns(lines.front().text) > 0;
}

Result<MemoryReport> validate_memory_csv(const Catalog& catalog, std::string_view text,
                                         const std::string& where) {
  if (auto err = check_csv_text(text, where)) return *err;
  const auto lines = content_lines(text);
  const size_t columns = lines.empty() ? 0 : memory_columns(lines.front().text);
  if (columns == 0) {
    return make_error(Errc::schema_error, where + ": header must be '" +
                                              std::string(kMemoryHeader) +
                                              "' (then ',pytorch' and ',source')");
  }
  MemoryReport report;
  double sum = 0;
  for (size_t k = 1; k < lines.size(); ++k) {
    const std::string at = where + ":" + std::to_string(lines[k].number);
    auto fields = split_csv(lines[k].text, at);
    if (!fields.ok()) {
      report.skipped.emplace_back(first_field(lines[k].text), fields.error().message);
      continue;
    }
    auto v = predict_memory_row(catalog, fields.value(), columns, at);
    if (!v.ok()) {
      report.skipped.emplace_back(fields.value().empty() ? "" : fields.value()[0],
                                  v.error().message);
      continue;
    }
    sum += std::fabs(v.value().error);
    report.rows.push_back(std::move(v).value());
  }
  if (report.rows.empty()) {
    return make_error(Errc::schema_error, report.skipped.empty()
                                              ? where + ": no data rows"
                                              : where + ": no row could be predicted (first: " +
                                                    report.skipped.front().first + ": " +
                                                    report.skipped.front().second + ")");
  }
  report.mape = sum / static_cast<double>(report.rows.size());
  memory_bands(catalog, report);
  return report;
}

}  // namespace gpuplan
