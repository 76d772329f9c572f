// ShareGPT lengths as vLLM's benchmark samples them. The published facts are means of the kept
// pairs only (no quantiles were found published for the sampled requests), so each length is
// min_tokens plus a geometric count, the maximum-entropy law on the non-negative integers for a
// given mean, and the benchmark's filter is applied to the drawn pair as the benchmark applies it
// to the dataset's pairs (vllm-project/vllm benchmarks/benchmark_dataset.py, is_valid_sequence).
// The two scales are solved so that the kept pairs' exact means are the published ones: nothing
// here is fitted to a measured throughput.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <vector>

#include "gpuplan/sharegpt.h"

namespace gpuplan {
namespace {

// A geometric count of scale s: P(count = k) = (1 - q) q^k with q = exp(-1 / s), which is what
// floor(an exponential draw of mean s) gives. pow[k] = q^k for k up to the longest length.
struct Geometric {
  double q = 0;
  std::vector<double> pow;
  Geometric(double scale, int64_t longest) : q(std::exp(-1.0 / scale)) {
    pow.resize(static_cast<size_t>(longest + 2));
    double x = 1;
    for (double& v : pow) {
      v = x;
      x *= q;
    }
  }
  double pmf(int64_t k) const { return k < 0 ? 0 : (1 - q) * pow[static_cast<size_t>(k)]; }
  double cdf(int64_t k) const { return k < 0 ? 0 : 1 - pow[static_cast<size_t>(k + 1)]; }
};

// The median of weights w (indexed from `first`): the first length where half the mass is reached.
int64_t median_of(const std::vector<double>& w, int64_t first) {
  double z = 0;
  for (double x : w) z += x;
  double c = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    c += w[i];
    if (c >= 0.5 * z) return first + static_cast<int64_t>(i);
  }
  return first;
}

// The kept pairs' statistics by exact sums over prompt lengths p in [min, max_prompt] and output
// lengths o in [min, max_total - p]; the medians only when asked (the solver needs the means).
LengthStats stats_for(const DatasetLengths& d, double prompt_scale, double output_scale,
                      bool medians) {
  const int64_t m = d.min_tokens, t = d.max_total_tokens;
  const Geometric gp(prompt_scale, t), go(output_scale, t);
  const int64_t top_p = std::min(d.max_prompt_tokens, t - m);
  // Cumulative o x P(o), indexed by o - m.
  std::vector<double> out_sum(static_cast<size_t>(t - 2 * m + 1));
  double acc = 0;
  for (size_t i = 0; i < out_sum.size(); ++i) {
    acc += static_cast<double>(m + static_cast<int64_t>(i)) * go.pmf(static_cast<int64_t>(i));
    out_sum[i] = acc;
  }
  LengthStats s;
  double z = 0, sum_p = 0, sum_o = 0;
  std::vector<double> kept_p;
  for (int64_t p = m; p <= top_p; ++p) {
    const double w = gp.pmf(p - m) * go.cdf(t - p - m);
    if (medians) kept_p.push_back(w);
    z += w;
    sum_p += static_cast<double>(p) * w;
    sum_o += gp.pmf(p - m) * out_sum[static_cast<size_t>(t - p - m)];
  }
  if (!(z > 0)) return s;
  s.kept_share = z;
  s.prompt_mean = sum_p / z;
  s.output_mean = sum_o / z;
  if (!medians) return s;
  s.prompt_median = median_of(kept_p, m);
  // Outputs: P(o) x P(prompt in [min, min(max_prompt, total - o)]).
  std::vector<double> kept_o;
  for (int64_t o = m; o <= t - m; ++o)
    kept_o.push_back(go.pmf(o - m) * gp.cdf(std::min(d.max_prompt_tokens, t - o) - m));
  s.output_median = median_of(kept_o, m);
  return s;
}

constexpr double kMinScale = 1e-3, kMaxScale = 1e6;

// The scale (bisection in log space) whose statistic `f(scale)` reaches `target`; f increases.
template <class F>
double solve_scale(F f, double target) {
  double lo = std::log(kMinScale), hi = std::log(kMaxScale);
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (f(std::exp(mid)) < target ? lo : hi) = mid;
  }
  return std::exp((lo + hi) / 2);
}

