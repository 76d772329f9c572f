#pragma once
// `gpuplan estimate --mode infer --generate N`: a batch of prompts prefilled, then decoded a token
// at a time, timed by the serving replica model (serve_replica.h) with the runtime's profile, so
// the estimate and `gpuplan serve` give one answer for one setup. Implemented in
// core/src/serving/serve_generation.cpp.

#include <optional>
#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/serve_replica.h"
#include "gpuplan/timing.h"

namespace gpuplan {

// One static batch: `prompts` prompts of `prompt_tokens` each, prefilled in steps of the
// replica's token budget (the batch's prompts back to back), then `output_tokens` decode steps
// of every sequence.
struct GenerationTime {
  double prefill_s = 0;  // all the batch's prompts
  StepBreakdown decode;  // one decode step of the whole batch at its mean context
};
GenerationTime generation_time(const ReplicaModel& r, double prompts, double prompt_tokens,
                               double output_tokens);

// Whether a setup generates tokens (mode infer with generate_tokens > 0): a generation to time.
inline bool generates_tokens(const Setup& s) {
  return s.mode == Mode::infer && s.generate_tokens > 0;
}

// Why a setup's generation is not timed by the replica model (the roofline's decode stands):
// not a decoder-only language model, FP32 weights, LoRA adapters; nullopt when it is.
std::optional<std::string> generation_not_served(const Model& model, const Setup& setup);

// The inference fields of `st` (prefill, decode step, step, samples/s, tokens/s, MFU) for a
// setup in mode infer with generate_tokens > 0 on `gpu`: each replica (tp x pp GPUs) runs
// its micro-batch as one static batch on `runtime`'s profile, micro-batches one after another.
// An Error when the replica cannot be built (the message names the field, or says by how much
// the runtime's memory budget is short).
std::optional<Error> time_generation(const Model& model, const Setup& setup, const Estimate& e,
                                     const Gpu& gpu, Runtime runtime,
                                     const ServingAssumptions& serving, const Efficiencies& eff,
                                     StepTime& st);

}  // namespace gpuplan
