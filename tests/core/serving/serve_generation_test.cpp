// `gpuplan estimate --mode infer --generate N` times prefill and decode with the serving replica
// model (serve_generation.h): one answer with `gpuplan serve` for one setup, the roofline's only
// where the serving model does not apply, and a clear error without the runtime profiles.
#include <gtest/gtest.h>

#include "gpuplan/evaluate.h"
#include "gpuplan/serve_generation.h"
#include "gpuplan/serve_plan.h"
#include "test_util.h"

namespace gpuplan {
namespace {

Evaluation generated(const std::string& link, const ServingAssumptions* serving) {
  auto q = parse_query_string(link);
  EXPECT_TRUE(q.ok()) << q.error().message;
  Query query = q.value();
  query.serving = serving;
  auto ev = evaluate(test::catalog(), query);
  EXPECT_TRUE(ev.ok()) << ev.error().message;
  return ev.value();
}

bool has_note(const StepTime& t, const std::string& start) {
  for (const auto& n : t.notes)
    if (n.rfind(start, 0) == 0) return true;
  return false;
}

TEST(Generation, PromptsArePrefilledBackToBackInStepsOfTheBudget) {
  // Two prompts of 3 tokens in steps of 4: the first step holds prompt 1 whole (pairs 1+2+3 = 6,
  // it ends) and prompt 2's first token (1 pair); the second prompt 2's tokens 2-3 (pairs 2+3,
  // after 1 earlier token, and it ends).
  ServeConfig c;
  c.max_num_batched_tokens = 4;
  ReplicaModel r =
      build_replica(test::model("llama-3-8b"), *test::catalog().find_gpu("h100-sxm5-80gb"), c,
                    test::serving(), test::catalog().efficiencies)
          .value();
  StepLoad first, second;
  first.prefill_tokens = 4;
  first.prefill_pairs = 7;
  first.prefill_last = 1;
  second.prefill_tokens = 2;
  second.prefill_pairs = 5;
  second.prefill_context = 1;
  second.prefill_last = 1;
  const GenerationTime g = generation_time(r, 2, 3, 10);
  EXPECT_DOUBLE_EQ(g.prefill_s, step_time(r, first).total_s + step_time(r, second).total_s);
  // Decode: both sequences at once, at the mean context 3 + 10 / 2 = 8 each.
  StepLoad decode;
  decode.decode_seqs = 2;
  decode.decode_context = 16;
  EXPECT_DOUBLE_EQ(g.decode.total_s, step_time(r, decode).total_s);
}

TEST(Generation, EstimateAndServeTimeOneDecodeStepAlike) {
  // Mixtral-8x7B on two H100s at tp 2 under vLLM, 512-token prompts and 256-token answers: the
  // estimate's decode step of one sequence is gpuplan serve's decode step alone.
  const Evaluation ev = generated(
      "model=mixtral-8x7b&mode=infer&precision=bf16&seq=512&generate=256&gpu=h100-sxm5-80gb&"
      "gpus=2&tp=2&runtime=vllm",
      &test::serving());
  ASSERT_TRUE(ev.time);
  ServeQuery q = serving_example_query();
  q.gpu = "h100-sxm5-80gb";
  q.config.tp = 2;
  q.config.runtime = Runtime::vllm;
  q.workload.prompt_tokens = 512;
  q.workload.output_tokens = 256;
  auto plan = plan_serving(test::catalog(), test::serving(), test::model("mixtral-8x7b"), q);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const ServeOption& best = plan.value().options.front();
  EXPECT_DOUBLE_EQ(ev.time->decode_token_s, best.decode_step_s);
  EXPECT_DOUBLE_EQ(ev.time->prefill_s, best.prefill_s);
  // The step: the prompt, then 256 decode steps; tokens/s is the decode rate of the one sequence.
  EXPECT_DOUBLE_EQ(ev.time->step_s, ev.time->prefill_s + 256 * ev.time->decode_token_s);
  EXPECT_DOUBLE_EQ(ev.time->tokens_per_s, 1 / ev.time->decode_token_s);
  EXPECT_TRUE(has_note(*ev.time,
                       "prefill and decode timed as gpuplan serve times a vllm replica "
                       "of 2 GPU(s) running 1 sequence(s) at once"));
  // Its error band is serve's: the serving runs' output tokens/s errors on the serving ground.
  EXPECT_EQ(ev.ground.runtime, "vllm");
  EXPECT_EQ(ev.time_band.pool, best.rate_band.pool);
  EXPECT_DOUBLE_EQ(ev.time_band.low, best.rate_band.low);
  EXPECT_DOUBLE_EQ(ev.time_band.high, best.rate_band.high);
  EXPECT_EQ(ev.time_band.evidence_rows, best.rate_band.evidence_rows);
}

TEST(Generation, TransformersGenerateIsTheDefaultAndPrefillsTheBatchInOnePass) {
  // hf (transformers' generate): no token budget, so the 8 prompts of 512 tokens are one forward.
  const Evaluation ev = generated(
      "model=llama-3-8b&mode=infer&precision=bf16&seq=512&generate=64&batch=8&gpu=h100-sxm5-80gb",
      &test::serving());
  ASSERT_TRUE(ev.time);
  ServeConfig c;
  c.runtime = Runtime::hf;
  c.max_num_seqs = 8;
  c.max_num_batched_tokens = 8 * 512;
  const ReplicaModel r =
      build_replica(test::model("llama-3-8b"), *test::catalog().find_gpu("h100-sxm5-80gb"), c,
                    test::serving(), test::catalog().efficiencies)
          .value();
  StepLoad prefill;
  prefill.prefill_tokens = 8 * 512;
  prefill.prefill_pairs = 8 * 512.0 * 513 / 2;
  prefill.prefill_last = 8;
  EXPECT_DOUBLE_EQ(ev.time->prefill_s, step_time(r, prefill).total_s);
  EXPECT_TRUE(has_note(*ev.time, "prefill and decode timed as gpuplan serve times a hf replica"));
}

TEST(Generation, TheRooflineStandsWhereTheServingModelDoesNotApplyAndSaysWhy) {
  // FP32 weights: no serving runtime runs them.
  const Evaluation fp32 =
      generated("model=llama-3-8b&mode=infer&precision=fp32&seq=512&generate=64&gpu=h100-sxm5-80gb",
                &test::serving());
  ASSERT_TRUE(fp32.time);
  EXPECT_TRUE(has_note(*fp32.time, "decode timed by the roofline: fp32 keeps FP32 weights"));
  EXPECT_GT(fp32.time->decode_token_s, 0);
  // Not a decoder-only language model.
  const Evaluation bert =
      generated("model=bert-base&mode=infer&precision=bf16&seq=128&generate=16&gpu=h100-sxm5-80gb",
                &test::serving());
  ASSERT_TRUE(bert.time);
  EXPECT_TRUE(has_note(*bert.time,
                       "decode timed by the roofline: bert-base is not a "
                       "decoder-only language model"));
  // Without generated tokens there is no decode step to time.
  const Evaluation forward =
      generated("model=llama-3-8b&mode=infer&precision=bf16&seq=512&gpu=h100-sxm5-80gb", nullptr);
  ASSERT_TRUE(forward.time);
  EXPECT_EQ(forward.time->decode_token_s, 0);
  EXPECT_DOUBLE_EQ(forward.time->step_s, forward.time->prefill_s);
}

TEST(Generation, ErrorsSayWhatIsMissingOrWrong) {
  // No runtime profiles loaded: the time is an error that says so, the estimate stands.
  auto q = parse_query_string(
      "model=llama-3-8b&mode=infer&precision=bf16&seq=512&generate=64&gpu=h100-sxm5-80gb");
  ASSERT_TRUE(q.ok());
  auto ev = evaluate(test::catalog(), q.value());
  ASSERT_TRUE(ev.ok());
  ASSERT_TRUE(ev.value().hardware_error);
  EXPECT_EQ(ev.value().hardware_error->message,
            "--generate: the serving runtimes' profiles (data/assumptions.json) were not loaded");
  // Tensor parallelism over two 8-GPU machines: no serving runtime deploys a replica so.
  Query wide = q.value();
  wide.serving = &test::serving();
  wide.gpu.clear();
  wide.instance = "aws-p5.48xlarge";
  wide.nodes = 2;
  wide.request.setup.tp = 16;
  ev = evaluate(test::catalog(), wide);
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  ASSERT_TRUE(ev.value().hardware_error);
  EXPECT_EQ(ev.value().hardware_error->message,
            "--tp 16 spans machines: a serving replica keeps tensor parallelism inside one NVLink "
            "domain (8 GPUs); lower --tp and let --dp or --pp take the rest");
  // A runtime's own limits, in its words: llama.cpp already splits layers over the GPUs.
  Query pp = q.value();
  pp.serving = &test::serving();
  pp.runtime = Runtime::llamacpp;
  pp.gpus = 2;
  pp.request.setup.pp = 2;
  ev = evaluate(test::catalog(), pp);
  ASSERT_TRUE(ev.ok());
  ASSERT_TRUE(ev.value().hardware_error);
  EXPECT_EQ(ev.value().hardware_error->message,
            "--pp: the runtime already splits layers across the replica's GPUs (--tp); leave --pp "
            "at 1");
}

TEST(Generation, PrecisionsMapToTheWeightFormatsRuntimesLoad) {
  EXPECT_EQ(serving_weight_format(Precision::bf16), WeightFormat::bf16);
  EXPECT_EQ(serving_weight_format(Precision::mixed_fp16), WeightFormat::fp16);
  EXPECT_EQ(serving_weight_format(Precision::mxfp8), WeightFormat::fp8);
  EXPECT_EQ(serving_weight_format(Precision::nvfp4), WeightFormat::nvfp4);
  EXPECT_EQ(serving_weight_format(Precision::amp_bf16), std::nullopt);  // FP32 weights
  EXPECT_EQ(serving_weight_format(Precision::tf32), std::nullopt);
}

}  // namespace
}  // namespace gpuplan
