// The validation CSV (tests/validation/*.csv, `gpuplan validate`): parse_measured_csv, then the
// predictions of its first rows: finite, non-negative, and errors that name the row. Text fields
// must be writable as JSON (valid UTF-8).
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "gpuplan/validation.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The CLI's lenient mode: malformed rows come back with a problem that names them.
  auto lenient = parse_measured_csv(text, "fuzz.csv", RowErrors::skip);
  if (lenient.ok()) {
    for (const auto& r : lenient.value()) {
      if (!r.problem.empty())
        FUZZ_CHECK(r.problem.rfind("fuzz.csv:", 0) == 0 && fuzz::json_writable({r.id, r.problem}));
    }
  } else {
    fuzz::check_error(lenient.error());
  }
  // The peak-memory format, on the same bytes: scored rows are finite, skipped ones say why.
  auto memory = validate_memory_csv(fuzz::catalog(), text, "fuzz.csv");
  if (memory.ok()) {
    FUZZ_CHECK(!memory.value().rows.empty() && fuzz::finite_nonneg(memory.value().mape));
    for (const auto& v : memory.value().rows)
      FUZZ_CHECK(fuzz::finite_nonneg(v.predicted_bytes) && std::isfinite(v.error));
    for (const auto& k : memory.value().skipped)
      FUZZ_CHECK(!k.second.empty() && fuzz::json_writable({k.first, k.second}));
  } else {
    fuzz::check_error(memory.error());
  }
  auto rows = parse_measured_csv(text, "fuzz.csv");
  if (!rows.ok()) {
    fuzz::check_error(rows.error());
    return 0;
  }
  std::vector<MeasuredRow> first;
  for (const auto& r : rows.value()) {
    FUZZ_CHECK(r.num_gpus >= 1 && r.batch_size_per_gpu >= 1 && r.seq_len_or_resolution >= 1);
    FUZZ_CHECK(r.value > 0 && std::isfinite(r.value));
    FUZZ_CHECK(r.line >= 2);
    // `gpuplan validate --json` writes these back out.
    FUZZ_CHECK(fuzz::json_writable({r.id, r.model, r.gpu, r.precision, r.task, r.metric}));
    if (first.size() < 4) first.push_back(r);
  }
  const Catalog& cat = fuzz::catalog();
  auto report = validate_measurements(cat, first, cat.efficiencies);
  if (!report.ok()) {
    fuzz::check_error(report.error());
    FUZZ_CHECK(report.error().message.rfind("row ", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(report.value().rows.size() + report.value().skipped.size() == first.size());
  FUZZ_CHECK(!report.value().rows.empty() || first.empty());  // an error when no row predicts
  for (const auto& k : report.value().skipped) FUZZ_CHECK(!k.reason.empty());
  FUZZ_CHECK(fuzz::finite_nonneg(report.value().mape));
  for (const auto& v : report.value().rows) {
    FUZZ_CHECK(fuzz::finite_nonneg(v.predicted));
    FUZZ_CHECK(std::isfinite(v.error));
  }
  return 0;
}
