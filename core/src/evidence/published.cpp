// Published measurements: loading data/published, matching a query, predicting each row (see
// gpuplan/published.h).
#include "gpuplan/published.h"
#include "gpuplan/validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "catalog/json_reader.h"

namespace gpuplan {
namespace {

using nlohmann::json;

const std::vector<std::string> kTasks = {"train", "infer", "context", "weights"};
const std::vector<std::string> kMetrics = {"samples_per_s_total", "tokens_per_s_per_gpu", "mfu",
                                           "peak_memory_bytes"};
const std::vector<std::string> kPrecisions = {
    "fp32",       "tf32",       "fp16", "bf16",          "amp-fp16", "amp-bf16",
    "mixed-fp16", "mixed-bf16", "fp8",  "fp8-blockwise", "mxfp8",    "nvfp4"};
const std::vector<std::string> kOptimizers = {"sgd",       "sgd-momentum", "adam", "adamw",
                                              "adam-8bit", "adafactor",    "lamb"};
const std::vector<std::string> kCheckpointing = {"none", "selective", "op-selective", "full",
                                                 "every-k-layers"};
const std::vector<std::string> kMemoryFormats = {"auto", "nchw", "channels-last"};
constexpr int64_t kMaxBatch = 100'000'000;

PublishedSource read_source(JsonReader& parent, const std::string& where) {
  PublishedSource s;
  const json* j = parent.object("source", true);
  if (!j) return s;
  JsonReader r(*j, where, "source");
  s.repository = r.string("repository", std::nullopt);
  s.commit = r.string("commit", std::nullopt);
  s.path = r.string("path", std::nullopt);
  s.section = r.string("section", std::nullopt);
  s.url = r.string("url", std::nullopt);
  s.date = r.string("date", std::nullopt);
  if (!r.error() && s.url.rfind("https://", 0) != 0)
    r.fail("source.url: '" + s.url + "' is not an https:// link");
  const bool date_ok = s.date.size() == 10 && s.date[4] == '-' && s.date[7] == '-' &&
                       std::all_of(s.date.begin(), s.date.end(),
                                   [](char c) { return c == '-' || (c >= '0' && c <= '9'); });
  if (!r.error() && !date_ok) r.fail("source.date: '" + s.date + "' is not a date (YYYY-MM-DD)");
  if (!r.error() && (s.commit.size() != 40 ||
                     s.commit.find_first_not_of("0123456789abcdef") != std::string::npos)) {
    r.fail("source.commit: '" + s.commit + "' is not a full 40-digit commit hash");
  }
  if (auto e = r.finish()) parent.fail_with(*e);
  return s;
}

PublishedRow read_row(const json& j, const std::string& where, const std::string& path,
                      JsonReader& parent) {
  JsonReader r(j, where, path);
  PublishedRow row;
  row.id = r.string("id", std::nullopt);
  row.model = r.string("model", std::nullopt);
  row.gpu = r.string("gpu", std::nullopt);
  row.system = r.string("system", std::nullopt);
  row.num_gpus = static_cast<int>(r.integer("num_gpus", std::nullopt, 1, 100'000));
  row.task = kTasks[r.choice("task", kTasks, std::nullopt)];
  row.precision = *parse_precision(kPrecisions[r.choice("precision", kPrecisions, std::nullopt)]);
  if (r.has("optimizer"))
    row.optimizer = parse_optimizer(kOptimizers[r.choice("optimizer", kOptimizers, std::nullopt)]);
  row.micro_batch = r.integer("micro_batch", std::nullopt, 1, kMaxBatch);
  row.global_batch = r.integer("global_batch", std::nullopt, 1, kMaxBatch);
  row.seq_len = r.integer("seq_len", 0, 1, 10'000'000);
  row.resolution = r.integer("resolution", 0, 1, 100'000);
  row.zero_stage = static_cast<int>(r.integer("zero_stage", 0, 0, 3));
  row.checkpointing =
      *parse_checkpointing(kCheckpointing[r.choice("checkpointing", kCheckpointing, 0)]);
  row.memory_format =
      *parse_memory_format(kMemoryFormats[r.choice("memory_format", kMemoryFormats, 0)]);
  row.metric = kMetrics[r.choice("metric", kMetrics, std::nullopt)];
  row.value = r.number("value", std::nullopt, 0, 1e20);
  if (!r.error() && !(row.value > 0)) r.fail(path + ".value: must be greater than 0");
  if (r.has("mfu")) row.mfu = r.number("mfu", std::nullopt, 1e-9, 1);
  if (!r.error() && row.metric == "mfu" && row.value > 1)
    r.fail(path + ".value: an MFU is a fraction, at most 1");
  if (!r.error() && row.global_batch < row.micro_batch) {
    r.fail(path + ".global_batch: " + std::to_string(row.global_batch) + " is below micro_batch " +
           std::to_string(row.micro_batch));
  }
  row.notes = r.string("notes", std::nullopt);
  if (const json* setup = r.object("setup", false)) {
    for (const auto& [key, value] : setup->items()) {
      if (!value.is_string()) {
        r.fail(path + ".setup." + key + ": expected text, got " + JsonReader::type_of(value));
        break;
      }
      row.setup.emplace_back(key, value.get<std::string>());
    }
  }
  if (auto e = r.finish()) parent.fail_with(*e);
  return row;
}

// Reads `key` as an array of objects, calling `each(object, path)`.
template <class F>
void read_array(JsonReader& r, const char* key, F each) {
  const json* a = r.value(key, true);
  if (!a) return;
  if (!a->is_array()) {
    r.fail(std::string(key) + ": expected an array, got " + JsonReader::type_of(*a));
    return;
  }
  for (size_t i = 0; i < a->size() && !r.error(); ++i)
    each((*a)[i], std::string(key) + "[" + std::to_string(i) + "]");
}

std::string with_commas(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", std::round(x));
  std::string digits = buf, out;
  const size_t first = digits[0] == '-' ? 1 : 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > first && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string unit_of(const std::string& metric, bool image_model) {
  if (metric == "samples_per_s_total") return image_model ? "img/s" : "samples/s";
  if (metric == "tokens_per_s_per_gpu") return "tokens/s/GPU";
  if (metric == "mfu") return "MFU";
  return "bytes";
}

bool is_image_model(const Model& m) {
  return m.kind == ModelKind::graph || m.transformer.is_vision();
}

}  // namespace

Result<PublishedTable> parse_published_json(std::string_view text, const std::string& where) {
  auto parsed = parse_json_text(text, where, kMaxJsonBytes);
  if (!parsed.ok()) return parsed.error();
  JsonReader r(parsed.value(), where);
  if (r.error()) return *r.error();
  if (auto e = check_schema_version(r, kPublishedSchemaVersion)) return *e;
  PublishedTable t;
  t.id = r.string("id", std::nullopt);
  t.title = r.string("title", std::nullopt);
  t.publisher = r.string("publisher", std::nullopt);
  t.source = read_source(r, where);
  if (const json* c = r.value("caveats", true)) {
    for (size_t i = 0; c->is_array() && i < c->size(); ++i) {
      if ((*c)[i].is_string())
        t.caveats.push_back((*c)[i].get<std::string>());
      else
        r.fail("caveats[" + std::to_string(i) + "]: expected a string");
    }
    if (!c->is_array())
      r.fail("caveats: expected an array of strings, got " + JsonReader::type_of(*c));
  }
  read_array(r, "rows", [&](const json& j, const std::string& path) {
    t.rows.push_back(read_row(j, where, path, r));
  });
  read_array(r, "left_out", [&](const json& j, const std::string& path) {
    JsonReader o(j, where, path);
    std::string id = o.string("id", std::nullopt), reason = o.string("reason", std::nullopt);
    if (auto e = o.finish()) r.fail_with(*e);
    t.left_out.emplace_back(std::move(id), std::move(reason));
  });
  if (!r.error() && t.rows.empty())
    r.fail("rows: empty (a table with no row gpuplan can describe is not written)");
  if (auto e = r.finish()) return *e;
  return t;
}

Result<std::vector<PublishedTable>> load_published(const std::vector<DataFile>& files,
                                                   const Catalog& catalog) {
  std::vector<PublishedTable> out;
  std::set<std::string> row_ids;
  const std::string prefix = "published/";
  for (const auto& f : files) {
    if (f.path.rfind(prefix, 0) != 0) continue;
    auto t = parse_published_json(f.text, f.path);
    if (!t.ok()) return t.error();
    const std::string stem = f.path.substr(prefix.size(), f.path.size() - prefix.size() - 5);
    if (t.value().id != stem) {
      return make_error(Errc::schema_error,
                        f.path + ": id '" + t.value().id + "' is not the file name '" + stem + "'");
    }
    for (size_t i = 0; i < t.value().rows.size(); ++i) {
      const PublishedRow& row = t.value().rows[i];
      const std::string at = f.path + ": rows[" + std::to_string(i) + "]";
      if (!row_ids.insert(row.id).second) {
        return make_error(Errc::schema_error,
                          at + ".id: '" + row.id + "' is also the id of a row in another table");
      }
      if (!catalog.find_gpu(row.gpu)) {
        return make_error(Errc::schema_error, at + ".gpu: '" + row.gpu + "' is not in data/gpus");
      }
    }
    out.push_back(std::move(t).value());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

PublishedQuery published_query(const Model& model, const Gpu& gpu, const Setup& setup,
                               const Estimate& e) {
  PublishedQuery q;
  q.model = model.id;
  q.gpu = gpu.id;
  q.mode = setup.mode;
  q.precision = setup.precision;
  q.checkpointing = setup.checkpointing;
  q.micro_batch = e.micro_batch;
  q.seq_len = e.seq_len;
  q.resolution = e.resolution;
  q.num_gpus = e.num_gpus;
  return q;
}

namespace {
// The source key of a table's document (gpuplan/accuracy.h), as the validation CSVs name it.
std::string table_source(const PublishedTable& t) {
  return source_key(t.source.repository + " " + t.source.path);
}
}  // namespace

std::vector<PublishedRun> match_published(const std::vector<PublishedTable>& tables,
                                          const PublishedQuery& q) {
  std::vector<PublishedRun> out;
  for (const auto& t : tables) {
    for (const auto& r : t.rows) {
      const bool task_ok = (r.task == "train" && q.mode == Mode::train) ||
                           (r.task == "infer" && q.mode == Mode::infer);
      const bool shape_ok = (r.seq_len == 0 || r.seq_len == q.seq_len) &&
                            (r.resolution == 0 || r.resolution == q.resolution);
      const double batch_off =
          std::fabs(double(q.micro_batch) - double(r.micro_batch)) / double(r.micro_batch);
      if (r.model == q.model && r.gpu == q.gpu && r.precision == q.precision && task_ok &&
          shape_ok && r.checkpointing == q.checkpointing && r.num_gpus == q.num_gpus &&
          batch_off <= kPublishedBatchTolerance) {
        out.push_back({r, t.id, t.publisher, t.source.url, t.source.date, table_source(t)});
      }
    }
  }
  return out;
}

std::optional<double> predicted_metric(const PublishedRow& row, const Estimate& e,
                                       const StepTime* time) {
  if (row.metric == "peak_memory_bytes") {
    if (row.task == "context") return e.memory.context;
    if (row.task == "weights") return e.memory.weights + e.memory.context;
    return e.memory.total();
  }
  if (!time) return std::nullopt;
  if (row.metric == "samples_per_s_total") return time->samples_per_s;
  if (row.metric == "tokens_per_s_per_gpu") return time->tokens_per_s / row.num_gpus;
  return time->mfu;
}

namespace {

// The setup a row states, as a gpuplan Setup.
Setup row_setup(const PublishedRow& row, const Model& model) {
  Setup s;
  s.mode = row.task == "train" ? Mode::train : Mode::infer;
  s.precision = row.precision;
  if (row.optimizer) s.optimizer = *row.optimizer;
  s.dp = row.num_gpus;
  s.micro_batch = row.micro_batch;
  s.global_batch = row.global_batch;
  s.zero_stage = row.zero_stage;
  s.checkpointing = row.checkpointing;
  s.memory_format = row.memory_format;
  if (is_image_model(model))
    s.resolution = row.resolution;
  else
    s.seq_len = row.seq_len;
  return s;
}

// Largest GPU count predicted as one box: the tables' systems are 8-GPU DGX/HGX nodes. Above it a
// run spans nodes, and is predicted only where its setup states the nodes' size and network
// (gpus_per_node, network_gbps_per_node).
constexpr int kMaxGpusOneNode = 8;

// A throughput row as a validation-table row, so that the Benchmarks page, `gpuplan published`
// and `gpuplan validate` predict a run from the same setup through the same code.
Result<MeasuredRow> measured_row(const PublishedRow& row, bool images) {
  MeasuredRow m;
  m.id = row.id;
  m.model = row.model;
  m.gpu = row.gpu;
  m.num_gpus = row.num_gpus;
  m.precision = precision_name(row.precision);
  m.batch_size_per_gpu = row.micro_batch;
  m.seq_len_or_resolution = images ? row.resolution : row.seq_len;
  m.task = row.task;
  m.metric = row.metric;
  m.value = row.value;
  m.memory_format = row.memory_format;
  m.options = {{"batch", std::to_string(row.global_batch)},
               {"checkpointing", checkpointing_name(row.checkpointing)}};
  if (row.zero_stage > 0) m.options.emplace_back("zero", std::to_string(row.zero_stage));
  if (row.optimizer) m.options.emplace_back("optimizer", optimizer_name(*row.optimizer));
  for (const auto& [key, value] : row.setup) {
    if (auto err = set_optional_column(m, key, value, row.id + ".setup")) return *err;
  }
  return m;
}

// Predicts a throughput or MFU row as `gpuplan validate` does.
void predict_throughput(const Catalog& catalog, const Model& model, PublishedComparison& c) {
  const PublishedRow& row = c.run.row;
  const bool images = is_image_model(model);
  if ((images ? row.resolution : row.seq_len) == 0) {
    c.reason = "the table does not state the input size";
    return;
  }
  auto m = measured_row(row, images);
  if (!m.ok()) {
    c.reason = m.error().message;
    return;
  }
  if (row.num_gpus > kMaxGpusOneNode && m.value().gpus_per_node == 0) {
    c.reason = "runs on " + std::to_string(row.num_gpus) +
               " GPUs over several nodes; the table does not state the nodes' "
               "size and network";
    return;
  }
  m.value().source = c.run.source;
  auto report = validate_measurements(catalog, {m.value()}, catalog.efficiencies);
  if (!report.ok()) {
    c.reason = report.error().message;
    return;
  }
  const ValidatedRow& v = report.value().rows.front();
  c.predicted = v.predicted;
  c.error = v.error;
  if (v.band.rows > 0) c.predicted_range = v.measured_range;
}

PublishedComparison predict_row(const Catalog& catalog, const PublishedRun& run) {
  PublishedComparison c;
  c.run = run;
  const PublishedRow& row = run.row;
  const Model* model = catalog.find_model(row.model);
  c.unit = unit_of(row.metric, model && is_image_model(*model));
  if (!model) {
    c.reason = "model '" + row.model + "' is not in the gpuplan zoo";
    return c;
  }
  if (!catalog.find_gpu(row.gpu)) {
    c.reason = "GPU '" + row.gpu + "' is not in the catalog";
    return c;
  }
  if (row.metric != "peak_memory_bytes") {
    predict_throughput(catalog, *model, c);
    return c;
  }
  const Setup setup = row_setup(row, *model);
  auto e = estimate(*model, setup);
  if (!e.ok()) {
    c.reason = e.error().message;
    return c;
  }
  c = compare_run(run, *model, e.value(), nullptr);
  const ErrorBand band =
      error_band(catalog.accuracy.memory, accuracy_family(*model, setup),
                 run_ground(*model, setup, catalog.find_gpu(row.gpu), row.num_gpus), c.run.source);
  if (c.predicted && band.rows > 0) c.predicted_range = memory_range_bytes(*c.predicted, band);
  return c;
}

}  // namespace

PublishedComparison compare_run(const PublishedRun& run, const Model& model, const Estimate& e,
                                const StepTime* time) {
  PublishedComparison c;
  c.run = run;
  c.unit = unit_of(run.row.metric, is_image_model(model));
  c.predicted = predicted_metric(run.row, e, time);
  if (!c.predicted)
    c.reason = "no step time (give --gpu to predict throughput)";
  else
    c.error = (*c.predicted - run.row.value) / run.row.value;
  return c;
}

std::vector<PublishedComparison> compare_published(const Catalog& catalog,
                                                   const std::vector<PublishedTable>& tables) {
  std::vector<PublishedComparison> out;
  for (const auto& t : tables) {
    for (const auto& r : t.rows)
      out.push_back(predict_row(
          catalog, {r, t.id, t.publisher, t.source.url, t.source.date, table_source(t)}));
  }
  return out;
}

std::string format_published_value(const PublishedComparison& c, double value) {
  char buf[64];
  if (c.unit == "MFU") {
    std::snprintf(buf, sizeof buf, "%.1f%% MFU", value * 100);
    return buf;
  }
  if (c.unit == "bytes") {
    std::snprintf(buf, sizeof buf, "%.2f GB", value / 1e9);
    return buf;
  }
  if (value < 100) {  // "9.4 samples/s", not "9"
    std::snprintf(buf, sizeof buf, "%.3g %s", value, c.unit.c_str());
    return buf;
  }
  return with_commas(value) + " " + c.unit;
}

std::string published_line(const PublishedComparison& c) {
  const PublishedRow& r = c.run.row;
  std::string s = "measured: " + format_published_value(c, r.value) + " (" + c.run.publisher +
                  ", " + r.system + ", " + std::to_string(r.num_gpus) + " x " + r.gpu + "; " +
                  c.run.url + ")";
  if (c.predicted) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%+.1f%%", c.error * 100);
    s += "; predicted " + format_published_value(c, *c.predicted) + " (" + pct + ")";
  } else {
    s += "; not predicted: " + c.reason;
  }
  return s;
}

std::string published_comparison_json(const PublishedComparison& c, int indent) {
  const PublishedRow& r = c.run.row;
  nlohmann::ordered_json j;
  j["id"] = r.id;
  j["table"] = c.run.table;
  j["model"] = r.model;
  j["gpu"] = r.gpu;
  j["num_gpus"] = r.num_gpus;
  j["system"] = r.system;
  j["task"] = r.task;
  j["precision"] = precision_name(r.precision);
  j["micro_batch"] = r.micro_batch;
  j["global_batch"] = r.global_batch;
  j["seq_len"] =
      r.seq_len > 0 ? nlohmann::ordered_json(r.seq_len) : nlohmann::ordered_json(nullptr);
  j["resolution"] =
      r.resolution > 0 ? nlohmann::ordered_json(r.resolution) : nlohmann::ordered_json(nullptr);
  j["metric"] = r.metric;
  j["unit"] = c.unit;
  j["measured"] = r.value;
  j["predicted"] =
      c.predicted ? nlohmann::ordered_json(*c.predicted) : nlohmann::ordered_json(nullptr);
  j["error"] = c.predicted ? nlohmann::ordered_json(c.error) : nlohmann::ordered_json(nullptr);
  // The measured value's likely range given the prediction and its family's error band.
  j["predicted_low"] = c.predicted_range ? nlohmann::ordered_json(c.predicted_range->low)
                                         : nlohmann::ordered_json(nullptr);
  j["predicted_high"] = c.predicted_range ? nlohmann::ordered_json(c.predicted_range->high)
                                          : nlohmann::ordered_json(nullptr);
  j["not_predicted"] =
      c.reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.reason);
  j["publisher"] = c.run.publisher;
  j["source_url"] = c.run.url;
  j["source_date"] = c.run.date;
  j["text"] = published_line(c);
  return j.dump(indent);
}

}  // namespace gpuplan
