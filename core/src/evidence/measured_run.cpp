// Measured model runs (gpuplan-measure payloads) and measured-vs-predicted (see
// gpuplan/measured_run.h).
#include "gpuplan/measured_run.h"

#include <cmath>
#include <cstdio>

#include "catalog/json_reader.h"

namespace gpuplan {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr size_t kMaxPayloadBytes = 1024 * 1024;
constexpr size_t kMaxKindProbeBytes =
    8 * 1024 * 1024;  // kMaxProbeFileBytes: any payload of the family
constexpr int64_t kMaxBytes = int64_t(1) << 56;
constexpr double kMaxStepS = 1e6;

// A field that may be null: nullopt for null or absent-with-error (which `r` keeps).
const json* nullable(JsonReader& r, const char* key) {
  const json* v = r.value(key, true);
  return v && !v->is_null() ? v : nullptr;
}
std::optional<std::string> opt_string(JsonReader& r, const char* key) {
  const json* v = nullable(r, key);
  if (!v) return std::nullopt;
  if (!v->is_string())
    r.fail(r.name(key) + ": expected a string or null, got " + JsonReader::type_of(*v));
  return v->is_string() ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
}
std::optional<int64_t> opt_integer(JsonReader& r, const char* key, int64_t max) {
  if (!nullable(r, key)) return std::nullopt;
  return r.integer(key, std::nullopt, 0, max);
}
std::optional<double> opt_number(JsonReader& r, const char* key, double max) {
  if (!nullable(r, key)) return std::nullopt;
  return r.number(key, std::nullopt, 0, max);
}
std::vector<std::string> strings(JsonReader& r, const char* key) {
  std::vector<std::string> out;
  const json* a = r.value(key, true);
  if (!a) return out;
  for (size_t i = 0; a->is_array() && i < a->size(); ++i) {
    if (!(*a)[i].is_string()) {
      r.fail(std::string(key) + "[" + std::to_string(i) + "]: expected a string");
      break;
    }
    out.push_back((*a)[i].get<std::string>());
  }
  if (!a->is_array())
    r.fail(std::string(key) + ": expected an array of strings, got " + JsonReader::type_of(*a));
  return out;
}

void read_device(JsonReader& parent, const std::string& where, MeasuredRun& m) {
  const json* j = parent.object("device", true);
  if (!j) return;
  JsonReader r(*j, where, "device");
  m.device_type = r.choice("type", {"cuda", "cpu"}, std::nullopt) == 0 ? "cuda" : "cpu";
  m.device_name = r.string("name", std::nullopt);
  m.device_count = r.integer("count", std::nullopt, 0, 1'000'000);
  m.device_memory_bytes = opt_integer(r, "memory_bytes", kMaxBytes);
  r.value("sm_count", true);
  r.value("compute_capability", true);
  m.sm_clock_max_mhz = opt_number(r, "sm_clock_max_mhz", 1e5);
  m.memory_clock_max_mhz = opt_number(r, "memory_clock_max_mhz", 1e5);
  m.driver_version = opt_string(r, "driver_version");
  m.cuda_runtime = opt_string(r, "cuda_runtime");
  if (auto e = r.finish()) parent.fail_with(*e);
}

void read_setup(JsonReader& parent, const std::string& where, MeasuredRun& m) {
  const json* j = parent.object("setup", true);
  if (!j) return;
  JsonReader r(*j, where, "setup");
  m.world_size = r.integer("world_size", std::nullopt, 1, 1'000'000);
  r.integer("rank", std::nullopt, 0, 1'000'000);
  m.batch_per_step = opt_integer(r, "batch_per_step", 100'000'000);
  opt_string(r, "batch_source");
  m.param_dtype = r.string("param_dtype", std::nullopt);
  m.autocast_dtype = opt_string(r, "autocast_dtype");
  m.parameters = opt_integer(r, "parameters", int64_t(1) << 50);
  if (auto e = r.finish()) parent.fail_with(*e);
}

void read_timing(JsonReader& parent, const std::string& where, MeasuredRun& m) {
  const json* j = parent.object("timing", true);
  if (!j) return;
  JsonReader r(*j, where, "timing");
  m.cuda_synchronised = r.boolean("cuda_synchronised", std::nullopt);
  m.warmup_steps = r.integer("warmup_steps", std::nullopt, 0, 1'000'000);
  m.steps = r.integer("steps", std::nullopt, 1, 1'000'000);
  if (const json* s = r.object("step_s", true)) {
    JsonReader t(*s, where, "timing.step_s");
    m.step.median_s = t.number("median", std::nullopt, 0, kMaxStepS);
    m.step.mean_s = t.number("mean", std::nullopt, 0, kMaxStepS);
    m.step.min_s = t.number("min", std::nullopt, 0, kMaxStepS);
    m.step.max_s = t.number("max", std::nullopt, 0, kMaxStepS);
    if (!t.error() && !(m.step.min_s <= m.step.median_s && m.step.median_s <= m.step.max_s &&
                        m.step.median_s > 0)) {
      t.fail("timing.step_s: expected 0 < min <= median <= max");
    }
    if (auto e = t.finish()) r.fail_with(*e);
  }
  m.samples_per_s = opt_number(r, "samples_per_s", 1e15);
  if (auto e = r.finish()) parent.fail_with(*e);
}

void read_memory(JsonReader& parent, const std::string& where, MeasuredRun& m) {
  const json* j = parent.object("memory", true);
  if (!j) return;
  JsonReader r(*j, where, "memory");
  m.peak_allocated_bytes = opt_integer(r, "peak_allocated_bytes", kMaxBytes);
  m.peak_reserved_bytes = opt_integer(r, "peak_reserved_bytes", kMaxBytes);
  m.memory_absent_reason = opt_string(r, "absent_reason");
  // Absent memory figures must say why, so a CPU run cannot be read as "used no memory".
  if (!r.error() && (!m.peak_allocated_bytes || !m.peak_reserved_bytes) &&
      !m.memory_absent_reason) {
    r.fail("memory.absent_reason: required when a peak is null (say why it was not measured)");
  }
  if (auto e = r.finish()) parent.fail_with(*e);
}

}  // namespace

