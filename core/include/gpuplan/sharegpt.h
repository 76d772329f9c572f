#pragma once
// ShareGPT request lengths as the serving benchmarks sample them (vLLM's benchmark_serving.py /
// `vllm bench serve --dataset-name sharegpt`): the first human turn is the prompt, the reply's
// token count the output length, and a pair is dropped when either is under min_tokens, the
// prompt is over max_prompt_tokens or both together are over max_total_tokens. The published
// facts (the kept pairs' mean prompt and output tokens, the filter) live in data/assumptions.json
// "serving.sharegpt" with their sources. Implemented in core/src/serving/sharegpt.cpp.

#include <cstdint>
#include <random>
#include <string>
#include <utility>

#include "gpuplan/result.h"

namespace gpuplan {

// A dataset's published lengths and the benchmark's filter.
struct DatasetLengths {
  double prompt_mean_tokens = 0;  // mean prompt tokens of the pairs the filter keeps
  double output_mean_tokens = 0;  // mean output tokens of the pairs the filter keeps
  int64_t min_tokens = 0;         // a pair with a prompt or an output under this is dropped
  int64_t max_prompt_tokens = 0;  // a pair with a longer prompt is dropped
  int64_t max_total_tokens = 0;   // a pair with more prompt + output tokens is dropped
};

// The lengths drawn: prompt and output each min_tokens plus a geometric count (the
// maximum-entropy law on the integers for a given mean; only means are published), drawn
// independently, then filtered as the benchmark filters. The scales are solved so that the
// kept pairs' means are the published ones.
struct LengthSampler {
  DatasetLengths dataset;
  double prompt_scale = 0;  // mean of the geometric count before the filter, tokens
  double output_scale = 0;
  bool ready() const { return prompt_scale > 0 && output_scale > 0; }
};

// Solves the scales for `d`; an Error naming the field when a mean cannot be reached under the
// filter (e.g. a mean prompt above max_prompt_tokens).
Result<LengthSampler> make_length_sampler(const DatasetLengths& d);

// The kept pairs' exact statistics for a sampler (sums over the integers, no sampling).
struct LengthStats {
  double prompt_mean = 0, output_mean = 0;
  int64_t prompt_median = 0, output_median = 0;
  double kept_share = 0;  // the share of drawn pairs the filter keeps
};
LengthStats length_stats(const LengthSampler& s);

// One kept (prompt, output) pair, drawing and dropping pairs as the benchmark does.
std::pair<int64_t, int64_t> draw_lengths(const LengthSampler& s, std::mt19937_64& rng);

// Whether a dataset named in a published row ("ShareGPT", "sharegpt", "ShareGPT V3 ...") is
// ShareGPT: the word "sharegpt" in any case.
bool names_sharegpt(const std::string& dataset);

}  // namespace gpuplan
