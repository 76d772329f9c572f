#pragma once
// Stable ids for the core's error messages, so a front end can show them in its own language.
//
// Every message an Error can carry an id for is listed once below: its enum name, its stable id
// (a short dotted string, never reused for another meaning) and its English template, where
// {0}, {1}, ... stand for the Error's args. The core builds Error::message from the English
// template (the CLI prints it as it is); the page looks the id up in its string table
// (web/model/strings.inc, one "core_" entry per id: web_test checks every id has one) and renders
// its Chinese template with the same args, or shows the English message when it has none.

#include <string>
#include <vector>

namespace gpuplan {

// X(name, "stable.id", "English template")
#define GPUPLAN_MESSAGES(X)                                                                        \
  /* Link and command-line values (query.cpp, request.cpp, the page's ids) */                      \
  X(query_not_integer, "query.not_integer", "--{0}: '{1}' is not an integer")                      \
  X(query_not_number, "query.not_number", "--{0}: '{1}' is not a number")                          \
  X(query_not_bool, "query.not_bool", "--{0}: '{1}' is not true or false")                         \
  X(query_not_one_of, "query.not_one_of", "--{0}: '{1}' is not one of {2}")                        \
  X(query_not_one_of_or_empty, "query.not_one_of_or_empty",                                        \
    "--{0}: '{1}' is not one of {2} (or empty)")                                                   \
  X(query_not_module_list, "query.not_module_list",                                                \
    "--{0}: '{1}' is not a comma-separated list of module names")                                  \
  X(query_out_of_range, "query.out_of_range", "--{0}: {1} is out of range [{2}, {3}]")             \
  X(query_empty_model, "query.empty_model", "--{0}: empty model id")                               \
  X(query_unknown_option, "query.unknown_option", "--{0}: unknown option")                         \
  X(query_tokens_and_epochs, "query.tokens_and_epochs", "give --tokens or --epochs, not both")     \
  X(query_bad_version, "query.bad_version",                                                        \
    "--v: schema version {0} is not supported (this build reads {1})")                             \
  X(link_too_long, "link.too_long", "link state is longer than {0} characters")                    \
  X(link_truncated_escape, "link.truncated_escape", "link state: truncated escape in '{0}'")       \
  X(link_bad_escape, "link.bad_escape", "link state: bad escape in '{0}'")                         \
  X(link_unknown_id, "link.unknown_id", "--{0}: unknown id '{1}'. Did you mean: {2}?")             \
  X(link_rate_required, "link.rate_required",                                                      \
    "--rate: a serving link needs the peak request rate")                                          \
  /* Serving features (query.cpp, serve_replica.cpp, serve_plan.cpp) */                            \
  X(serve_spec_needs_method, "serve.spec_needs_method",                                            \
    "--{0}: set --spec-method (draft, eagle or mtp) to use speculative decoding")                  \
  X(serve_spec_tokens_required, "serve.spec_tokens_required",                                      \
    "--spec-tokens: --spec-method {0} needs the number of draft tokens per step (1-16)")           \
  X(serve_spec_acceptance_required, "serve.spec_acceptance_required",                              \
    "--spec-acceptance: --spec-method {0} needs the measured per-token acceptance rate in (0, "    \
    "1]; gpuplan has no default for it")                                                           \
  X(serve_spec_draft_required, "serve.spec_draft_required",                                        \
    "--spec-draft-model: --spec-method draft needs a draft model of the zoo")                      \
  X(serve_spec_draft_only, "serve.spec_draft_only",                                                \
    "--spec-draft-model applies to --spec-method draft, not {0}")                                  \
  X(serve_lengths_fixed_only, "serve.lengths_fixed_only",                                          \
    "--{0}: --lengths sharegpt draws ShareGPT's own prompt and output lengths; drop --{0} or "     \
    "use --lengths fixed")                                                                         \
  X(serve_unknown_draft, "serve.unknown_draft",                                                    \
    "--spec-draft-model: unknown model '{0}' (run 'gpuplan models' for the list)")                 \
  /* Serving search (serve_plan.cpp) */                                                            \
  X(serve_no_match, "serve.no_match", "no GPU or instance matches the filters")                    \
  X(serve_slo_ttft, "serve.slo_ttft",                                                              \
    "SLO unreachable: the first token takes {0} ms for one request alone on the fastest "          \
    "option ({1}, TP {2}), {3} ms over --ttft-ms; raise it, shorten prompts or use more GPUs")     \
  X(serve_slo_tpot, "serve.slo_tpot",                                                              \
    "SLO unreachable: a token takes {0} ms per step with one request on the fastest option "       \
    "({1}, TP {2}), {3} ms over --tpot-ms; raise it or use more GPUs")                             \
  X(serve_slo_both, "serve.slo_both",                                                              \
    "SLO unreachable: no option meets both latency targets at any request rate")                   \
  X(serve_tp_domain, "serve.tp_domain",                                                            \
    "--tp {0}: no matching instance holds that many GPUs in one NVLink domain (the largest "       \
    "holds {1}); a tensor-parallel replica does not span machines over the network")               \
  X(serve_pp_domain, "serve.pp_domain",                                                            \
    "--tp {0} --pp {1}: no matching instance joins that many GPUs in one machine or NVLink "       \
    "domain (the largest joins {2}), nor holds whole stages on machines with a known network to "  \
    "hand over between them")                                                                      \
  /* Disaggregated prefill and decode (serve_disagg.cpp) */                                        \
  X(serve_disagg_no_network, "serve.disagg_no_network",                                            \
    "--disaggregate: {0} has no sourced network bandwidth, and a prefill replica of TP {1} and a " \
    "decode replica of TP {2} do not fit one NVLink domain of {3} GPUs: the KV transfer between "  \
    "them cannot be timed")                                                                        \
  X(serve_disagg_ttft, "serve.disagg_ttft",                                                        \
    "--disaggregate: the KV transfer ({0} ms) and the decode replica's first step ({1} ms) leave " \
    "nothing of --ttft-ms {2} for the prefill; raise it")                                          \
  X(serve_disagg_unpriced, "serve.disagg_unpriced",                                                \
    "--disaggregate: the best option has no priced instance to size the two pools on")             \
  /* One replica (serve_replica.cpp) */                                                            \
  X(serve_not_causal_lm, "serve.not_causal_lm",                                                    \
    "model '{0}' is not a decoder-only language model; serve times causal LMs only")               \
  X(serve_tp_range, "serve.tp_range", "--tp must be between 1 and 64, got {0}")                    \
  X(serve_pp_range, "serve.pp_range",                                                              \
    "--pp must be between 1 and the model's {1} layers, got {0}")                                  \
  X(serve_pp_layer_split, "serve.pp_layer_split",                                                  \
    "--pp: the runtime already splits layers across the replica's GPUs (--tp); leave --pp at 1")   \
  X(serve_pp_attention_dp, "serve.pp_attention_dp",                                                \
    "--pp with --attention-dp is not modelled; choose one")                                        \
  X(serve_tp_heads, "serve.tp_heads",                                                              \
    "--tp {0}: the model's {1} attention heads do not split evenly")                               \
  X(serve_ep_divide, "serve.ep_divide", "--ep must divide --tp")                                   \
  X(serve_ep_experts, "serve.ep_experts",                                                          \
    "--ep {0}: the model's {1} routed experts do not split evenly over {0} GPUs")                  \
  X(serve_ep_layer_split, "serve.ep_layer_split",                                                  \
    "--ep: the runtime splits layers across GPUs, not experts; leave --ep at 1")                   \
  X(serve_ep_moe_only, "serve.ep_moe_only", "--ep applies to mixture-of-experts models only")      \
  X(serve_attention_dp_moe_only, "serve.attention_dp_moe_only",                                    \
    "--attention-dp applies to mixture-of-experts models only; a dense model runs more "           \
    "replicas instead")                                                                            \
  X(serve_attention_dp_layer_split, "serve.attention_dp_layer_split",                              \
    "--attention-dp: the runtime splits layers across GPUs; leave --attention-dp off")             \
  X(serve_batch_limits, "serve.batch_limits", "batch limits must be >= 0")                         \
  X(serve_memory_fraction, "serve.memory_fraction", "memory fraction must be in (0, 1]")           \
  X(serve_no_fp4_kernel, "serve.no_fp4_kernel",                                                    \
    "GPU '{0}' has no FP4 tensor cores and {1} has no weight-only {2} kernel for it; serve it "    \
    "on Blackwell, with a runtime that has one, or choose fp8 or int4 weights")                    \
  X(serve_kv_format, "serve.kv_format",                                                            \
    "{0} has no {1} KV cache (it stores {2}); choose another --kv or runtime")                     \
  X(serve_no_tensor_rate, "serve.no_tensor_rate",                                                  \
    "GPU '{0}' has no sourced {1} tensor-core figure; serving on it cannot be timed (choose "      \
    "another GPU)")                                                                                \
  X(serve_no_memory_bandwidth, "serve.no_memory_bandwidth", "GPU '{0}' has no memory bandwidth")   \
  X(serve_does_not_fit, "serve.does_not_fit",                                                      \
    "{0} ({1}) does not fit on {2} at TP {3}: weights {4} GB + activations {5} GB + context "      \
    "{6} GB per GPU leave {7} GB for the KV cache of {8} GB; use more GPUs (--tp) or fewer "       \
    "weight bits")                                                                                 \
  X(serve_spec_no_mtp, "serve.spec_no_mtp",                                                        \
    "--spec-method: mtp: {0} has no multi-token prediction modules "                               \
    "(num_nextn_predict_layers); use eagle or a draft model")                                      \
  X(serve_spec_vocab, "serve.spec_vocab",                                                          \
    "--spec-draft-model: {0} has a vocabulary of {1} tokens, {2} one of {3}: a draft model "       \
    "must share the target's tokenizer")                                                           \
  X(serve_drafter_cannot_run, "serve.drafter_cannot_run", "--{0}: the drafter cannot run: {1}")    \
  /* Fleet and simulation (serve_fleet.cpp, serve_sim.cpp) */                                      \
  X(serve_rate_positive, "serve.rate_positive", "--rate must be a positive number of requests/s")  \
  X(serve_curve_preset, "serve.curve_preset",                                                      \
    "--load-curve: '{0}' is not flat, business-hours, diurnal or a file")                          \
  X(serve_curve_key, "serve.curve_key",                                                            \
    "--load-curve: '{0}' is not flat, business-hours, diurnal or 24 rates (4,3,3,...)")            \
  X(serve_curve_too_large, "serve.curve_too_large",                                                \
    "{0}: a load curve is 24 numbers; the file is over 64 KiB")                                    \
  X(serve_curve_not_rate, "serve.curve_not_rate",                                                  \
    "{0}:{1}: '{2}' is not a request rate (a number >= 0)")                                        \
  X(serve_curve_size, "serve.curve_size", "{0}: expected 24 hourly rates (requests/s), got {1}")   \
  X(serve_curve_all_zero, "serve.curve_all_zero", "{0}: every hour is 0")                          \
  X(serve_curve_hours, "serve.curve_hours", "a load curve has 24 hourly rates")                    \
  X(serve_target_utilisation, "serve.target_utilisation", "target utilisation must be in (0, 1]")  \
  X(serve_scaling_negative, "serve.scaling_negative", "scaling policy values must be >= 0")        \
  X(serve_fleet_no_rate, "serve.fleet_no_rate",                                                    \
    "one replica meets the latency targets at no request rate; no fleet can")                      \
  X(serve_fleet_too_many, "serve.fleet_too_many",                                                  \
    "the peak rate needs more than a million replicas; check --rate")                              \
  X(serve_sim_requests, "serve.sim_requests", "simulated requests must be 1-100000")               \
  X(serve_sim_sharegpt_unset, "serve.sim_sharegpt_unset",                                          \
    "--lengths sharegpt: the ShareGPT distribution is not set (the caller passes "                 \
    "ServingAssumptions::sharegpt to use_dataset_lengths)")                                        \
  X(serve_sim_tokens, "serve.sim_tokens", "prompt and output tokens must be >= 1")                 \
  X(serve_prefix_hit_rate, "serve.prefix_hit_rate",                                                \
    "--prefix-hit-rate: the share of prompt tokens found in the prefix cache must be in [0, "      \
    "1]")                                                                                          \
  X(serve_sequence_too_long, "serve.sequence_too_long",                                            \
    "one sequence of {0} tokens does not fit the KV cache of {1} tokens")                          \
  /* Hardware and model lookups, parallelism (evaluate.cpp) */                                     \
  X(eval_unknown_instance, "evaluate.unknown_instance",                                            \
    "--instance: unknown instance '{0}' (run 'gpuplan instances')")                                \
  X(eval_gpu_not_instance_gpu, "evaluate.gpu_not_instance_gpu",                                    \
    "--gpu {0} does not match instance '{1}' ({2})")                                               \
  X(eval_instance_gpu_count, "evaluate.instance_gpu_count",                                        \
    "--gpus: an instance has its own GPU count (use --nodes)")                                     \
  X(eval_count_needs_hardware, "evaluate.count_needs_hardware",                                    \
    "--gpus and --nodes need --gpu or --instance")                                                 \
  X(eval_unknown_gpu, "evaluate.unknown_gpu", "--gpu: unknown GPU '{0}' (run 'gpuplan gpus')")     \
  X(eval_unknown_gpu_like, "evaluate.unknown_gpu_like",                                            \
    "--gpu: unknown GPU '{0}'; did you mean one of: {1}")                                          \
  X(eval_nodes_need_instance, "evaluate.nodes_need_instance",                                      \
    "--nodes needs --instance (a GPU alone is one box)")                                           \
  X(eval_tp_pp_not_divide, "evaluate.tp_pp_not_divide",                                            \
    "--tp x --pp x --cp = {0} does not divide the {1} GPUs")                                       \
  X(eval_dp_tp_pp_not_equal, "evaluate.dp_tp_pp_not_equal",                                        \
    "--dp x --tp x --pp x --cp = {0} does not equal the {1} GPUs")                                 \
  X(eval_model_and_config, "evaluate.model_and_config", "give --model or --hf-config, not both")   \
  X(eval_model_required, "evaluate.model_required", "--model ID or --hf-config FILE is required")  \
  X(eval_unknown_model, "evaluate.unknown_model",                                                  \
    "--model: unknown model '{0}' (run 'gpuplan models' for the list)")                            \
  X(eval_unknown_model_like, "evaluate.unknown_model_like",                                        \
    "--model: unknown model '{0}'; did you mean one of: {1}")                                      \
  X(eval_spot_both, "evaluate.spot_both",                                                          \
    "give --spot-interruption-bucket or --spot-interruptions-per-hour, not both")                  \
  X(eval_spot_bucket, "evaluate.spot_bucket",                                                      \
    "--spot-interruption-bucket: spot interruption bucket '{0}' is not in pricing_rules.json "     \
    "(known: {1})")                                                                                \
  /* Configurations the estimate refuses (estimate.cpp) */                                         \
  X(est_qlora_needs_rank, "estimate.qlora_needs_rank", "QLoRA needs --lora-rank > 0")              \
  X(est_sp_needs_tp, "estimate.sp_needs_tp", "sequence parallelism needs --tp > 1")                \
  X(est_recompute_modules_mode, "estimate.recompute_modules_mode",                                 \
    "--recompute-modules {0} applies to --checkpointing selective, not {1}")                       \
  X(est_zero_train_only, "estimate.zero_train_only",                                               \
    "--zero applies to training only (--mode train)")                                              \
  X(est_grad_reduce_recipe, "estimate.grad_reduce_recipe",                                         \
    "--grad-reduce applies to recipes with master weights (mixed-*, fp8, fp8-blockwise, mxfp8, "   \
    "nvfp4), not {0}")                                                                             \
  X(est_batch_not_dp, "estimate.batch_not_dp", "--batch {0} is not divisible by --dp {1}")         \
  X(est_batch_not_dp_micro, "estimate.batch_not_dp_micro",                                         \
    "--batch {0} is not divisible by --dp x --micro-batch = {1}")                                  \
  X(est_seq_vision, "estimate.seq_vision",                                                         \
    "--seq does not apply to vision model '{0}'; use --resolution")                                \
  X(est_resolution_patch, "estimate.resolution_patch",                                             \
    "--resolution {0} is not a multiple of the patch size {1}")                                    \
  X(est_resolution_language, "estimate.resolution_language",                                       \
    "--resolution does not apply to language model '{0}'; use --seq")                              \
  X(est_seq_required, "estimate.seq_required",                                                     \
    "--seq is required for model '{0}' (it has no default)")                                       \
  X(est_seq_too_long, "estimate.seq_too_long", "--seq {0} exceeds model '{1}' max_positions {2}")  \
  X(est_tp_heads, "estimate.tp_heads",                                                             \
    "--tp {0} does not divide the attention heads ({1} query, {2} key/value heads)")               \
  X(est_tp_linear_heads, "estimate.tp_linear_heads",                                               \
    "--tp {0} does not divide the linear-attention heads ({1} key, {2} value heads)")              \
  X(est_pp_layers, "estimate.pp_layers", "--pp {0} exceeds the {1} layers of model '{2}'")         \
  X(est_lora_target, "estimate.lora_target", "LoRA target '{0}' matches no layer of model '{1}'")  \
  X(est_seq_image, "estimate.seq_image",                                                           \
    "--seq does not apply to image model '{0}'; use --resolution")                                 \
  X(est_parallel_graph, "estimate.parallel_graph",                                                 \
    "--tp and --pp are modelled for transformers only; model '{0}' is a layer graph")              \
  X(est_lora_graph, "estimate.lora_graph",                                                         \
    "LoRA is modelled for transformers only; model '{0}' is a layer graph")                        \
  X(est_resolution_required, "estimate.resolution_required",                                       \
    "--resolution is required for model '{0}'")                                                    \
  X(est_lora_train_only, "estimate.lora_train_only", "LoRA applies to training (--mode train)")    \
  X(est_quantized_params_recipe, "estimate.quantized_params_recipe",                               \
    "--quantized-params applies to Transformer Engine's recipes (fp8, fp8-blockwise, mxfp8, "      \
    "nvfp4), not {0}")                                                                             \
  X(est_fp8_attention_recipe, "estimate.fp8_attention_recipe",                                     \
    "--fp8-attention applies to Transformer Engine's recipes (fp8, fp8-blockwise, mxfp8, nvfp4), " \
    "not {0}")                                                                                     \
  X(est_fp8_attention_kernel, "estimate.fp8_attention_kernel",                                     \
    "--fp8-attention runs in Transformer Engine's cuDNN fused attention: set --attention cudnn "   \
    "(got {0})")                                                                                   \
  X(est_optimizer_state_dtype, "estimate.optimizer_state_dtype",                                   \
    "--optimizer-state-dtype applies to adam and adamw (Transformer Engine's FusedAdam), not "     \
    "{0}")                                                                                         \
  X(est_master_dtype_kind, "estimate.master_dtype_kind",                                           \
    "--master-dtype must be fp32 or fp16 (Megatron's --main-params-dtype)")                        \
  X(est_master_dtype_recipe, "estimate.master_dtype_recipe",                                       \
    "--master-dtype applies to recipes with master weights (mixed-*, fp8, fp8-blockwise, "         \
    "mxfp8, nvfp4), not {0}")                                                                      \
  X(est_too_many_gpus, "estimate.too_many_gpus",                                                   \
    "--dp x --tp x --pp x --cp = {0} GPUs; at most 1000000 are modelled (lower --dp, --tp, "       \
    "--pp or --cp)")                                                                               \
  X(est_vp_needs_pp, "estimate.vp_needs_pp", "--vp {0} needs --pp 2 or more")                      \
  X(est_tp_overlap_needs_sp, "estimate.tp_overlap_needs_sp",                                       \
    "--tp-comm-overlap needs sequence parallelism (--sp) and --tp > 1")                            \
  X(est_cp_train_only, "estimate.cp_train_only", "--cp is modelled for training only")             \
  /* Launch configs (launch_config.cpp) */                                                         \
  X(emit_degree, "emit.degree",                                                                    \
    "--emit {0}: --{1} {2} cannot be expressed; torchrun/accelerate/DeepSpeed configs run data "   \
    "parallelism with ZeRO/FSDP only (drop --{1}, or --emit megatron for this layout)")            \
  X(emit_train_only, "emit.train_only",                                                            \
    "--emit: launch configs are for training runs (--mode train)")                                 \
  X(emit_tp_pp, "emit.tp_pp",                                                                      \
    "--emit: this plan uses tensor parallel {0} and pipeline {1}; torchrun/accelerate/DeepSpeed "  \
    "configs express data parallelism with ZeRO/FSDP only (use --tp 1 --pp 1, or --emit megatron " \
    "for this plan)")                                                                              \
  X(emit_ep, "emit.ep",                                                                            \
    "--emit: this plan shards the experts over {0} expert-parallel ranks; "                        \
    "torchrun/accelerate/DeepSpeed configs keep every expert on every GPU (use --ep 1, or "        \
    "--emit megatron for this plan)")                                                              \
  X(emit_cp, "emit.cp",                                                                            \
    "--emit: this plan splits each sequence over {0} context-parallel ranks; "                     \
    "torchrun/accelerate/DeepSpeed configs give every GPU whole sequences (use --cp 1, or "        \
    "--emit megatron for this plan)")                                                              \
  X(emit_batch, "emit.batch",                                                                      \
    "--emit: micro-batch {0} x accumulation {1} x data-parallel {2} must equal the global batch "  \
    "{3} on {4} GPUs")                                                                             \
  X(emit_format, "emit.format", "--emit: unknown format")                                          \
  X(emit_megatron_option, "emit.megatron_option",                                                  \
    "--emit megatron: Megatron-LM has no equivalent of {0}")                                       \
  X(emit_megatron_precision, "emit.megatron_precision",                                            \
    "--emit megatron: Megatron-LM keeps fp32 master weights under 16-bit ones and has no "         \
    "autocast, so --precision {0} has no equivalent (use mixed-bf16 or mixed-fp16)")               \
  X(emit_megatron_model, "emit.megatron_model",                                                    \
    "--emit megatron: the command runs Megatron-LM's pretrain_gpt.py, which trains decoder-only "  \
    "language models; '{0}' is not one")                                                           \
  X(emit_megatron_layout, "emit.megatron_layout",                                                  \
    "--emit megatron: --pp x --vp = {0} divides neither the {1} blocks nor the blocks with the "   \
    "embedding and the loss; set --pipeline-model-parallel-layout by hand")                        \
  X(emit_megatron_batch, "emit.megatron_batch",                                                    \
    "--emit megatron: micro-batch {0} x accumulation {1} x data-parallel {2} must equal the "      \
    "global batch {3}, and data x tensor {4} x pipeline {5} x context {6} parallel the {7} GPUs")  \
  X(est_vp_layers, "estimate.vp_layers",                                                           \
    "--vp {0}: the {1} layers of '{2}' cannot fill --pp x --vp = {3} virtual stages (the "         \
    "embedding and the loss take at most one of their own each)")                                  \
  X(est_vp_micro_batches, "estimate.vp_micro_batches",                                             \
    "--vp {0}: the interleaved schedule needs the {1} micro-batches per step to be a multiple "    \
    "of --pp {2} (raise --batch or lower --micro-batch)")                                          \
  X(est_cp_vision, "estimate.cp_vision", "--cp: vision transformers are not context-parallel")     \
  X(est_cp_linear, "estimate.cp_linear",                                                           \
    "--cp: context parallelism of the linear-attention blocks of '{0}' is not modelled")           \
  X(est_cp_chunks, "estimate.cp_chunks",                                                           \
    "--cp {0}: --seq {1} must split into 2 x cp = {2} equal chunks")                               \
  X(est_cp_heads, "estimate.cp_heads",                                                             \
    "--cp-comm all-to-all: the {0} heads ({1} key/value) of '{2}' do not split over --tp x "       \
    "--cp = {3} GPUs")                                                                             \
  X(est_attention_16bit, "estimate.attention_16bit",                                               \
    "--attention {0} needs 16-bit activations (fp16, bf16, amp-*, mixed-*, fp8), not {1}")         \
  X(est_cp_eager, "estimate.cp_eager",                                                             \
    "--cp needs a fused attention kernel (--attention flash, flash3, cudnn or triton)")            \
  X(est_cp_graph, "estimate.cp_graph", "--cp: model '{0}' has no sequence to split")               \
  X(est_offload_train_only, "estimate.offload_train_only",                                         \
    "--offload-activation-layers applies to training (--mode train)")                              \
  X(est_offload_pp, "estimate.offload_pp",                                                         \
    "--offload-activation-layers needs --pp 1 (Megatron offloads no pipeline-parallel run)")       \
  X(est_offload_recompute, "estimate.offload_recompute",                                           \
    "--offload-activation-layers needs --checkpointing none, not {0} (Megatron offloads "          \
    "instead of recomputing)")                                                                     \
  X(est_offload_layers, "estimate.offload_layers",                                                 \
    "--offload-activation-layers {0} must be fewer than the model's {1} blocks")                   \
  X(est_offload_transformer, "estimate.offload_transformer",                                       \
    "--offload-activation-layers applies to transformer models, not '{0}'")                        \
  X(est_offload_modules_train_only, "estimate.offload_modules_train_only",                         \
    "--offload-modules applies to training (--mode train)")                                        \
  X(est_offload_modules_layers, "estimate.offload_modules_layers",                                 \
    "--offload-modules and --offload-activation-layers cannot be combined (Megatron refuses "      \
    "fine-grained activation offloading beside --cpu-offloading)")                                 \
  X(est_offload_modules_recompute, "estimate.offload_modules_recompute",                           \
    "--offload-modules {0}: --checkpointing {1} keeps none of the MoE layer's activations to "     \
    "offload (Megatron refuses offloading inside a recomputed MoE layer)")                         \
  X(est_graphs_train_only, "estimate.graphs_train_only",                                           \
    "--cuda-graph-modules applies to training (--mode train); inference engines capture their "    \
    "own graphs (--runtime)")                                                                      \
  X(est_graphs_preprocess_router, "estimate.graphs_preprocess_router",                             \
    "--cuda-graph-modules moe_preprocess needs moe_router too (Megatron captures the "             \
    "dispatcher's preprocessing with the router)")                                                 \
  X(est_graphs_transformer, "estimate.graphs_transformer",                                         \
    "--cuda-graph-modules {0} names parts of transformer blocks; '{1}' has none (full_iteration "  \
    "captures any model's whole pass)")                                                            \
  X(est_graphs_mamba, "estimate.graphs_mamba",                                                     \
    "--cuda-graph-modules mamba captures Mamba layers; model '{0}' has none")                      \
  X(est_graphs_dropless, "estimate.graphs_dropless",                                               \
    "--cuda-graph-modules {0} captures whole MoE blocks, whose shapes change every step under "    \
    "dropless routing: set --capacity-factor with --moe-pad-to-capacity (full_iteration: or "      \
    "--moe-rank-capacity), or capture attn,moe_router,moe_preprocess")                             \
  X(est_graphs_a2a_overlap, "estimate.graphs_a2a_overlap",                                         \
    "--cuda-graph-modules {0} holds whole MoE blocks in per-layer graphs, which the all-to-all "   \
    "overlap splits: drop --moe-a2a-overlap, or capture full_iteration (Megatron refuses both)")   \
  X(est_rank_capacity_hybridep, "estimate.rank_capacity_hybridep",                                 \
    "--moe-rank-capacity is HybridEP's per-rank budget: set --moe-dispatcher hybridep (got {0})")  \
  X(est_mtp_transformer, "estimate.mtp_transformer",                                               \
    "--mtp-layers applies to transformer language models, not '{0}'")                              \
  X(est_overflow, "estimate.overflow",                                                             \
    "the estimate overflowed for model '{0}': reduce --batch or --seq")                            \
  /* Mixture of experts and expert parallelism (moe_layout.cpp) */                                 \
  X(est_moe_only, "estimate.moe_only",                                                             \
    "--{0} applies to mixture-of-experts models; model '{1}' has no experts")                      \
  X(est_ep_experts, "estimate.ep_experts",                                                         \
    "--ep {0} does not divide the {1} experts of model '{2}'")                                     \
  X(est_ep_ranks, "estimate.ep_ranks",                                                             \
    "--ep x --etp = {0} does not divide --dp x --cp x --tp = {1} (experts are sharded over the "   \
    "data-, context- and tensor-parallel GPUs)")                                                   \
  X(est_etp_ffn, "estimate.etp_ffn", "--etp {0} does not divide the experts' FFN width {1}")       \
  X(est_pad_needs_capacity, "estimate.pad_needs_capacity",                                         \
    "--moe-pad-to-capacity needs --capacity-factor (the capacity experts are padded to)")          \
  X(est_ep_needs_sp, "estimate.ep_needs_sp",                                                       \
    "--ep with --tp {0} needs sequence parallelism (--sp), as Megatron-Core's MoE layers do")      \
  X(est_moe_imbalance, "estimate.moe_imbalance",                                                   \
    "--moe-imbalance {0} is outside [1, {1}]: the busiest of {2} experts with {3} per token "      \
    "takes at most every token")                                                                   \
  /* The training time model (roofline.cpp, collectives.cpp, step_time.cpp) */                     \
  X(time_no_fp4, "time.no_fp4",                                                                    \
    "GPU '{0}' has no FP4 tensor cores; nvfp4 needs Blackwell (sm_100 or later): choose fp8 "      \
    "or another GPU")                                                                              \
  X(time_no_mx_fp8, "time.no_mx_fp8",                                                              \
    "GPU '{0}' has no block-scaled (MX) FP8 tensor cores; mxfp8 needs Blackwell (sm_100 or "       \
    "later): choose fp8 or fp8-blockwise, or another GPU")                                         \
  X(time_no_peak, "time.no_peak",                                                                  \
    "GPU '{0}' has no sourced dense {1} peak (it may not support {2}); choose another "            \
    "precision or GPU")                                                                            \
  X(time_no_memory_bandwidth, "time.no_memory_bandwidth", "GPU '{0}' has no memory bandwidth")     \
  X(time_gpus_range, "time.gpus_range", "--gpus must be between 1 and {0}")                        \
  X(time_nodes_range, "time.nodes_range",                                                          \
    "node count must be between 1 and {0} (at most {1} GPUs of {2} per node)")                     \
  X(time_whole_domains, "time.whole_domains",                                                      \
    "instance '{0}' is sold only as whole NVLink domains of {1} hosts ({2} GPUs): use {3} "        \
    "nodes or a multiple")                                                                         \
  X(time_no_network, "time.no_network",                                                            \
    "instance '{0}' has no sourced network bandwidth; runs across NVLink domains ({1} GPUs "       \
    "each) cannot be timed")                                                                       \
  X(time_gpus_mismatch, "time.gpus_mismatch",                                                      \
    "--dp x --tp x --pp x --cp = {0} GPUs, but the cluster has {1}")                               \
  X(time_no_serving_profiles, "time.no_serving_profiles",                                          \
    "--generate: the serving runtimes' profiles (data/assumptions.json) were not loaded")          \
  X(time_generation_tp_domain, "time.generation_tp_domain",                                        \
    "--tp {0} spans machines: a serving replica keeps tensor parallelism inside one NVLink "       \
    "domain ({1} GPUs); lower --tp and let --dp or --pp take the rest")                            \
  /* Prices and run cost (cost.cpp) */                                                             \
  X(price_none, "price.none", "instance '{0}' has no published price")                             \
  X(price_none_in_region, "price.none_in_region",                                                  \
    "instance '{0}' has no published price in region '{1}'")                                       \
  X(price_not_sold, "price.not_sold",                                                              \
    "{0} does not sell {1} capacity (instance '{2}'; data/providers/{3}.json)")                    \
  X(price_spot_bucket, "price.spot_bucket",                                                        \
    "spot interruption bucket '{0}' is not in pricing_rules.json (known: {1})")                    \
  X(cost_epochs_need_dataset, "cost.epochs_need_dataset",                                          \
    "--epochs needs --dataset-size (samples per epoch)")                                           \
  X(cost_spot_too_frequent, "cost.spot_too_frequent",                                              \
    "spot interruptions are too frequent for the checkpoint interval: the run would never "        \
    "finish (checkpoint more often)")                                                              \
  /* The planner (plan.cpp) */                                                                     \
  X(plan_no_run_length, "plan.no_run_length",                                                      \
    "give a run length: --tokens N, or --epochs N with --dataset-size N")                          \
  X(plan_limits_negative, "plan.limits_negative",                                                  \
    "--deadline-hours and --budget-usd must be positive numbers")                                  \
  X(plan_train_only, "plan.train_only", "plan supports --mode train")                              \
  X(plan_unknown_gpu, "plan.unknown_gpu", "--plan-gpu: unknown GPU '{0}' (run 'gpuplan gpus')")    \
  X(plan_unknown_gpu_like, "plan.unknown_gpu_like",                                                \
    "--plan-gpu: unknown GPU '{0}'; did you mean one of: {1}")                                     \
  X(plan_estimate_hardware, "plan.estimate_hardware",                                              \
    "--{0} is the estimate's hardware: plan chooses the GPU, instance and nodes itself "           \
    "(--plan-gpu ID keeps one GPU's instances; --provider and --min-gpu-memory-gb narrow the "     \
    "search)")                                                                                     \
  X(plan_no_instance, "plan.no_instance",                                                          \
    "no priced instance matches the filters (provider, GPU, region, compliance, minimum GPU "      \
    "memory, precision support): relax them")                                                      \
  X(plan_layout_unavailable, "plan.layout_unavailable",                                            \
    "no instance can run --tp {0} --pp {1} for this model and batch (tensor parallelism stays "    \
    "inside one node, the GPUs must be a multiple of tp x pp, and the data-parallel degree must "  \
    "divide --batch): change --tp, --pp or --batch")                                               \
  X(plan_memory_binds, "plan.memory_binds",                                                        \
    "memory binds: no configuration fits in GPU memory; the closest ({0}) is {1} short (try "      \
    "--checkpointing full, a smaller --batch, more --max-nodes, or --lora-rank)")                  \
  X(plan_deadline_binds, "plan.deadline_binds",                                                    \
    "deadline binds: the fastest plan takes {0} h (relax --deadline-hours or --budget-usd, or "    \
    "raise --max-nodes)")                                                                          \
  X(plan_budget_binds, "plan.budget_binds",                                                        \
    "budget binds: the cheapest plan costs {0} USD (relax --deadline-hours or --budget-usd, or "   \
    "raise --max-nodes)")                                                                          \
  /* Uploaded and catalog files (json_reader.h, hf_config.cpp, probe_file.cpp) */                  \
  X(file_too_large, "file.too_large", "{0}: file is {1} bytes; the limit is {2} bytes")            \
  X(file_empty, "file.empty", "{0}: file is empty")                                                \
  X(file_too_deep, "file.too_deep", "{0}: nesting deeper than 64 levels")                          \
  X(file_not_json, "file.not_json", "{0}: not valid JSON at line {1}, column {2}")                 \
  X(file_not_json_overflow, "file.not_json_overflow",                                              \
    "{0}: not valid JSON at line {1}, column {2}: the number does not fit a double")               \
  X(file_not_json_nan, "file.not_json_nan",                                                        \
    "{0}: not valid JSON at line {1}, column {2}: JSON has no NaN or Infinity (write null or a "   \
    "number)")                                                                                     \
  X(file_bad_version, "file.bad_version",                                                          \
    "{0}: schema_version {1} is not supported (this build reads {2}); update gpuplan or convert "  \
    "the file")                                                                                    \
  X(file_missing_field, "file.missing_field", "{0}: {1}: missing required field")                  \
  X(file_unknown_field, "file.unknown_field",                                                      \
    "{0}: {1}: unknown field (check its spelling against the schema)")                             \
  X(file_wrong_type, "file.wrong_type", "{0}: {1}: expected {2}, got {3}")                         \
  X(file_out_of_range, "file.out_of_range", "{0}: {1}: {2} is out of range [{3}, {4}]")            \
  X(file_unknown_value, "file.unknown_value",                                                      \
    "{0}: {1}: unknown value '{2}' (expected one of: {3})")                                        \
  X(config_model_type, "config.model_type",                                                        \
    "{0}: model_type '{1}' is not supported (supported: {2})")                                     \
  X(probe_signature_alg, "probe.signature_alg",                                                    \
    "{0}: {1}.alg: '{2}' is not supported (expected Ed25519)")                                     \
  X(probe_public_key, "probe.public_key", "{0}: {1}.public_key: expected base64 of 32 bytes")      \
  X(probe_signature_bytes, "probe.signature_bytes", "{0}: {1}.sig: expected base64 of 64 bytes")   \
  X(probe_payload_base64, "probe.payload_base64",                                                  \
    "{0}: payload: not valid base64 (RFC 4648, padded)")                                           \
  X(probe_too_many_signatures, "probe.too_many_signatures",                                        \
    "{0}: signatures: {1} entries; at most {2} are read")                                          \
  X(probe_payload_type, "probe.payload_type", "{0}: payloadType: '{1}' is not '{2}'")              \
  /* Why a probe file's signature is invalid, or why it is unsigned (ProbeFile::reason) */         \
  X(probe_sig_payload_type, "probe.sig_payload_type", "payloadType '{0}' is not '{1}'")            \
  X(probe_sig_keyid, "probe.sig_keyid", "keyid {0} does not match the public key (expected {1})")  \
  X(probe_sig_not_verified, "probe.sig_not_verified",                                              \
    "the Ed25519 signature does not verify: the payload, its type or the key was changed after "   \
    "signing")                                                                                     \
  X(probe_unsigned_bare, "probe.unsigned_bare",                                                    \
    "the file is a bare payload without a signature envelope")                                     \
  X(probe_unsigned_envelope, "probe.unsigned_envelope", "the envelope has no signatures")

// One value per message; none: an Error without an id (shown in English everywhere).
enum class Msg : int {
#define GPUPLAN_MSG_ENUM(name, id, english) name,
  GPUPLAN_MESSAGES(GPUPLAN_MSG_ENUM)
#undef GPUPLAN_MSG_ENUM
      none
};

// Every message with an id, in the order above.
struct MessageSpec {
  Msg msg;
  const char* id;       // "query.out_of_range"
  const char* english;  // "--{0}: {1} is out of range [{2}, {3}]"
};
const std::vector<MessageSpec>& message_specs();
// The stable id of a message ("" for Msg::none).
const char* message_id(Msg msg);
// The English template of a message ("{0}" for Msg::none).
const char* message_english(Msg msg);

// A template with {0}, {1}, ... replaced by args (a placeholder with no arg stays as it is;
// "{{" is not special: templates hold no other braces).
std::string render_message(const std::string& templ, const std::vector<std::string>& args);
// The placeholder numbers a template uses, sorted and unique ({1} and {0} -> 0, 1).
std::vector<int> message_placeholders(const std::string& templ);

}  // namespace gpuplan
