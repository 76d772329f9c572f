// gpuplan validate FILE.csv [--json]: predict each measured row (throughput, or peak memory when
// the file has the memory header) and report the errors and MAPE, each row's error band (from the
// other sources' runs, gpuplan/accuracy.h) and the band coverage per source, family and overall.
#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "gpuplan/report.h"
#include "gpuplan/serve_validation.h"
#include "gpuplan/validation.h"

namespace gpuplan::cli {

using ojson = nlohmann::ordered_json;

// A row's band in its own unit ("low", "high": the measured value's 10th-90th percentile
// range), the signed-error band it came from and the evidence it rests on.
ojson band_row_json(const ErrorBand& b, const Range& measured, bool inside) {
  if (b.rows == 0) return {{"stated", false}, {"reason", b.reason}};
  return {{"stated", true},
          {"low", measured.low},
          {"high", measured.high},
          {"inside", inside},
          {"error_p10", b.low},
          {"error_p90", b.high},
          {"pool", b.pool},
          {"rows", b.rows},
          {"sources", b.sources},
          {"evidence_runs", b.evidence_rows},
          {"evidence_sources", b.evidence_sources},
          {"outside", b.outside},
          {"reason", b.reason}};
}

ojson band_coverage_json(const BandCoverage& c) {
  auto one = [](const Coverage& k) {
    return ojson{{"key", k.key},
                 {"rows", k.rows},
                 {"inside", k.inside},
                 {"coverage", k.share()},
                 {"mape", k.mape}};
  };
  ojson out = {{"nominal", 0.8}, {"overall", one(c.overall)}, {"without_band", c.without_band}};
  out["by_source"] = ojson::array();
  for (const auto& k : c.by_source) out["by_source"].push_back(one(k));
  out["by_family"] = ojson::array();
  for (const auto& k : c.by_family) out["by_family"].push_back(one(k));
  return out;
}

void print_band_coverage(const BandCoverage& c) {
  auto line = [](const char* what, const Coverage& k) {
    std::printf("band coverage %-7s %-34s %5.1f%% (%d of %d inside the 80%% band), MAPE %.1f%%\n",
                what, k.key.c_str(), 100 * k.share(), k.inside, k.rows, 100 * k.mape);
  };
  for (const auto& k : c.by_source) line("source", k);
  for (const auto& k : c.by_family) line("family", k);
  if (c.overall.rows > 0) line("overall", c.overall);
  if (c.without_band > 0) {
    std::printf("%d rows have no band (fewer than 3 validated runs of other sources near them)\n",
                c.without_band);
  }
}

namespace {

std::string band_cell(const ErrorBand& b, const Range& r, bool inside, bool bytes) {
  if (b.rows == 0) return "no band";
  const std::string range = bytes ? format_bytes(r.low) + "-" + format_bytes(r.high) : [&] {
    char s[64];
    std::snprintf(s, sizeof s, "%.4g-%.4g", r.low, r.high);
    return std::string(s);
  }();
  return range + (inside ? " in" : " OUT");
}

// A measured peak-memory file (tools/convert_hf_memory.py's format).
int validate_memory(const std::string& path, const std::string& text, bool json) {
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  auto report = validate_memory_csv(catalog.value(), text, path);
  if (!report.ok()) return fail(report.error());
  const auto& rep = report.value();
  if (json) {
    ojson out = {{"schema_version", kQuerySchemaVersion}};
    out["kind"] = "memory";
    out["mape"] = rep.mape;
    out["rows"] = ojson::array();
    for (const auto& v : rep.rows) {
      out["rows"].push_back({{"id", v.id},
                             {"model", v.model},
                             {"mode", v.mode},
                             {"source", v.source},
                             {"measured_bytes", v.measured_bytes},
                             {"predicted_bytes", v.predicted_bytes},
                             {"error", v.error},
                             {"family", v.family},
                             {"ground", ground_json(v.ground)},
                             {"band", band_row_json(v.band, v.measured_range, v.in_band)}});
    }
    out["coverage"] = band_coverage_json(rep.coverage);
    out["skipped"] = ojson::array();
    for (const auto& [id, why] : rep.skipped)
      out["skipped"].push_back({{"id", id}, {"reason", why}});
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%-8s %-16s %-8s %14s %14s %8s  %s\n", "id", "model", "mode", "measured", "predicted",
              "error", "band (measured, 80%)");
  for (const auto& v : rep.rows) {
    std::printf("%-8s %-16s %-8s %14s %14s %+7.1f%%  %s\n", v.id.c_str(), v.model.c_str(),
                v.mode.c_str(), format_bytes(v.measured_bytes).c_str(),
                format_bytes(v.predicted_bytes).c_str(), 100 * v.error,
                band_cell(v.band, v.measured_range, v.in_band, true).c_str());
  }
  for (const auto& [id, why] : rep.skipped)
    std::printf("%-8s skipped: %s\n", id.c_str(), why.c_str());
  std::printf("memory MAPE %.1f%% over %zu rows\n", 100 * rep.mape, rep.rows.size());
  print_band_coverage(rep.coverage);
  return 0;
}

// The config.json files the rows name, read relative to the CSV's folder (keyed as written); a
// file that cannot be read is left out, and its rows are listed as skipped with that reason.
std::map<std::string, std::string> row_configs(const std::string& csv_path,
                                               const std::vector<MeasuredRow>& rows) {
  const size_t slash = csv_path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "" : csv_path.substr(0, slash + 1);
  std::map<std::string, std::string> configs;
  for (const auto& r : rows) {
    if (r.config_json.empty() || configs.count(r.config_json)) continue;
    auto text = read_bounded_file(folder + r.config_json, kMaxJsonBytes);
    if (text.ok()) configs.emplace(r.config_json, std::move(text).value());
  }
  return configs;
}

ojson throughput_json(const ValidationReport& rep) {
  ojson out = {{"schema_version", kQuerySchemaVersion}};
  out["mape"] = rep.mape;
  out["rows"] = ojson::array();
  for (const auto& v : rep.rows) {
    out["rows"].push_back({{"id", v.row.id},
                           {"model", v.row.model},
                           {"gpu", v.row.gpu},
                           {"metric", v.row.metric},
                           {"source", v.row.source},
                           {"measured", v.row.value},
                           {"predicted", v.predicted},
                           {"error", v.error},
                           {"fits", v.fits},
                           {"fit", fit_name(v.fit)},
                           {"family", v.family},
                           {"ground", ground_json(v.ground)},
                           {"band", band_row_json(v.band, v.measured_range, v.in_band)},
                           {"time", ojson::parse(step_time_to_json(v.time))}});
  }
  out["coverage"] = band_coverage_json(rep.coverage);
  out["skipped"] = ojson::array();
  for (const auto& k : rep.skipped) {
    out["skipped"].push_back(
        {{"id", k.row.id}, {"model", k.row.model}, {"gpu", k.row.gpu}, {"reason", k.reason}});
  }
  return out;
}

void print_throughput(const ValidationReport& rep) {
  std::printf("%-8s %-14s %-18s %4s %-9s %6s %22s %12s %12s %8s  %s\n", "id", "model", "gpu",
              "gpus", "precision", "batch", "metric", "measured", "predicted", "error",
              "band (measured, 80%)");
  for (const auto& v : rep.rows) {
    std::printf("%-8s %-14s %-18s %4d %-9s %6lld %22s %12.4g %12.4g %+7.1f%%  %s%s\n",
                v.row.id.c_str(), v.row.model.c_str(), v.row.gpu.c_str(), v.row.num_gpus,
                v.row.precision.c_str(), static_cast<long long>(v.row.batch_size_per_gpu),
                v.row.metric.c_str(), v.row.value, v.predicted, 100 * v.error,
                band_cell(v.band, v.measured_range, v.in_band, false).c_str(),
                v.fit == Fit::fits ? "" : (std::string("  (") + fit_name(v.fit) + ")").c_str());
  }
  for (const auto& k : rep.skipped) {
    std::printf("%-8s skipped: %s\n", k.row.id.c_str(), k.reason.c_str());
  }
  std::printf("MAPE %.1f%% over %zu rows", 100 * rep.mape, rep.rows.size());
  if (!rep.skipped.empty())
    std::printf(" (%zu rows skipped: gpuplan cannot predict them)", rep.skipped.size());
  std::printf("\n");
  print_band_coverage(rep.coverage);
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
  auto report = validate_measurements(catalog.value(), rows.value(), catalog.value().efficiencies,
                                      row_configs(path, rows.value()));
  if (!report.ok()) return fail(report.error());
  if (json) {
    std::printf("%s\n", throughput_json(report.value()).dump(2).c_str());
  } else {
    print_throughput(report.value());
  }
  return 0;
}

}  // namespace gpuplan::cli