std::string payload_kind(std::string_view payload) {
  // The depth-limited reader, as for every upload (a hostile file must not exhaust the stack).
  auto parsed = parse_json_text(payload, "payload", kMaxKindProbeBytes);
  if (!parsed.ok() || !parsed.value().is_object()) return "";
  auto it = parsed.value().find("kind");
  return it != parsed.value().end() && it->is_string() ? it->get<std::string>() : "";
}

Result<MeasuredRun> parse_measured_payload(std::string_view payload, const std::string& where) {
  auto parsed = parse_json_text(payload, where, kMaxPayloadBytes);
  if (!parsed.ok()) return parsed.error();
  JsonReader r(parsed.value(), where);
  if (r.error()) return *r.error();
  if (auto e = check_schema_version(r, kMeasuredSchemaVersion)) return *e;
  MeasuredRun m;
  const std::string kind = r.string("kind", std::nullopt);
  if (!r.error() && kind != kMeasuredKind)
    r.fail("kind: '" + kind + "' is not '" + kMeasuredKind + "'");
  if (const json* tool = r.object("tool", true)) {
    JsonReader t(*tool, where, "tool");
    m.tool_name = t.string("name", std::nullopt);
    m.tool_version = t.string("version", std::nullopt);
    if (auto e = t.finish()) r.fail_with(*e);
  }
  m.started_utc = r.string("started_utc", std::nullopt);
  m.finished_utc = r.string("finished_utc", std::nullopt);
  strings(r, "arguments");
  r.object("host", true);
  read_device(r, where, m);
  read_setup(r, where, m);
  read_timing(r, where, m);
  read_memory(r, where, m);
  m.not_measured = strings(r, "not_measured");
  m.warnings = strings(r, "warnings");
  if (auto e = r.finish()) return *e;
  return m;
}

