#include "gpuplan/accuracy.h"

#include <algorithm>

#include "gpuplan/catalog.h"
#include "gpuplan/precision.h"
#include "catalog/json_reader.h"

namespace gpuplan {
namespace {

constexpr int kAccuracySchemaVersion = 1;

// The family's parts, in the order nearest_band drops them.
std::vector<std::string> split_family(const std::string& family) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= family.size()) {
    const size_t slash = std::min(family.find('/', start), family.size());
    parts.push_back(family.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

const ErrorBand* find_band(const std::vector<ErrorBand>& bands, const std::string& family) {
  for (const auto& b : bands) {
    if (b.family == family && b.rows > 0) return &b;
  }
  return nullptr;
}

// The pooled band of every family whose name starts with `prefix` (one kind, or kind and
// precision): the widest low and high of them, rows summed, MAPE weighted by rows.
std::optional<ErrorBand> pooled_band(const std::vector<ErrorBand>& bands,
                                     const std::string& prefix) {
  ErrorBand out;
  double weighted = 0;
  for (const auto& b : bands) {
    if (b.rows == 0 || b.family.compare(0, prefix.size(), prefix) != 0) continue;
    out.low = out.rows == 0 ? b.low : std::min(out.low, b.low);
    out.high = out.rows == 0 ? b.high : std::max(out.high, b.high);
    out.rows += b.rows;
    weighted += b.mape * b.rows;
  }
  if (out.rows == 0) return std::nullopt;
  out.family = prefix.substr(0, prefix.size() - 1) + "/*";
  out.mape = weighted / out.rows;
  return out;
}

Result<std::vector<ErrorBand>> read_bands(JsonReader& r, const char* key) {
  std::vector<ErrorBand> out;
  const nlohmann::json* list = r.value(key, true);
  if (!list) return out;
  if (!list->is_array())
    return make_error(Errc::schema_error, r.where() + ": " + key + ": expected an array");
  for (size_t i = 0; i < list->size(); ++i) {
    JsonReader b((*list)[i], r.where(), std::string(key) + "[" + std::to_string(i) + "]");
    ErrorBand band;
    band.family = b.string("family", std::nullopt);
    band.rows = static_cast<int>(b.integer("rows", std::nullopt, 0, 1'000'000));
    band.low = b.number("error_p10", std::nullopt, -0.99, 100.0);
    band.high = b.number("error_p90", std::nullopt, -0.99, 100.0);
    band.mape = b.number("mape", std::nullopt, 0.0, 100.0);
    if (auto err = b.finish()) return *err;
    if (band.low > band.high) {
      return make_error(Errc::schema_error, r.where() + ": " + key + "[" + std::to_string(i) +
                                                "]: error_p10 is above error_p90");
    }
    out.push_back(band);
  }
  return out;
}

}  // namespace

std::string accuracy_family(const Model& model, const Setup& setup) {
  std::string kind = "cnn";
  if (model.kind == ModelKind::transformer) {
    kind = model.transformer.is_vision() || model.task == "masked-lm" ||
                   model.transformer.head == HeadKind::classifier ||
                   model.task == "question-answering"
               ? "encoder"
               : "decoder";
  }
  const char* precision = setup.precision == Precision::fp32 || setup.precision == Precision::tf32
                              ? "fp32"
                          : is_low_precision(setup.precision) ? "fp8"
                                                              : "16-bit";
  const char* parallel = setup.tp > 1 || setup.pp > 1            ? "model-parallel"
                         : setup.dp > 1 && setup.zero_stage >= 3 ? "sharded"
                         : setup.dp > 1                          ? "data-parallel"
                                                                 : "single";
  return kind + "/" + precision + "/" + parallel;
}

ErrorBand nearest_band(const std::vector<ErrorBand>& bands, const std::string& family) {
  if (const ErrorBand* exact = find_band(bands, family)) return *exact;
  const auto parts = split_family(family);
  if (parts.size() == 3) {
    for (const std::string& prefix : {parts[0] + "/" + parts[1] + "/", parts[0] + "/"}) {
      if (auto pooled = pooled_band(bands, prefix)) return *pooled;
    }
  }
  if (const ErrorBand* all = find_band(bands, "all")) return *all;
  ErrorBand none;
  none.family = family;
  return none;
}

Range time_range_s(double predicted_s, const ErrorBand& band) {
  // Throughput errors e = predicted / measured - 1 on rates, so measured time = t x (1 + e).
  return {predicted_s, predicted_s * (1 + band.low), predicted_s * (1 + band.high)};
}

Range measured_range(double predicted, const ErrorBand& band) {
  return {predicted, predicted / (1 + band.high), predicted / (1 + band.low)};
}

Range memory_range_bytes(double predicted_bytes, const ErrorBand& band) {
  return measured_range(predicted_bytes, band);
}

const char* fit_name(Fit fit) {
  switch (fit) {
    case Fit::fits:
      return "fits";
    case Fit::tight:
      return "tight";
    case Fit::does_not_fit:
      return "does not fit";
  }
  return "?";
}

FitVerdict fit_verdict(double predicted_bytes, double capacity_bytes,
                       const ErrorBand& memory_band) {
  FitVerdict v;
  v.memory_bytes = memory_range_bytes(predicted_bytes, memory_band);
  v.capacity_bytes = capacity_bytes;
  v.margin_bytes = capacity_bytes - predicted_bytes;
  v.band = memory_band;
  const double high = std::max(v.memory_bytes.high, predicted_bytes);
  const double low = std::min(v.memory_bytes.low, predicted_bytes);
  v.fit = high <= capacity_bytes ? Fit::fits
          : low > capacity_bytes ? Fit::does_not_fit
                                 : Fit::tight;
  return v;
}

Result<AccuracyTable> parse_accuracy_json(std::string_view text, const std::string& where) {
  auto doc = parse_json_text(text, where, kMaxJsonBytes);
  if (!doc.ok()) return doc.error();
  JsonReader r(doc.value(), where);
  if (auto err = check_schema_version(r, kAccuracySchemaVersion)) return *err;
  r.choice("kind", {"accuracy"}, std::nullopt);
  r.ignore("note");
  r.ignore("source");
  AccuracyTable t;
  t.generated = r.string("generated", std::nullopt);
  auto time = read_bands(r, "time");
  if (!time.ok()) return time.error();
  auto memory = read_bands(r, "memory");
  if (!memory.ok()) return memory.error();
  if (auto err = r.finish()) return *err;
  t.time = std::move(time).value();
  t.memory = std::move(memory).value();
  return t;
}

}  // namespace gpuplan
