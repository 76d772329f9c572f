// gpuplan validate FILE.csv [--json]: predict each measured row (throughput, or peak memory when
// the file has the memory header) and report the errors and MAPE.
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "gpuplan/report.h"
#include "gpuplan/serve_validation.h"
#include "gpuplan/validation.h"

namespace gpuplan::cli {
namespace {

// A measured peak-memory file (tools/convert_hf_memory.py's format).
int validate_memory(const std::string& path, const std::string& text, bool json) {
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  auto report = validate_memory_csv(catalog.value(), text, path);
  if (!report.ok()) return fail(report.error());
  const auto& rep = report.value();
  if (json) {
    nlohmann::ordered_json out = {{"schema_version", kQuerySchemaVersion}};
    out["kind"] = "memory";
    out["mape"] = rep.mape;
    out["rows"] = nlohmann::ordered_json::array();
    for (const auto& v : rep.rows) {
      out["rows"].push_back({{"id", v.id},
                             {"model", v.model},
                             {"mode", v.mode},
                             {"measured_bytes", v.measured_bytes},
                             {"predicted_bytes", v.predicted_bytes},
                             {"error", v.error},
                             {"family", v.family}});
    }
    out["skipped"] = nlohmann::ordered_json::array();
    for (const auto& [id, why] : rep.skipped)
      out["skipped"].push_back({{"id", id}, {"reason", why}});
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%-8s %-16s %-8s %14s %14s %8s\n", "id", "model", "mode", "measured", "predicted",
              "error");
  for (const auto& v : rep.rows) {
    std::printf("%-8s %-16s %-8s %14s %14s %+7.1f%%\n", v.id.c_str(), v.model.c_str(),
                v.mode.c_str(), format_bytes(v.measured_bytes).c_str(),
                format_bytes(v.predicted_bytes).c_str(), 100 * v.error);
  }
  for (const auto& [id, why] : rep.skipped)
    std::printf("%-8s skipped: %s\n", id.c_str(), why.c_str());
  std::printf("memory MAPE %.1f%% over %zu rows\n", 100 * rep.mape, rep.rows.size());
  return 0;
}

}  // namespace

int cmd_validate(Args args) {
  const bool json = take_flag(args, "json");
  const std::string path = take(args, "file");
  if (path.empty()) return usage_error("validate: FILE.csv is required");
  if (!args.empty()) return usage_error("validate: unknown option --" + args.front().first);
  auto read = read_bounded_file(path, kMaxCsvBytes);
  if (!read.ok()) return fail(read.error());
  const std::string& text = read.value();
  if (is_memory_csv(text)) return validate_memory(path, text, json);
  if (is_serving_csv(text)) return validate_serving_file(path, text, json);
  // A malformed row is reported and skipped; the others are still scored.
  auto rows = parse_measured_csv(text, path, RowErrors::skip);
  if (!rows.ok()) return fail(rows.error());
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  auto report = validate_measurements(catalog.value(), rows.value(), catalog.value().efficiencies);
  if (!report.ok()) return fail(report.error());
  const auto& rep = report.value();
  if (json) {
    nlohmann::ordered_json out = {{"schema_version", kQuerySchemaVersion}};
    out["mape"] = rep.mape;
    out["rows"] = nlohmann::ordered_json::array();
    for (const auto& v : rep.rows) {
      out["rows"].push_back({{"id", v.row.id},
                             {"model", v.row.model},
                             {"gpu", v.row.gpu},
                             {"metric", v.row.metric},
                             {"measured", v.row.value},
                             {"predicted", v.predicted},
                             {"error", v.error},
                             {"fits", v.fits},
                             {"fit", fit_name(v.fit)},
                             {"family", v.family}});
    }
    out["skipped"] = nlohmann::ordered_json::array();
    for (const auto& k : rep.skipped) {
      out["skipped"].push_back(
          {{"id", k.row.id}, {"model", k.row.model}, {"gpu", k.row.gpu}, {"reason", k.reason}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%-8s %-14s %-18s %4s %-9s %6s %22s %12s %12s %8s\n", "id", "model", "gpu", "gpus",
              "precision", "batch", "metric", "measured", "predicted", "error");
  for (const auto& v : rep.rows) {
    std::printf("%-8s %-14s %-18s %4d %-9s %6lld %22s %12.4g %12.4g %+7.1f%%%s\n", v.row.id.c_str(),
                v.row.model.c_str(), v.row.gpu.c_str(), v.row.num_gpus, v.row.precision.c_str(),
                static_cast<long long>(v.row.batch_size_per_gpu), v.row.metric.c_str(), v.row.value,
                v.predicted, 100 * v.error,
                v.fit == Fit::fits ? "" : (std::string("  (") + fit_name(v.fit) + ")").c_str());
  }
  for (const auto& k : rep.skipped) {
    std::printf("%-8s skipped: %s\n", k.row.id.c_str(), k.reason.c_str());
  }
  std::printf("MAPE %.1f%% over %zu rows", 100 * rep.mape, rep.rows.size());
  if (!rep.skipped.empty())
    std::printf(" (%zu rows skipped: gpuplan cannot predict them)", rep.skipped.size());
  std::printf("\n");
  return 0;
}

}  // namespace gpuplan::cli