namespace {

// torch prints "NVIDIA H100 80GB HBM3"; the catalog lists such names as aliases.
bool names_gpu(const std::string& device, const Gpu& gpu) {
  if (device == gpu.name || device == gpu.id) return true;
  for (const auto& a : gpu.aliases) {
    if (device == a || device.find(a) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

MeasuredComparison compare_measured(const MeasuredRun& run, const StepTime& predicted,
                                    const Gpu& gpu, int64_t global_batch, int gpus) {
  MeasuredComparison c;
  c.measured_step_s = run.step.median_s;
  c.predicted_step_s = predicted.step_s;
  c.measured_samples_per_s = run.samples_per_s;
  c.predicted_samples_per_s = predicted.samples_per_s;
  // Samples/s compares runs whose batches differ; step time only the same batch.
  if (c.measured_samples_per_s && *c.measured_samples_per_s > 0) {
    c.error = (c.predicted_samples_per_s - *c.measured_samples_per_s) / *c.measured_samples_per_s;
  } else {
    c.error = (c.predicted_step_s - c.measured_step_s) / c.measured_step_s;
    c.notes.push_back(
        "the run did not record its batch, so step times are compared (give the batch to "
        "gpuplan-measure)");
  }
  if (run.device_type != "cuda") {
    c.notes.push_back("measured on the CPU (" + run.device_name +
                      "), not on a GPU: the figures are not comparable");
  } else if (!names_gpu(run.device_name, gpu)) {
    c.notes.push_back("measured on " + run.device_name + ", predicted for " + gpu.name);
  }
  if (run.world_size != gpus) {
    c.notes.push_back("measured with " + std::to_string(run.world_size) +
                      " process(es), predicted for " + std::to_string(gpus) + " GPU(s)");
  }
  if (run.batch_per_step && *run.batch_per_step * run.world_size != global_batch) {
    c.notes.push_back("measured batch " + std::to_string(*run.batch_per_step * run.world_size) +
                      " per step, predicted " + std::to_string(global_batch));
  }
  return c;
}

namespace {

std::string opt_text(const std::optional<std::string>& s) {
  return s ? *s : "not seen";
}

std::string bytes_text(const std::optional<int64_t>& b) {
  if (!b) return "not measured";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", double(*b) / 1e9);
  return buf;
}

}  // namespace

std::string measured_run_to_text(const MeasuredRun& m) {
  char buf[512];
  std::string s;
  std::snprintf(buf, sizeof buf, "  measured:   %s .. %s by %s %s (a model run)\n",
                m.started_utc.c_str(), m.finished_utc.c_str(), m.tool_name.c_str(),
                m.tool_version.c_str());
  s += buf;
  if (m.device_type == "cuda") {
    std::snprintf(buf, sizeof buf, "  device:     %lld x %s, driver %s, CUDA %s\n",
                  static_cast<long long>(m.device_count), m.device_name.c_str(),
                  opt_text(m.driver_version).c_str(), opt_text(m.cuda_runtime).c_str());
  } else {
    std::snprintf(buf, sizeof buf, "  device:     CPU (%s, %lld logical CPUs): no GPU was used\n",
                  m.device_name.c_str(), static_cast<long long>(m.device_count));
  }
  s += buf;
  std::snprintf(
      buf, sizeof buf,
      "  setup:      world size %lld, batch per step %s, %s parameters in %s, autocast %s\n",
      static_cast<long long>(m.world_size),
      m.batch_per_step ? std::to_string(*m.batch_per_step).c_str() : "not seen",
      m.parameters ? std::to_string(*m.parameters).c_str() : "unknown", m.param_dtype.c_str(),
      m.autocast_dtype ? m.autocast_dtype->c_str() : "none seen");
  s += buf;
  std::snprintf(
      buf, sizeof buf,
      "  step time:  median %.4g s (min %.4g, max %.4g) over %lld steps after %lld warm-up%s\n",
      m.step.median_s, m.step.min_s, m.step.max_s, static_cast<long long>(m.steps),
      static_cast<long long>(m.warmup_steps), m.cuda_synchronised ? ", CUDA-synchronised" : "");
  s += buf;
  if (m.samples_per_s) {
    std::snprintf(buf, sizeof buf, "  throughput: %.1f samples/s\n", *m.samples_per_s);
    s += buf;
  }
  s += "  memory:     peak allocated " + bytes_text(m.peak_allocated_bytes) + ", reserved " +
       bytes_text(m.peak_reserved_bytes) +
       (m.memory_absent_reason ? " (" + *m.memory_absent_reason + ")" : "") + "\n";
  for (const auto& w : m.warnings) s += "  warning:    " + w + "\n";
  return s;
}

std::string measured_run_to_json(const MeasuredRun& m, int indent) {
  auto opt = [](const auto& v) { return v ? ojson(*v) : ojson(nullptr); };
  ojson j;
  j["kind"] = kMeasuredKind;
  j["tool"] = m.tool_name + " " + m.tool_version;
  j["started_utc"] = m.started_utc;
  j["finished_utc"] = m.finished_utc;
  j["device"] = {{"type", m.device_type},
                 {"name", m.device_name},
                 {"count", m.device_count},
                 {"memory_bytes", opt(m.device_memory_bytes)},
                 {"driver_version", opt(m.driver_version)}};
  j["world_size"] = m.world_size;
  j["batch_per_step"] = opt(m.batch_per_step);
  j["param_dtype"] = m.param_dtype;
  j["autocast_dtype"] = opt(m.autocast_dtype);
  j["cuda_synchronised"] = m.cuda_synchronised;
  j["warmup_steps"] = m.warmup_steps;
  j["steps"] = m.steps;
  j["step_s"] = {{"median", m.step.median_s},
                 {"mean", m.step.mean_s},
                 {"min", m.step.min_s},
                 {"max", m.step.max_s}};
  j["samples_per_s"] = opt(m.samples_per_s);
  j["peak_allocated_bytes"] = opt(m.peak_allocated_bytes);
  j["peak_reserved_bytes"] = opt(m.peak_reserved_bytes);
  j["memory_absent_reason"] = opt(m.memory_absent_reason);
  j["warnings"] = m.warnings;
  return j.dump(indent);
}

std::string measured_comparison_to_text(const MeasuredComparison& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  step time:  measured %.4g s, predicted %.4g s\n",
                c.measured_step_s, c.predicted_step_s);
  std::string s = buf;
  if (c.measured_samples_per_s) {
    std::snprintf(buf, sizeof buf, "  samples/s:  measured %.1f, predicted %.1f\n",
                  *c.measured_samples_per_s, c.predicted_samples_per_s);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "  difference: %+.1f%% (predicted vs measured)\n", c.error * 100);
  s += buf;
  for (const auto& n : c.notes) s += "  note:       " + n + "\n";
  return s;
}

std::string measured_comparison_to_json(const MeasuredComparison& c, int indent) {
  ojson j;
  j["measured_step_s"] = c.measured_step_s;
  j["predicted_step_s"] = c.predicted_step_s;
  j["measured_samples_per_s"] =
      c.measured_samples_per_s ? ojson(*c.measured_samples_per_s) : ojson(nullptr);
  j["predicted_samples_per_s"] = c.predicted_samples_per_s;
  j["error"] = c.error;
  j["notes"] = c.notes;
  return j.dump(indent);
}

}  // namespace gpuplan
