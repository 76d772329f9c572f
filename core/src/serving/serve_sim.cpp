// A discrete-event simulation of one replica's scheduler, step by step: requests arrive
// (Poisson, seeded), wait for KV blocks and a batch slot, are prefilled in chunks that share
// each step's token budget with the running decodes (chunked prefill: Agrawal et al. 2024,
// "Sarathi-Serve", sec. 4), emit one token per step, and free their blocks when done. Runtimes
// that reserve the whole sequence admit only what fits to the end; the others allocate as
// sequences grow and preempt the newest (recompute) when blocks run out, as vLLM does.
// Static batching (Hugging Face generate) admits a batch only when the previous one is done.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <random>

#include "gpuplan/serve_sim.h"

namespace gpuplan {
namespace {

struct Req {
  double arrival_s = 0;
  double prompt = 0, output = 0;
  double cached = 0;  // prompt tokens found in the prefix cache
  double prefilled = 0, generated = 0;
  double first_token_s = -1;
  double finish_s = -1;
  int64_t blocks = 0;
};

std::vector<Req> make_requests(const ServeWorkload& w) {
  std::mt19937_64 rng(w.seed);
  std::exponential_distribution<double> gap(
      w.rate_per_s > 0 && std::isfinite(w.rate_per_s) ? w.rate_per_s : 1.0);
  const bool burst = !(w.rate_per_s > 0) || !std::isfinite(w.rate_per_s);
  std::vector<Req> out(static_cast<size_t>(w.requests));
  double t = 0;
  for (Req& q : out) {
    if (!burst) t += gap(rng);
    q.arrival_s = t;
    if (w.lengths == LengthDistribution::sharegpt) {
      const auto [p, o] = draw_lengths(w.sampler, rng);
      q.prompt = static_cast<double>(p);
      q.output = static_cast<double>(o);
    } else {
      q.prompt = std::max(1.0, std::round(w.prompt_tokens));
      q.output = std::max(1.0, std::round(w.output_tokens));
    }
  }
  return out;
}

Percentiles percentiles(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  return p;
}

// Percentiles of values that occur with weights (steps of dt seconds, each a gap for as many
// decoding sequences).
Percentiles weighted_percentiles(std::vector<std::pair<double, double>> v) {
  Percentiles p;
  double total = 0, sum = 0;
  for (const auto& [x, w] : v) {
    total += w;
    sum += x * w;
  }
  if (!(total > 0)) return p;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    double below = 0;
    for (const auto& [x, w] : v) {
      below += w;
      if (below > q * total) return x;
    }
    return v.back().first;
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  p.mean = sum / total;
  return p;
}

class Scheduler {
 public:
  Scheduler(const ReplicaModel& r, std::vector<Req> reqs, int concurrency)
      : r_(r), reqs_(std::move(reqs)) {
    free_blocks_ = r.memory.kv_blocks;
    if (concurrency > 0) {
      // Closed loop: the first `concurrency` are sent at the start, each other one when a
      // request finishes (finish_step).
      sent_ = std::min(reqs_.size(), static_cast<size_t>(concurrency));
      for (size_t i = sent_; i < reqs_.size(); ++i) {
        planned_.push_back(reqs_[i].arrival_s);
        reqs_[i].arrival_s = std::numeric_limits<double>::infinity();
      }
      closed_loop_ = true;
    }
  }
  SimulationResult run();

 private:
  // A sequence of `tokens` tokens: the blocks of the tokens its windows keep (kept_kv_share)
  // and its linear-attention state's.
  int64_t blocks_for(double tokens) const {
    const double kept = tokens * kept_kv_share(r_, tokens);
    return static_cast<int64_t>(std::ceil(kept / static_cast<double>(r_.block_tokens))) +
           r_.memory.state_blocks_per_seq;
  }
  // Whether `blocks` surely hold a sequence of `tokens`, without blocks_for: its windows keep no
  // more than every token, so the blocks of every token are enough. Most steps of a sequence stay
  // inside its last block, and this spares them kept_kv_share.
  bool surely_holds(int64_t blocks, double tokens) const {
    return tokens <=
           static_cast<double>((blocks - r_.memory.state_blocks_per_seq) * r_.block_tokens);
  }
  void admit();
  bool grow_or_preempt();
  void finish_step(double end_s, const std::vector<double>& chunk);
  bool overloaded() const;
  std::vector<double> chunk_;  // this step's prompt tokens per running sequence

