#pragma once
// A seeded discrete-event simulation of one replica under continuous batching with chunked
// prefill (TTFT/TPOT percentiles at a request rate), and the highest rate that meets a latency
// target. Implemented in core/src/serving/serve_sim.cpp.

#include <cstdint>
#include <string>

#include "gpuplan/result.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/sharegpt.h"

namespace gpuplan {

// Request lengths: fixed, or drawn as vLLM's benchmark samples ShareGPT (gpuplan/sharegpt.h).
enum class LengthDistribution { fixed, sharegpt };
struct ServeWorkload {
  double rate_per_s = 1;        // Poisson arrival rate; <= 0 or infinite: all at time 0 (burst)
  double prompt_tokens = 1000;  // mean
  double output_tokens = 200;   // mean
  LengthDistribution lengths = LengthDistribution::fixed;
  // With lengths sharegpt: the solved distribution (use_dataset_lengths sets it and the means).
  LengthSampler sampler;
  int requests = 2000;  // simulated requests (bounded for speed)
  uint64_t seed = 1;
  // Automatic prefix caching (vLLM) / RadixAttention (SGLang): the share of each prompt's tokens
  // whose keys and values are found in the cache. Those are not computed again; the prompt's
  // other tokens still attend to them.
  double prefix_hit_rate = 0;
  // Clients that keep at most `concurrency` requests in flight (vLLM's `bench serve
  // --max-concurrency`): a request is sent at its arrival or, when `concurrency` are in flight,
  // as soon as one of them finishes, and its TTFT counts from then. 0: no limit.
  int concurrency = 0;
};
// Draws the workload's lengths from `sampler` (ShareGPT's, from ServingAssumptions::sharegpt):
// lengths becomes sharegpt and prompt_tokens / output_tokens the kept pairs' means, which the
// plan's per-request figures (prefill of a mean prompt, cost per output token) use.
void use_dataset_lengths(ServeWorkload& w, const LengthSampler& sampler);
// The prompt tokens found in the prefix cache: hit_rate x prompt, rounded, at most prompt - 1
// (the last prompt token is always computed: it samples the first output token, as vLLM does).
double cached_prompt_tokens(double prompt_tokens, double hit_rate);
struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};
// The percentile a target holds at (50, 90 or 99): p99 from 99 up, p90 from 90, else p50.
double at_percentile(const Percentiles& p, double percentile);
struct SimulationResult {
  Percentiles ttft_s;
  Percentiles tpot_s;  // per request: (end - first token) / (output - 1)
  Percentiles itl_s;   // every gap between a sequence's successive tokens (vLLM's ITL), by token
  double output_tokens_per_s = 0;  // over the whole run
  double requests_per_s = 0;
  double mean_running = 0;  // sequences in the batch, time-averaged
  int64_t max_running = 0;
  bool saturated = false;  // the queue grew through the run (rate above capacity)
  int64_t steps = 0;
};
Result<SimulationResult> simulate(const ReplicaModel& r, const ServeWorkload& w);

// Latency targets (0: none) and the percentile they apply to.
struct Slo {
  double ttft_s = 0;
  double tpot_s = 0;
  double percentile = 90;  // 50, 90 or 99
};
bool meets_slo(const SimulationResult& s, const Slo& slo);
// The highest request rate one replica sustains within the SLO (bisection over simulations).
struct RateSearch {
  double max_rate_per_s = 0;  // 0: not even at a trickle
  SimulationResult at_max;
  SimulationResult at_zero_load;  // one request alone
  std::string limit;              // what binds at the next rate: "ttft", "tpot" or "throughput"
};
Result<RateSearch> max_rate_within_slo(const ReplicaModel& r, const ServeWorkload& w,
                                       const Slo& slo);

}  // namespace gpuplan
