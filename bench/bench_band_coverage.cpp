// Band coverage (issue 28): for every tests/validation/*.csv with a source column (or the files
// given), each row's 80 % error band computed from the other sources' runs (gpuplan/accuracy.h),
// and the share of measured values inside it per source, per family and overall, beside MAPE.
// Step-time rows of every file are pooled per source; peak-memory and serving rows apart. A
// source with at least 20 rows is held to 70-90 % (the nominal 80 % band should cover about 80 %).
#include <algorithm>
#include <filesystem>
#include <map>

#include "bench_util.h"
#include "gpuplan/serve_validation.h"
#include "gpuplan/validation.h"

namespace {

constexpr int kJudgedRows = 20;
constexpr double kLowestCoverage = 0.70, kHighestCoverage = 0.90;

struct Kind {
  const char* name;
  std::vector<gpuplan::BandedRow> rows;
};

void add_throughput(const gpuplan::Catalog& c, const std::string& path, Kind& out) {
  auto rows = gpuplan::parse_measured_csv(bench::read(path), path, gpuplan::RowErrors::skip);
  if (!rows.ok()) return (void)std::printf("%s\n", rows.error().message.c_str());
  auto rep = gpuplan::validate_measurements(c, rows.value(), c.efficiencies);
  if (!rep.ok()) return (void)std::printf("%s\n", rep.error().message.c_str());
  for (const auto& v : rep.value().rows) {
    if (v.row.metric == "mfu") continue;  // the same run as its tokens/s row
    out.rows.push_back({v.row.source, v.family, v.row.value, v.measured_range.low,
                        v.measured_range.high, v.band.rows > 0, v.error});
  }
}

void add_memory(const gpuplan::Catalog& c, const std::string& path, Kind& out) {
  auto rep = gpuplan::validate_memory_csv(c, bench::read(path), path);
  if (!rep.ok()) return (void)std::printf("%s\n", rep.error().message.c_str());
  for (const auto& v : rep.value().rows) {
    if (v.mode != "train" && v.mode != "infer") continue;
    out.rows.push_back({v.source, v.family, v.measured_bytes, v.measured_range.low,
                        v.measured_range.high, v.band.rows > 0, v.error});
  }
}

void add_serving(const gpuplan::Catalog& c, const std::string& path, Kind& out) {
  auto serving = gpuplan::serving_assumptions(gpuplan::embedded_data_files());
  if (!serving.ok()) return (void)std::printf("%s\n", serving.error().message.c_str());
  auto rep = gpuplan::validate_serving_csv(c, serving.value(), bench::read(path), path);
  if (!rep.ok()) return (void)std::printf("%s\n", rep.error().message.c_str());
  for (const auto& p : rep.value().rows) {
    if (p.source.empty()) continue;
    out.rows.push_back({p.source, p.group, p.row.value, p.measured_range.low, p.measured_range.high,
                        p.band.rows > 0, p.error});
  }
}

// Judged: sources with kJudgedRows rows or more, against 70-90 %. Returns how many missed.
int print(const Kind& k) {
  const gpuplan::BandCoverage c = gpuplan::band_coverage(k.rows);
  int missed = 0;
  auto line = [&](const char* what, const gpuplan::Coverage& g, bool judged) {
    const bool ok = g.share() >= kLowestCoverage && g.share() <= kHighestCoverage;
    if (judged && !ok) ++missed;
    std::printf("%-8s %-8s %-44s %4d rows  coverage %5.1f%%  MAPE %5.1f%%%s\n", k.name, what,
                g.key.c_str(), g.rows, 100 * g.share(), 100 * g.mape,
                judged ? (ok ? "  (70-90 %: ok)" : "  (70-90 %: MISSED)") : "");
  };
  for (const auto& g : c.by_source) line("source", g, g.rows >= kJudgedRows);
  for (const auto& g : c.by_family) line("family", g, false);
  if (c.overall.rows > 0) line("overall", c.overall, false);
  if (c.without_band > 0) std::printf("%-8s %d rows without a band\n", k.name, c.without_band);
  return missed;
}

// The first line that is not a # comment.
std::string header(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size() && text[pos] == '#') pos = text.find('\n', pos) + 1;
  return text.substr(pos, text.find('\n', pos) - pos);
}

}  // namespace

int main(int argc, char** argv) {
  const gpuplan::Catalog c = bench::catalog();
  std::vector<std::string> paths(argv + 1, argv + argc);
  if (paths.empty()) {
    for (const auto& e : std::filesystem::directory_iterator("tests/validation")) {
      if (e.path().extension() == ".csv") paths.push_back(e.path().string());
    }
    std::sort(paths.begin(), paths.end());
  }
  Kind time{"time", {}}, memory{"memory", {}}, serving{"serving", {}};
  for (const auto& p : paths) {
    const std::string text = bench::read(p);
    const std::string head = header(text);
    if (head.find("source") == std::string::npos) {
      std::printf("%s: no source column, not scored\n", p.c_str());
    } else if (gpuplan::is_serving_csv(text)) {
      add_serving(c, p, serving);
    } else if (gpuplan::is_memory_csv(text)) {
      add_memory(c, p, memory);
    } else {
      add_throughput(c, p, time);
    }
  }
  int missed = 0;
  for (const Kind* k : {&time, &memory, &serving}) missed += print(*k);
  std::printf(
      "band coverage: %d sources with >= %d rows outside 70-90 %% of the nominal 80 %% band\n",
      missed, kJudgedRows);
  return 0;
}
