#include "gpuplan/accuracy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "gpuplan/catalog.h"
#include "gpuplan/precision.h"
#include "catalog/json_reader.h"

namespace gpuplan {
namespace {

constexpr int kAccuracySchemaVersion = 3;

// The nominal band: the 10th to the 90th percentile of the signed error (80 % of runs).
constexpr double kLowQuantile = 0.10;
constexpr double kHighQuantile = 0.90;
// z_{0.90}, the standard normal's 90th percentile, and Student's t_{0.90, df} for df = 1..30,
// 40, 60, 120: NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.2 (table of
// upper critical values of the t distribution, column 0.10), https://www.itl.nist.gov/div898/
// handbook/eda/section3/eda3672.htm.
constexpr double kZ90 = 1.282;
// The large-sample variance of a median is pi/2 times that of a mean (for normal errors).
constexpr double kHalfPi = 1.5707963267948966;
constexpr double kT90[] = {3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372,
                           1.363, 1.356, 1.350, 1.345, 1.341, 1.337, 1.333, 1.330, 1.328, 1.325,
                           1.323, 1.321, 1.319, 1.318, 1.316, 1.315, 1.314, 1.313, 1.311, 1.310};
struct TRow {
  int df;
  double t;
};
constexpr TRow kT90Large[] = {{40, 1.303}, {60, 1.296}, {120, 1.289}};

// t_{0.90, df}; between tabulated values the next lower df (the wider interval).
double t90(int df) {
  if (df < 1) df = 1;
  if (df <= 30) return kT90[df - 1];
  double t = kT90[29];
  for (const auto& r : kT90Large) {
    if (df >= r.df) t = r.t;
  }
  return df > 120 ? kZ90 + (1.289 - kZ90) * 120.0 / df : t;
}

// The family's parts: kind, precision, parallelism.
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

bool has_prefix(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

using Rows = std::vector<const AccuracyRow*>;

int count_sources(const Rows& rows) {
  std::set<std::string> s;
  for (const auto* r : rows) s.insert(r->source);
  return static_cast<int>(s.size());
}

// Weighted quantiles with every source weighing the same (each of its n rows 1/n): a new user
// is a new source, so a source with 200 rows must not outvote one with 12.
struct Weighted {
  std::vector<std::pair<double, double>> errors;  // (error, weight), sorted
  double total = 0;
  double effective_n = 0;  // Kish (1965), Survey Sampling: (sum w)^2 / sum w^2
};
Weighted source_weighted(const Rows& rows) {
  std::map<std::string, int> per_source;
  for (const auto* r : rows) ++per_source[r->source];
  Weighted w;
  double squares = 0;
  for (const auto* r : rows) {
    const double weight = 1.0 / per_source[r->source];
    w.errors.emplace_back(r->error, weight);
    w.total += weight;
    squares += weight * weight;
  }
  std::sort(w.errors.begin(), w.errors.end());
  w.effective_n = squares > 0 ? w.total * w.total / squares : 0;
  return w;
}
// The q quantile of the weighted errors: each error stands at the middle of its share of the
// cumulative weight, (cumulative - weight / 2) / total, and between two errors the quantile is
// interpolated (Hyndman & Fan (1996), The American Statistician 50:361, definition 5, with
// weights); below the first position the smallest error, above the last the largest.
double quantile(const Weighted& w, double q) {
  double cumulative = 0, last_p = 0, last_e = 0;
  for (size_t i = 0; i < w.errors.size(); ++i) {
    const auto& [e, weight] = w.errors[i];
    cumulative += weight;
    const double p = (cumulative - weight / 2) / w.total;
    if (q <= p) {
      if (i == 0 || p <= last_p) return e;
      return last_e + (e - last_e) * (q - last_p) / (p - last_p);
    }
    last_p = p;
    last_e = e;
  }
  return w.errors.back().first;
}

// The pool of step 1: the first level with enough rows and sources, else every row.
Rows choose_pool(const Rows& rows, const std::string& family, std::string& label) {
  const auto parts = split_family(family);
  std::vector<std::pair<std::string, std::string>> levels = {{family, family}};
  if (parts.size() == 3) {
    levels.emplace_back(parts[0] + "/" + parts[1] + "/", parts[0] + "/" + parts[1] + "/*");
    levels.emplace_back(parts[0] + "/", parts[0] + "/*");
  }
  for (const auto& [prefix, name] : levels) {
    Rows pool;
    for (const auto* r : rows) {
      if (prefix == family ? r->family == family : has_prefix(r->family, prefix)) pool.push_back(r);
    }
    if (static_cast<int>(pool.size()) >= kMinPoolRows && count_sources(pool) >= kMinPoolSources) {
      label = name;
      return pool;
    }
  }
  label = "all";
  return rows;
}

// The scale facet: powers of 8 GPUs (1, 2-8, 9-64, 65-512, ...).
std::string scale_bucket(int gpus) {
  int bucket = 0;
  for (double g = 1; g < gpus; g *= 8) ++bucket;
  return std::to_string(bucket);
}

std::string facet_value(const AccuracyRow& r, const std::string& facet) {
  if (facet == "kind") return r.ground.kind;
  if (facet == "precision") return r.ground.precision;
  if (facet == "parallel") return r.ground.parallel;
  if (facet == "arch") return r.ground.arch;
  if (facet == "runtime") return r.ground.runtime;
  return scale_bucket(r.ground.gpus);
}

}  // namespace

namespace {

const std::vector<std::string>& facets() {
  static const std::vector<std::string> names = {"kind", "precision", "parallel", "arch",
                                                 "runtime"};
  return names;
}

std::string ground_value(const RunGround& g, const std::string& facet) {
  if (facet == "kind") return g.kind;
  if (facet == "precision") return g.precision;
  if (facet == "parallel") return g.parallel;
  if (facet == "runtime") return g.runtime;
  if (facet == "scale") return scale_bucket(g.gpus);
  return g.arch;
}

// The validated rows nearest the ground: every facet equal, else the fewest facets relaxed (of
// those, the most rows). A facet the query leaves empty (no GPU: arch) is not compared.
struct GroundMatch {
  Rows rows;
  std::vector<std::string> relaxed;
};
GroundMatch nearest_ground(const Rows& rows, const RunGround& g) {
  std::vector<std::string> checked;
  for (const auto& f : facets()) {
    if (!ground_value(g, f).empty()) checked.push_back(f);
  }
  const size_t n = checked.size();
  for (size_t size = 0; size <= n; ++size) {
    GroundMatch best;
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
      size_t bits = 0;
      for (unsigned m = mask; m != 0; m >>= 1) bits += m & 1u;
      if (bits != size) continue;
      GroundMatch m;
      for (size_t i = 0; i < n; ++i) {
        if (mask & (1u << i)) m.relaxed.push_back(checked[i]);
      }
      for (const auto* r : rows) {
        const bool same = std::all_of(checked.begin(), checked.end(), [&](const std::string& f) {
          return std::find(m.relaxed.begin(), m.relaxed.end(), f) != m.relaxed.end() ||
                 facet_value(*r, f) == ground_value(g, f);
        });
        if (same) m.rows.push_back(r);
      }
      if (m.rows.size() > best.rows.size()) best = std::move(m);
    }
    if (!best.rows.empty()) return best;
  }
  return {rows, checked};
}

// The source-balanced variance of the errors of `w` about their weighted mean.
double weighted_variance(const Weighted& w) {
  double mean = 0, sum = 0;
  for (const auto& [e, weight] : w.errors) mean += e * weight / w.total;
  for (const auto& [e, weight] : w.errors) sum += (e - mean) * (e - mean) * weight / w.total;
  return sum;
}

// How much the error moves between the validated values of `facet` (the groups of `rows`): the
// variance of the groups' source-balanced medians less what sampling alone puts there, each
// median varying by pi/2 s^2 / n (n: the group's effective size), the method of moments of
// DerSimonian & Laird (1986), Controlled Clinical Trials 7:177; and at least that sampling
// variance: a value no run validated is not known better than a validated one's median.
// Negative: fewer than two groups (not estimable). Of the model kinds, one of another kind than
// the prediction's own (`own`) counts only with kMinKindRuns runs: a kind newly validated by a
// run or two (hybrid: one) gives no median to speak of (a band needs three), and its lone far run
// would widen every other kind's band; the prediction's own kind counts whatever its runs, as
// the only evidence on it.
constexpr size_t kMinKindRuns = 3;
double between_variance(const Rows& rows, const std::string& facet, const std::string& own) {
  std::map<std::string, Rows> groups;
  for (const auto* r : rows) groups[facet_value(*r, facet)].push_back(r);
  for (auto it = groups.begin(); it != groups.end();) {
    const bool thin = facet == "kind" && it->second.size() < kMinKindRuns && it->first != own;
    it = thin ? groups.erase(it) : std::next(it);
  }
  if (groups.size() < 2) return -1;
  const double pooled = weighted_variance(source_weighted(rows));
  std::vector<double> medians;
  double sampling = 0;
  for (const auto& [value, group] : groups) {
    const Weighted w = source_weighted(group);
    medians.push_back(quantile(w, 0.5));
    const double s2 = group.size() >= 2 ? weighted_variance(w) : pooled;
    sampling += kHalfPi * s2 / std::max(w.effective_n, 1.0) / static_cast<double>(groups.size());
  }
  double mean = 0;
  for (double m : medians) mean += m / static_cast<double>(medians.size());
  double sum = 0;
  for (double m : medians) sum += (m - mean) * (m - mean);
  return std::max(sum / static_cast<double>(medians.size() - 1) - sampling, sampling);
}

std::string facet_phrase(const RunGround& g, const std::string& facet) {
  if (facet == "kind") return "a " + g.kind + " model";
  if (facet == "precision") return g.precision;
  if (facet == "parallel")
    return g.parallel == "single" ? "a single GPU" : g.parallel + " parallelism";
  if (facet == "runtime") return "the " + g.runtime + " runtime";
  const bool vowel = !g.arch.empty() && std::string("AEIOU").find(g.arch[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + g.arch + " GPU";
}

// "a, b or c"
std::string join_or(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return out;
}

// Why the band was widened, in words: the facet values no validated run used (also listed in
// b.never_validated), else the combination none used; more GPUs than any; one source.
std::string widen_reason(ErrorBand& b, const RunGround& g, const Rows& all) {
  std::vector<std::string> never, why;
  bool combination = false;
  for (const auto& f : b.outside) {
    if (f == "scale" || f == "sources") continue;
    const bool seen = std::any_of(all.begin(), all.end(), [&](const AccuracyRow* r) {
      return facet_value(*r, f) == ground_value(g, f);
    });
    if (seen) {
      combination = true;
    } else {
      never.push_back(facet_phrase(g, f));
      b.never_validated.push_back(f);
    }
  }
  if (!never.empty()) {
    why.push_back("no validated run used " + join_or(never));
  } else if (combination) {
    std::string text = "no validated " + g.kind + " run used " + g.precision + " with " +
                       (g.parallel == "single" ? "no parallelism" : g.parallel);
    if (!g.arch.empty()) text += " on " + g.arch;
    if (!g.runtime.empty()) text += " under " + g.runtime;
    why.push_back(text);
  }
  for (const auto& f : b.outside) {
    if (f == "scale") {
      const int most = b.evidence_max_gpus;
      why.push_back("no validated run of this kind used more than " + std::to_string(most) +
                    (most == 1 ? " GPU" : " GPUs") + " (this one: " + std::to_string(g.gpus) + ")");
    } else if (f == "sources") {
      why.push_back("the band rests on one source");
    }
  }
  std::string out;
  for (const auto& w : why) out += (out.empty() ? "" : "; ") + w;
  return out.empty() ? out : out + ": band widened";
}

// Evidence and the facets outside the ground (b.evidence_*, b.outside).
GroundMatch find_evidence(ErrorBand& b, const Rows& all, const RunGround& g) {
  GroundMatch m = nearest_ground(all, g);
  if (m.relaxed.empty()) {
    b.evidence_rows = static_cast<int>(m.rows.size());
    b.evidence_sources = count_sources(m.rows);
  }
  for (const auto* r : m.rows) b.evidence_max_gpus = std::max(b.evidence_max_gpus, r->ground.gpus);
  b.outside = m.relaxed;
  if (g.gpus > b.evidence_max_gpus) b.outside.push_back("scale");
  return m;
}

// Steps 3 and 4 of error_band on a pool whose percentiles are set.
void widen(ErrorBand& b, const Rows& pool, const Rows& all, const RunGround& g, double center,
           double effective_n) {
  const double n = std::max(effective_n, 1.0);
  // Hahn, Meeker & Escobar (2017), Statistical Intervals, 2nd ed., sec. 4.4: a normal
  // prediction interval for one future value is mean +- t_{1-a/2, n-1} s sqrt(1 + 1/n).
  const double k = t90(static_cast<int>(std::floor(n + 1e-9)) - 1) * std::sqrt(1 + 1 / n) / kZ90;
  const double below = k * (center - b.pool_low), above = k * (b.pool_high - center);
  // Higgins, Thompson & Spiegelhalter (2009), J. R. Stat. Soc. A 172:137: the prediction
  // interval for a new study adds the between-study variance tau^2 to the within-study one.
  // Unknown (one source, or one validated value of a facet): as large as the band's own.
  const double own = std::pow((below + above) / (2 * kZ90), 2);
  double tau2 = 0;
  for (const auto& f : b.outside) {
    double v = f == "sources" ? own : between_variance(pool, f, ground_value(g, f));
    if (v < 0) v = between_variance(all, f, ground_value(g, f));
    tau2 += v < 0 ? own : v;
  }
  const double extra = kZ90 * kZ90 * tau2;
  b.low = center - std::sqrt(below * below + extra);
  b.high = center + std::sqrt(above * above + extra);
}

}  // namespace

ErrorBand error_band(const std::vector<AccuracyRow>& rows, const std::string& family,
                     const RunGround& ground, const std::string& held_out_source) {
  ErrorBand b;
  b.family = family;
  Rows all;
  for (const auto& r : rows) {
    if (held_out_source.empty() || r.source != held_out_source) all.push_back(&r);
  }
  find_evidence(b, all, ground);
  const Rows pool = choose_pool(all, family, b.pool);
  if (pool.size() < 3) {  // no spread to speak of: no band
    b.outside.clear();
    b.reason = "fewer than 3 validated runs: no band";
    return b;
  }
  b.rows = static_cast<int>(pool.size());
  b.sources = count_sources(pool);
  if (b.sources < kMinPoolSources) b.outside.push_back("sources");
  const Weighted w = source_weighted(pool);
  b.pool_low = quantile(w, kLowQuantile);
  b.pool_high = quantile(w, kHighQuantile);
  for (const auto* r : pool) b.mape += std::fabs(r->error) / static_cast<double>(pool.size());
  widen(b, pool, all, ground, quantile(w, 0.5), w.effective_n);
  b.reason = widen_reason(b, ground, all);
  return b;
}

std::string model_kind(const Model& model) {
  if (model.kind != ModelKind::transformer) return "cnn";
  const TransformerSpec& s = model.transformer;
  if (s.is_vision() || model.task == "masked-lm" || s.head == HeadKind::classifier ||
      model.task == "question-answering")
    return "encoder";
  if (s.is_hybrid_linear()) return "hybrid";
  return s.is_moe() ? "moe" : "decoder";
}

std::string accuracy_family(const Model& model, const Setup& setup) {
  const std::string kind = model_kind(model);
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

namespace {
// The precision facet: what runs on different units. fp16 and bf16 share the tensor cores'
// rate (and every recipe of them, pure, autocast or mixed, is "16-bit"); TF32 runs on tensor
// cores, FP32 on the CUDA cores.
const char* ground_precision(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
    case Precision::bf16:
    case Precision::amp_fp16:
    case Precision::amp_bf16:
    case Precision::mixed_fp16:
    case Precision::mixed_bf16:
      return "16-bit";
    case Precision::fp8:
    case Precision::fp8_blockwise:
    case Precision::mxfp8:
      return "fp8";
    case Precision::nvfp4:
      return "fp4";
  }
  return "?";
}
}  // namespace

RunGround run_ground(const Model& model, const Setup& setup, const Gpu* gpu, int gpus) {
  RunGround g;
  g.kind = split_family(accuracy_family(model, setup)).front();
  g.precision = ground_precision(setup.precision);
  for (const auto& [name, size] :
       {std::pair<const char*, int>{"dp", setup.dp}, {"tp", setup.tp}, {"pp", setup.pp}}) {
    if (size > 1) g.parallel += (g.parallel.empty() ? "" : "+") + std::string(name);
  }
  if (g.parallel.empty()) g.parallel = "single";
  if (gpu) g.arch = gpu->architecture.substr(0, gpu->architecture.find(' '));
  g.gpus = std::max(1, gpus);
  return g;
}

std::string evidence_line(const ErrorBand& band, const RunGround& g) {
  std::string kind = g.kind + ", " + g.precision + ", " + g.parallel;
  if (!g.arch.empty()) kind += ", " + g.arch;
  if (!g.runtime.empty()) kind += ", " + g.runtime;
  std::string out;
  if (band.evidence_rows > 0) {
    out = "rests on " + std::to_string(band.evidence_rows) + " validated runs of this kind (" +
          kind + ", up to " + std::to_string(band.evidence_max_gpus) + " GPUs) from " +
          std::to_string(band.evidence_sources) +
          (band.evidence_sources == 1 ? " source" : " sources");
  } else {
    out = "no validated run of this kind (" + kind + ")";
  }
  if (band.rows > 0) {
    out += "; band from " + std::to_string(band.rows) + " runs of " + std::to_string(band.sources) +
           (band.sources == 1 ? " source" : " sources") + " (" + band.pool + ")";
  }
  return out;
}

Range time_range_s(double predicted_s, const ErrorBand& band) {
  // Throughput errors e = predicted / measured - 1 on rates, so measured time = t x (1 + e).
  // A band widened past -99 % is held there (a time is never zero or negative).
  return {predicted_s, predicted_s * (1 + std::max(band.low, -0.99)),
          predicted_s * (1 + band.high)};
}

Range measured_range(double predicted, const ErrorBand& band) {
  // A band widened past -99 % is held there (it would put the measured value at infinity).
  const double low_error = std::max(band.low, -0.99);
  return {predicted, predicted / (1 + band.high), predicted / (1 + low_error)};
}

Range memory_range_bytes(double predicted_bytes, const ErrorBand& band) {
  return measured_range(predicted_bytes, band);
}

BandCoverage band_coverage(const std::vector<BandedRow>& rows) {
  std::map<std::string, Coverage> sources, families;
  BandCoverage out;
  out.overall.key = "all";
  for (const auto& r : rows) {
    if (!r.has_band) {
      ++out.without_band;
      continue;
    }
    const bool inside = r.measured >= r.low && r.measured <= r.high;
    for (Coverage* c : {&sources[r.source], &families[r.family], &out.overall}) {
      c->rows += 1;
      c->inside += inside ? 1 : 0;
      c->mape += std::fabs(r.error);
    }
  }
  auto finish = [](std::map<std::string, Coverage>& m, std::vector<Coverage>& v) {
    for (auto& [key, c] : m) {
      c.key = key;
      v.push_back(c);
    }
  };
  finish(sources, out.by_source);
  finish(families, out.by_family);
  for (auto* list : {&out.by_source, &out.by_family}) {
    for (auto& c : *list) c.mape /= c.rows;
  }
  if (out.overall.rows > 0) out.overall.mape /= out.overall.rows;
  return out;
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

std::string source_key(std::string_view citation) {
  const size_t space = citation.find(' ');
  const std::string_view head = citation.substr(0, space);
  if (head.rfind("https://", 0) == 0 || head.rfind("http://", 0) == 0) {
    const std::string_view rest = head.substr(head.find("//") + 2);
    return std::string(rest.substr(0, rest.find('/')));
  }
  std::string_view repo = head.substr(0, head.find('@'));
  if (const size_t slash = repo.find('/'); slash != std::string_view::npos)
    repo = repo.substr(slash + 1);
  // The document: the first token after the head that looks like a path to a file.
  std::string_view path;
  for (size_t pos = space; pos != std::string_view::npos && pos < citation.size();) {
    const size_t start = pos + 1;
    const size_t end = std::min(citation.find_first_of(" ,", start), citation.size());
    const std::string_view token = citation.substr(start, end - start);
    if (token.find('.') != std::string_view::npos && token.find('(') == std::string_view::npos &&
        (token.find('/') != std::string_view::npos || token.rfind("README", 0) == 0)) {
      path = token;
      break;
    }
    pos = end < citation.size() ? end : std::string_view::npos;
  }
  if (path.empty()) return std::string(repo);
  const size_t slash = path.rfind('/');
  std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::string_view stem = file.substr(0, file.rfind('.'));
  if (stem == "README" || stem == "readme") {
    if (slash == std::string_view::npos) return std::string(repo);
    const std::string_view folder = path.substr(0, slash);
    stem = folder.substr(folder.rfind('/') == std::string_view::npos ? 0 : folder.rfind('/') + 1);
  }
  return std::string(repo) + "/" + std::string(stem);
}

namespace {

Result<std::vector<AccuracyRow>> read_rows(JsonReader& r, const char* key) {
  std::vector<AccuracyRow> out;
  const nlohmann::json* list = r.value(key, true);
  if (!list) return out;
  if (!list->is_array())
    return make_error(Errc::schema_error, r.where() + ": " + key + ": expected an array");
  for (size_t i = 0; i < list->size(); ++i) {
    JsonReader b((*list)[i], r.where(), std::string(key) + "[" + std::to_string(i) + "]");
    AccuracyRow row;
    row.id = b.string("id", std::nullopt);
    row.source = b.string("source", std::nullopt);
    row.family = b.string("family", std::nullopt);
    row.ground.kind = b.string("kind", std::nullopt);
    row.ground.precision = b.string("precision", std::nullopt);
    row.ground.parallel = b.string("parallel", std::nullopt);
    row.ground.arch = b.string("arch", std::nullopt);
    row.ground.gpus = static_cast<int>(b.integer("gpus", std::nullopt, 1, 1'000'000));
    row.ground.runtime = b.string("runtime", "");
    row.error = b.number("error", std::nullopt, -0.99, 100.0);
    if (auto err = b.finish()) return *err;
    if (row.source.empty()) {
      return make_error(Errc::schema_error,
                        r.where() + ": " + key + "[" + std::to_string(i) + "]: source is empty");
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

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
  auto time = read_rows(r, "time");
  if (!time.ok()) return time.error();
  auto memory = read_rows(r, "memory");
  if (!memory.ok()) return memory.error();
  auto serving = read_rows(r, "serving");
  if (!serving.ok()) return serving.error();
  if (auto err = r.finish()) return *err;
  t.time = std::move(time).value();
  t.memory = std::move(memory).value();
  t.serving = std::move(serving).value();
  return t;
}

}  // namespace gpuplan