  const ReplicaModel& r_;
  // Positions a decode step takes per sequence: one, or k + 1 verified by speculative decoding.
  const double positions_ = r_.spec.draft ? r_.spec.tokens + 1.0 : 1.0;
  std::vector<Req> reqs_;
  size_t next_arrival_ = 0;
  std::deque<size_t> waiting_;
  std::vector<size_t> running_;
  int64_t free_blocks_ = 0;
  double now_s_ = 0;
  std::vector<double> ttft_, tpot_;
  // Each step's length and the decoding sequences in it: every running sequence past its first
  // token gets its next in every step, so the step is that many inter-token gaps.
  std::vector<std::pair<double, double>> gaps_;
  double running_time_ = 0;
  int64_t max_running_ = 0;
  int64_t steps_ = 0;
  size_t done_ = 0;
  bool closed_loop_ = false;
  size_t sent_ = 0;              // closed loop: requests sent so far
  std::vector<double> planned_;  // closed loop: the unsent requests' own arrival times
};

void Scheduler::admit() {
  while (next_arrival_ < reqs_.size() && reqs_[next_arrival_].arrival_s <= now_s_)
    waiting_.push_back(next_arrival_++);
  if (!r_.profile.continuous_batching && !running_.empty())
    return;  // static: the batch runs to its end
  while (!waiting_.empty() && static_cast<int64_t>(running_.size()) < r_.max_num_seqs) {
    Req& q = reqs_[waiting_.front()];
    const double need = r_.profile.reserve_full_sequence ? q.prompt + q.output : q.prompt + 1;
    const int64_t blocks = blocks_for(need);
    if (blocks > free_blocks_) break;
    free_blocks_ -= blocks;
    q.blocks = blocks;
    running_.push_back(waiting_.front());
    waiting_.pop_front();
  }
}

// Sequences that need a new block for their next token get one; when none is left the newest
// sequence is preempted and recomputed later (its progress is lost).
bool Scheduler::grow_or_preempt() {
  if (r_.profile.reserve_full_sequence) return true;
  for (size_t i = 0; i < running_.size(); ++i) {
    Req& q = reqs_[running_[i]];
    const double tokens = q.prefilled + q.generated + positions_;
    if (surely_holds(q.blocks, tokens)) continue;
    const int64_t need = blocks_for(tokens);
    while (need > q.blocks) {
      if (free_blocks_ > 0) {
        --free_blocks_;
        ++q.blocks;
        continue;
      }
      const size_t victim = running_.back();
      Req& v = reqs_[victim];
      free_blocks_ += v.blocks;
      v.blocks = 0;
      v.prefilled = v.cached;  // its prefix is still in the cache (its blocks are only freed)
      v.generated = 0;
      v.first_token_s = -1;
      running_.pop_back();
      waiting_.push_front(victim);
      if (i == running_.size()) return !running_.empty();  // the one growing was the newest
    }
  }
  return true;
}

// Above capacity the queue grows for the whole run: the last arrival is served long after it came
// (more than a quarter of the arrival span later). That tells only when the span is long against
// what one request takes (the first tenth's median arrival-to-finish time, at light load); a
// shorter run (long answers, few requests) cannot show it, so there the requests' mean output
// tokens at the arrival rate are held against what the replica yields with its batch full
// (burst_output_tokens_per_s). A closed loop sends no faster than requests finish.
bool Scheduler::overloaded() const {
  const double span = reqs_.back().arrival_s - reqs_.front().arrival_s;
  if (closed_loop_ || !(span > 0) || !std::isfinite(span)) return false;
  const size_t first = std::max<size_t>(1, reqs_.size() / 10);
  std::vector<double> took;
  double prompt = 0, output = 0, cached = 0;
  for (size_t i = 0; i < reqs_.size(); ++i) {
    const Req& q = reqs_[i];
    if (i < first) took.push_back(q.finish_s - q.arrival_s);
    prompt += q.prompt;
    output += q.output;
    cached += q.cached;
  }
  const double lag = now_s_ - reqs_.back().arrival_s;
  if (span >= 4 * percentiles(took).p50) return lag > 0.25 * span;
  const double n = static_cast<double>(reqs_.size());
  const double demand = (n - 1) / span * output / n;
  return demand > burst_output_tokens_per_s(r_, prompt / n, output / n, cached / n);
}

// Advances each running sequence by this step; the finished ones leave, the others keep their
// order.
void Scheduler::finish_step(double end_s, const std::vector<double>& chunk) {
  const double expected_tokens = r_.spec.expected_tokens;
  size_t kept = 0;
  for (size_t i = 0; i < running_.size(); ++i) {
    const size_t id = running_[i];
    Req& q = reqs_[id];
    if (q.prefilled < q.prompt) {
      q.prefilled += chunk[i];
      if (q.prefilled < q.prompt) {
        running_[kept++] = id;
        continue;
      }
      q.generated = 1;  // the prefill's last step samples the first token
      q.first_token_s = end_s;
      ttft_.push_back(end_s - q.arrival_s);
    } else {
      q.generated += expected_tokens;  // 1, or the accepted drafts and one more
    }
    if (q.generated >= q.output) {
      if (q.output > 1) tpot_.push_back((end_s - q.first_token_s) / (q.output - 1));
      free_blocks_ += q.blocks;
      q.blocks = 0;
      q.finish_s = end_s;
      ++done_;
      if (closed_loop_ && sent_ < reqs_.size()) {
        const double planned = planned_[sent_ - (reqs_.size() - planned_.size())];
        reqs_[sent_++].arrival_s = std::max(planned, end_s);
      }
    } else {
      running_[kept++] = id;
    }
  }
  running_.resize(kept);
}

SimulationResult Scheduler::run() {
  const int64_t step_limit = 50'000'000;
  while (done_ < reqs_.size() && steps_ < step_limit) {
    admit();
    if (running_.empty()) {
      if (next_arrival_ >= reqs_.size()) break;  // nothing fits even alone
      now_s_ = std::max(now_s_, reqs_[next_arrival_].arrival_s);
      continue;
    }
    if (!grow_or_preempt()) continue;
    // This step's work: one token per decoding sequence, then prompt chunks in arrival order.
    StepLoad load;
    std::vector<double>& chunk = chunk_;
    // Summed in locals: summed in `load`, every add went through memory (a third of a long
    // simulation's time).
    size_t decode_seqs = 0;
    double decode_context = 0;
    for (size_t id : running_) {
      const Req& q = reqs_[id];
      if (q.prefilled >= q.prompt) {
        ++decode_seqs;
        decode_context += q.prompt + q.generated;
      }
    }
    load.decode_seqs = static_cast<double>(decode_seqs);
    // Whole numbers: the product is the subtractions one by one.
    double budget = static_cast<double>(r_.max_num_batched_tokens) - load.decode_seqs * positions_;
    load.decode_context = decode_context;
    // Prompt chunks, when any prompt is in the batch (finish_step reads a chunk only for those).
    const bool prefilling = decode_seqs < running_.size();
    if (prefilling) chunk.assign(running_.size(), 0.0);
    for (size_t i = 0; prefilling && i < running_.size() && budget > 0; ++i) {
      const Req& q = reqs_[running_[i]];
      if (q.prefilled >= q.prompt) continue;
      chunk[i] = std::min(budget, q.prompt - q.prefilled);
      budget -= chunk[i];
      load.prefill_tokens += chunk[i];
      load.prefill_pairs += chunk[i] * q.prefilled + chunk[i] * (chunk[i] + 1) / 2;
      load.prefill_context += q.prefilled;
      if (q.prefilled + chunk[i] >= q.prompt) load.prefill_last += 1;
    }
    const double dt = step_time(r_, load).total_s;
    if (load.decode_seqs > 0) gaps_.emplace_back(dt, load.decode_seqs);
    running_time_ += dt * static_cast<double>(running_.size());
    max_running_ = std::max<int64_t>(max_running_, static_cast<int64_t>(running_.size()));
    now_s_ += dt;
    ++steps_;
    finish_step(now_s_, chunk);
  }
  SimulationResult s;
  s.ttft_s = percentiles(ttft_);
  s.tpot_s = percentiles(tpot_);
  s.itl_s = weighted_percentiles(std::move(gaps_));
  s.steps = steps_;
  s.max_running = max_running_;
  double outputs = 0;
  for (const Req& q : reqs_) outputs += q.blocks == 0 && q.generated >= q.output ? q.output : 0;
  const double span = now_s_ - reqs_.front().arrival_s;
  s.output_tokens_per_s = span > 0 ? outputs / span : 0;
  s.requests_per_s = span > 0 ? static_cast<double>(done_) / span : 0;
  s.mean_running = now_s_ > 0 ? running_time_ / now_s_ : 0;
  s.saturated = done_ < reqs_.size() || overloaded();
  return s;
}

}  // namespace

double cached_prompt_tokens(double prompt_tokens, double hit_rate) {
  return std::clamp(std::round(hit_rate * prompt_tokens), 0.0, std::max(0.0, prompt_tokens - 1));
}

void use_dataset_lengths(ServeWorkload& w, const LengthSampler& sampler) {
  w.lengths = LengthDistribution::sharegpt;
  w.sampler = sampler;
  w.prompt_tokens = sampler.dataset.prompt_mean_tokens;
  w.output_tokens = sampler.dataset.output_mean_tokens;
}

Result<SimulationResult> simulate(const ReplicaModel& r, const ServeWorkload& w) {
  if (w.requests < 1 || w.requests > 100000)
    return make_error(Errc::invalid_argument, Msg::serve_sim_requests, {});
  if (w.lengths == LengthDistribution::sharegpt && !w.sampler.ready()) {
    return make_error(Errc::invalid_argument, Msg::serve_sim_sharegpt_unset, {});
  }
  if (!(w.prompt_tokens >= 1) || !(w.output_tokens >= 1)) {
    return make_error(Errc::invalid_argument, Msg::serve_sim_tokens, {});
  }
  if (!(w.prefix_hit_rate >= 0 && w.prefix_hit_rate <= 1)) {
    return about_key(make_error(Errc::invalid_argument, Msg::serve_prefix_hit_rate, {}),
                     "prefix-hit-rate");
  }
  if (max_concurrent_sequences(r, w.prompt_tokens, w.output_tokens) < 1) {
    return make_error(Errc::does_not_fit, Msg::serve_sequence_too_long,
                      {std::to_string(static_cast<int64_t>(w.prompt_tokens + w.output_tokens)),
                       std::to_string(r.memory.kv_tokens)});
  }
  // A drawn length longer than the whole cache is cut to fit (else it could never run).
  std::vector<Req> reqs = make_requests(w);
  const double cap = static_cast<double>(r.memory.kv_tokens);
  for (Req& q : reqs) {
    q.prompt = std::min(q.prompt, cap - 1);
    q.output = std::max(1.0, std::min(q.output, cap - q.prompt));
    q.cached = q.prefilled = cached_prompt_tokens(q.prompt, w.prefix_hit_rate);
  }
  Scheduler s(r, std::move(reqs), w.concurrency);
  return s.run();
}

double at_percentile(const Percentiles& p, double percentile) {
  return percentile >= 99 ? p.p99 : percentile >= 90 ? p.p90 : p.p50;
}

bool meets_slo(const SimulationResult& s, const Slo& slo) {
  if (s.saturated) return false;
  auto pick = [&](const Percentiles& p) { return at_percentile(p, slo.percentile); };
  if (slo.ttft_s > 0 && pick(s.ttft_s) > slo.ttft_s) return false;
  if (slo.tpot_s > 0 && pick(s.tpot_s) > slo.tpot_s) return false;
  return true;
}

Result<RateSearch> max_rate_within_slo(const ReplicaModel& r, const ServeWorkload& w,
                                       const Slo& slo) {
  RateSearch out;
  ServeWorkload one = w;
  one.requests = 1;
  auto alone = simulate(r, one);
  if (!alone.ok()) return alone.error();
  out.at_zero_load = alone.value();
  // The rate cannot exceed the burst throughput with its prompts spread over every step (the
  // optimistic bound); bisect between a trickle and that ceiling.
  const double ceiling =
      burst_output_tokens_per_s(r, w.prompt_tokens, w.output_tokens,
                                cached_prompt_tokens(w.prompt_tokens, w.prefix_hit_rate),
                                BurstSteps::spread) /
      w.output_tokens;
  double lo = 0, hi = std::max(ceiling * 1.05, 1e-3);
  SimulationResult best, failed;
  bool have_failed = false;
  for (int i = 0; i < 12 && hi - lo > 0.03 * hi; ++i) {  // to 3 % of the rate
    ServeWorkload t = w;
    t.rate_per_s = i == 0 ? hi * 0.02 : (lo + hi) / 2;
    auto s = simulate(r, t);
    if (!s.ok()) return s.error();
    if (meets_slo(s.value(), slo)) {
      lo = t.rate_per_s;
      best = s.value();
    } else {
      if (i == 0) lo = hi = 0;
      hi = t.rate_per_s;
      failed = s.value();
      have_failed = true;
    }
  }
  out.max_rate_per_s = lo;
  out.at_max = best;
  if (have_failed) {
    auto pick = [&](const Percentiles& p) { return at_percentile(p, slo.percentile); };
    out.limit = failed.saturated                                       ? "throughput"
                : (slo.ttft_s > 0 && pick(failed.ttft_s) > slo.ttft_s) ? "ttft"
                                                                       : "tpot";
  }
  return out;
}

}  // namespace gpuplan
