#include "gpuplan/serve_generation.h"

#include <algorithm>
#include <cmath>

namespace gpuplan {

GenerationTime generation_time(const ReplicaModel& r, double prompts, double prompt_tokens,
                               double output_tokens) {
  GenerationTime g;
  // Prefill: the prompts back to back in steps of the token budget; a step's share of a prompt
  // that began in an earlier step reads that prompt's earlier keys (causal pairs per segment).
  const double budget = std::max(1.0, static_cast<double>(r.max_num_batched_tokens));
  const double total = prompts * prompt_tokens;
  for (double start = 0; start < total;) {
    const double end = std::min(total, start + budget);
    StepLoad load;
    load.prefill_tokens = end - start;
    for (double at = start; at < end;) {
      const double prompt_start = std::floor(at / prompt_tokens) * prompt_tokens;
      const double lo = at - prompt_start;
      const double hi = std::min(prompt_tokens, end - prompt_start);
      load.prefill_pairs += (hi * (hi + 1) - lo * (lo + 1)) / 2;
      load.prefill_context += lo;
      if (hi >= prompt_tokens) load.prefill_last += 1;
      at = prompt_start + hi;
    }
    g.prefill_s += step_time(r, load).total_s;
    start = end;
  }
  // Decode: every sequence at once; its keys grow from the prompt to prompt + output, so the
  // step at the mean context stands for the mean step (attention reads grow linearly).
  StepLoad load;
  load.decode_seqs = prompts;
  load.decode_context = prompts * (prompt_tokens + output_tokens / 2);
  g.decode = step_time(r, load);
  return g;
}

std::optional<std::string> generation_not_served(const Model& model, const Setup& setup) {
  if (!is_decoder_only_lm(model)) {
    return std::string("decode timed by the roofline: ") + model.id +
           " is not a decoder-only language model, which the serving model times";
  }
  if (!serving_weight_format(setup.precision)) {
    return std::string("decode timed by the roofline: ") + precision_name(setup.precision) +
           " keeps FP32 weights, which no serving runtime runs (16-bit or narrower precisions "
           "are timed as gpuplan serve times them)";
  }
  if (setup.lora_rank > 0 || setup.qlora) {
    return std::string(
        "decode timed by the roofline: LoRA adapters are not in the serving model (merge them "
        "into the weights to serve)");
  }
  return std::nullopt;
}

std::optional<Error> time_generation(const Model& model, const Setup& setup, const Estimate& e,
                                     const Gpu& gpu, Runtime runtime,
                                     const ServingAssumptions& serving, const Efficiencies& eff,
                                     StepTime& st) {
  const double batch = static_cast<double>(std::max<int64_t>(1, e.micro_batch));
  const double prompt = static_cast<double>(e.seq_len);
  const double output = static_cast<double>(setup.generate_tokens);
  ServeConfig c;
  c.weights = *inference_weight_format(model.checkpoint_weights, setup.precision);
  c.runtime = runtime;
  c.tp = setup.tp;
  c.pp = setup.pp;
  c.ep = setup.ep;
  // The micro-batch runs at once; a runtime without a token budget (transformers' generate)
  // prefills it in one forward pass, so its activations are the batch's prompts.
  c.max_num_seqs = static_cast<int64_t>(batch);
  if (!serving.profile(runtime).continuous_batching)
    c.max_num_batched_tokens = static_cast<int64_t>(batch * prompt);
  auto r = build_replica(model, gpu, c, serving, eff);
  if (!r.ok()) return r.error();
  const GenerationTime g = generation_time(r.value(), batch, prompt, output);
  const double micro_steps = static_cast<double>(std::max<int64_t>(1, e.grad_accum_steps));
  st.prefill_s = g.prefill_s * micro_steps;
  st.decode_token_s = g.decode.total_s;
  st.step_s = micro_steps * (g.prefill_s + output * g.decode.total_s);
  st.samples_per_s = static_cast<double>(e.global_batch) / st.step_s;
  const double replicas = static_cast<double>(std::max(1, setup.dp));
  st.tokens_per_s = replicas * batch / g.decode.total_s;
  st.mfu = (e.flops.prefill + e.flops.decode_per_token * output) /
           (st.step_s * e.num_gpus * st.peak_flop_per_s);
  st.notes.push_back(std::string("prefill and decode timed as gpuplan serve times a ") +
                     runtime_name(runtime) + " replica of " + std::to_string(setup.tp * setup.pp) +
                     " GPU(s) running " + std::to_string(static_cast<int64_t>(batch)) +
                     " sequence(s) at once; --runtime chooses it");
  for (const auto& n : r.value().notes) st.notes.push_back(n);
  return std::nullopt;
}

}  // namespace gpuplan