std::optional<Error> check_filter(const DatasetLengths& d) {
  auto bad = [](const std::string& what) {
    return make_error(Errc::invalid_argument, "serving.sharegpt: " + what);
  };
  if (d.min_tokens < 1) return bad("min_tokens must be at least 1");
  if (d.max_prompt_tokens < d.min_tokens) return bad("max_prompt_tokens is under min_tokens");
  if (d.max_total_tokens < 2 * d.min_tokens) return bad("max_total_tokens is under 2 x min_tokens");
  return std::nullopt;
}

}  // namespace

Result<LengthSampler> make_length_sampler(const DatasetLengths& d) {
  if (auto err = check_filter(d)) return *err;
  // The means reachable under the filter: between min_tokens and the near-uniform limit.
  const LengthStats widest = stats_for(d, kMaxScale, kMaxScale, false);
  auto reach = [&](double mean, double limit, const char* name) -> std::optional<Error> {
    if (mean > static_cast<double>(d.min_tokens) && mean < limit) return std::nullopt;
    return make_error(Errc::invalid_argument,
                      std::string("serving.sharegpt.") + name + ": a mean of " +
                          std::to_string(mean) + " tokens cannot be drawn under the filter (it " +
                          "must be between min_tokens and " + std::to_string(limit) + ")");
  };
  if (auto err = reach(d.prompt_mean_tokens, widest.prompt_mean, "prompt_mean_tokens")) return *err;
  if (auto err = reach(d.output_mean_tokens, widest.output_mean, "output_mean_tokens")) return *err;
  LengthSampler s;
  s.dataset = d;
  // The prompt's scale for an output scale; then the output scale whose kept mean is published.
  auto prompt_scale_for = [&](double out_scale) {
    return solve_scale([&](double ps) { return stats_for(d, ps, out_scale, false).prompt_mean; },
                       d.prompt_mean_tokens);
  };
  s.output_scale = solve_scale(
      [&](double os) { return stats_for(d, prompt_scale_for(os), os, false).output_mean; },
      d.output_mean_tokens);
  s.prompt_scale = prompt_scale_for(s.output_scale);
  const LengthStats got = stats_for(d, s.prompt_scale, s.output_scale, false);
  if (std::fabs(got.prompt_mean - d.prompt_mean_tokens) > 0.01 ||
      std::fabs(got.output_mean - d.output_mean_tokens) > 0.01) {
    return make_error(Errc::invalid_argument,
                      "serving.sharegpt: the means " + std::to_string(d.prompt_mean_tokens) +
                          " and " + std::to_string(d.output_mean_tokens) +
                          " tokens cannot be drawn together under the filter");
  }
  return s;
}

LengthStats length_stats(const LengthSampler& s) {
  return stats_for(s.dataset, s.prompt_scale, s.output_scale, true);
}

std::pair<int64_t, int64_t> draw_lengths(const LengthSampler& s, std::mt19937_64& rng) {
  std::exponential_distribution<double> prompt(1.0 / s.prompt_scale), output(1.0 / s.output_scale);
  const DatasetLengths& d = s.dataset;
  for (;;) {
    const int64_t p = d.min_tokens + static_cast<int64_t>(std::floor(prompt(rng)));
    const int64_t o = d.min_tokens + static_cast<int64_t>(std::floor(output(rng)));
    if (p <= d.max_prompt_tokens && p + o <= d.max_total_tokens) return {p, o};
  }
}

bool names_sharegpt(const std::string& dataset) {
  std::string n;
  for (char c : dataset) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n.find("sharegpt") != std::string::npos;
}

}  // namespace gpuplan
