#pragma once
// One serving replica: a model on `tp` GPUs of one kind, its memory (what is left for the KV
// cache, concurrent sequences) and the time of one engine step as a function of what the running
// batch holds. Hardware efficiencies come from the same Efficiencies as the training model.
// Pure functions: no I/O, no globals. Implemented in core/src/serving/serve_replica.cpp.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/expert_parallel.h"
#include "gpuplan/hardware.h"
#include "gpuplan/model.h"
#include "gpuplan/result.h"
#include "gpuplan/serve_assumptions.h"
#include "gpuplan/timing.h"

namespace gpuplan {

// Speculative decoding: a cheap drafter proposes `tokens` tokens, the model verifies them in one
// pass over tokens + 1 positions per sequence and keeps the accepted prefix plus one token of
// its own (Leviathan et al. 2023, "Fast Inference from Transformers via Speculative Decoding";
// Chen et al. 2023, "Accelerating Large Language Model Decoding with Speculative Sampling").
// The drafter: a smaller model of the zoo (draft), one decoder block of the model's width on
// its features (EAGLE: Li et al. 2024, "EAGLE: Speculative Sampling Requires Rethinking Feature
// Uncertainty", sec. 3.1), or the model's own multi-token prediction modules (mtp: DeepSeek-V3).
enum class SpecMethod { none, draft, eagle, mtp };
const char* spec_method_name(SpecMethod m);
std::optional<SpecMethod> parse_spec_method(const std::string& s);
struct SpecDecoding {
  SpecMethod method = SpecMethod::none;
  int tokens = 0;                // draft tokens proposed per step (k)
  double acceptance = 0;         // per-token acceptance rate (a), stated by the user: no default
  std::string draft_model;       // the zoo model that drafts (method draft)
  const Model* draft = nullptr;  // draft_model looked up in the catalog (the planner does it)
};
// Tokens a sequence gains per verify step when each draft token is accepted with probability a,
// independently: (1 - a^(k+1)) / (1 - a) (Leviathan et al. 2023, eq. 1); k + 1 at a = 1.
double spec_expected_tokens(double acceptance, int tokens);

// One replica: a model on `tp` GPUs of one kind.
struct ServeConfig {
  WeightFormat weights = WeightFormat::bf16;
  // Run the model's checkpoint as published instead of `weights`: Model::checkpoint_weights
  // (fp8 for DeepSeek-V3, MXFP4 for GPT-OSS), 16-bit where it names none.
  bool checkpoint_weights = false;
  KvFormat kv = KvFormat::bf16;
  Runtime runtime = Runtime::vllm;
  int tp = 1;  // tensor-parallel GPUs per replica (per pipeline stage with pp > 1)
  // Pipeline stages (TensorRT-LLM's pp_size, vLLM's --pipeline-parallel-size): each stage holds
  // 1/pp of the layers on its own tp GPUs, so a replica has tp x pp GPUs; the runtime splits the
  // running batch into micro-batches that keep every stage busy.
  int pp = 1;
  int ep = 1;  // expert-parallel degree for MoE layers (divides tp); 0: tp (every GPU of it)
  // Attention data parallelism (MoE models): each GPU of the replica runs attention and the
  // layers outside the routed experts whole, for its own share of the sequences and their KV
  // cache; only the routed experts are split (by ep, else tensor parallel). TensorRT-LLM's
  // enable_attention_dp, SGLang's --enable-dp-attention, vLLM's --data-parallel-size with
  // --enable-expert-parallel. The batch limits become per GPU.
  bool attention_dp = false;
  int64_t max_num_seqs = 0;            // 0: the runtime's default for this GPU
  int64_t max_num_batched_tokens = 0;  // 0: the runtime's default for this GPU
  double memory_fraction = 0;          // 0: the runtime's default
  double link_busbw_bytes_per_s = 0;   // 0: NVLink if the GPU has it, else PCIe
  // Time the weight matmuls at the rates measured for the runtime's own GEMM kernels on this GPU
  // (Gpu::serving_gemm, serving_gemm_rates) where known; false for a run of other kernels.
  bool runtime_gemm_rates = true;
  SpecDecoding spec;
};

// Memory of one GPU of a replica and what is left for the KV cache, by term.
struct ReplicaMemory {
  double gpu_bytes = 0;                // as the device reports it
  double budget_bytes = 0;             // the runtime's share
  double weight_bytes = 0;             // the drafter's included
  double spec_weight_bytes = 0;        // the drafter's weights (speculative decoding; 0 without)
  double activation_bytes = 0;         // peak intermediate tensors of one step at the token budget
  double context_bytes = 0;            // CUDA context and kernels
  double kv_bytes = 0;                 // left for the KV cache
  double kv_bytes_per_token = 0;       // this GPU's share of one token's keys and values
  double spec_kv_bytes_per_token = 0;  // the drafter's, held beside the model's in every block
  // Linear-attention blocks (model.h): this GPU's share of one sequence's state in all of them,
  // whatever its length (kv_cache_size's state_bytes), kept in the KV cache's blocks: each
  // sequence takes state_blocks_per_seq blocks besides its tokens'.
  double state_bytes_per_seq = 0;
  int64_t state_blocks_per_seq = 0;
  // The replica's blocks: each of its GPUs holds a share of every block (tensor parallel), or
  // whole blocks of its own sequences (attention data parallel: the GPUs' blocks together).
  int64_t kv_blocks = 0;
  int64_t kv_tokens = 0;  // kv_blocks x block size
  bool fits = false;
};

struct ReplicaModel;
// Speculative decoding as the step model uses it (ServeConfig::spec, resolved).
struct SpecModel {
  SpecMethod method = SpecMethod::none;
  int tokens = 0;                       // k: a decode step verifies k + 1 positions per sequence
  double acceptance = 0;                // a
  double expected_tokens = 1;           // tokens per sequence and step (spec_expected_tokens)
  std::shared_ptr<const Model> module;  // the EAGLE or MTP drafter as a one-block model
  std::shared_ptr<const ReplicaModel> draft;  // times one draft step (null: no drafter)
};

// The step-time model of one replica, resolved once.
struct ReplicaModel {
  const Model* model = nullptr;
  const Gpu* gpu = nullptr;
  ServeConfig config;
  RuntimeProfile profile;
  ReplicaMemory memory;
  int64_t max_num_seqs = 0;  // the replica's (the runtime's per-GPU limit x attention_dp)
  int64_t max_num_batched_tokens = 0;
  int64_t block_tokens = 16;
  // Attention data-parallel ranks (ServeConfig::attention_dp): 1, or tp. A step's sequences and
  // prompt tokens spread evenly over them (StepLoad::one_rank: all on one); each rank's own
  // work is timed from the "rank" fields below, the routed experts' from all the step's tokens.
  double attention_dp = 1;
  // Per GPU and step. Per token: a token of the GPU's own (its rank's) share of the step.
  double dense_weight_bytes = 0;      // read every step (attention, norms, head, router)
  double expert_bytes_per_layer = 0;  // all experts of one MoE layer (0 for dense models)
  double moe_layers = 0;
  double experts = 0, experts_per_token = 0;
  // Weight matmuls of one token through the blocks (active experts), without attention DP.
  double gemm_flops_per_token = 0;
  double head_flops_per_token = 0;  // the LM head, for tokens that are sampled
  // The weight matmuls of a block for tile and wave quantisation: output columns on this GPU,
  // FLOPs on this GPU per token that passes it, and whether its rows are the tokens routed to
  // one expert (the step's, from every rank) or the rank's own tokens.
  struct Gemm {
    double cols = 0;
    double flops_per_token = 0;
    bool expert = false;
  };
  std::vector<Gemm> gemms;
  double head_cols = 0;  // vocabulary columns on this GPU
  int sms = 0;           // the GPU's SM count (0: unknown, no quantisation)
  Efficiencies tiles;    // the GEMM output tile (gemm_tile_rows x gemm_tile_cols)
  // Matmul inputs and outputs of one token (they move with the weights): attention's and the
  // hidden state's (rank), the MLP's (routed experts in MoE layers: every token of the step).
  double activation_bytes_per_token = 0;
  double mlp_activation_bytes_per_token = 0;
  // Element-wise kernels: norms and residual adds (rank), the MLP's activation function.
  double elementwise_bytes_per_token = 0;
  double mlp_elementwise_bytes_per_token = 0;
  double attention_flops_per_pair = 0;         // one query against one key, all layers (prefill)
  double decode_attention_flops_per_pair = 0;  // the same in decode (MLA: over the latent)
  // Sparse attention (model.h): its indexer scoring one key for one query, all layers (on every
  // tensor-parallel rank), and the index keys of one token inside memory.kv_bytes_per_token.
  double indexer_flops_per_pair = 0;
  double index_bytes_per_token = 0;
  // Linear-attention blocks' token mixing per token, all of them, on one GPU: a decode token's
  // recurrent update, and a prompt token's share of the chunked rule at the runtime's chunk
  // (linear_attention_core_flops_per_token); their state is read and written once per step and
  // sequence (memory.state_bytes_per_seq).
  double linear_decode_flops_per_token = 0;
  double linear_prefill_flops_per_token = 0;
  double compute_flop_per_s = 0;    // achievable matmul rate at the weights' precision
  double attention_flop_per_s = 0;  // achievable 16-bit rate: attention runs at 16 bits
  double indexer_flop_per_s = 0;    // sparse attention's indexer: fp8 where the GPU has it
  double hbm_bytes_per_s = 0;       // achievable
  // The bytes/s at which a step's weight matmuls stream their weights: the runtime's measured
  // GEMM kernels' (serving_gemm_rates), else hbm_bytes_per_s.
  double weight_bytes_per_s = 0;
  // The bytes/s at which its routed experts' weights stream: the runtime's measured fused-MoE
  // kernels' (Gpu::serving_moe_stream_bytes_per_s), else weight_bytes_per_s.
  double expert_weight_bytes_per_s = 0;
  double layers = 0;  // block-equivalents: two sublayers each (a layer pattern has one per layer)
  double hidden = 0;
  double link_busbw_bytes_per_s = 0;
  // Layer split (RuntimeProfile::layer_split): the replica's GPUs each hold 1/stages of the
  // layers and run one after another; memory is per GPU, the step's bytes and times the whole
  // model's, and each of the stages - 1 hand-overs pays a hop. Pipelined (ServeConfig::pp): the
  // same stages, each on tp GPUs, with the step's sequences in up to `stages` micro-batches
  // that run in the stages at once.
  double stages = 1;
  bool pipelined = false;
  double stage_hop_latency_s = 0;
  // Of the stages - 1 hand-overs, those between machines, over the hosts' network.
  double stage_network_hops = 0;
  double stage_network_bytes_per_s = 0;
  double stage_network_latency_s = 0;
  double stage_hop_bytes_per_token = 0;  // the hidden state one token hands to the next GPU
  double stage_link_bytes_per_s = 0;
  bool pcie_allreduce = false;     // the TP group's all-reduce runs through PCIe (NCCL)
  double allreduce_latency_s = 0;  // one small all-reduce: the runtime's kernel, or NCCL on PCIe
  double kernel_overhead_s = 0;    // per kernel, GPU side
  double host_overhead_per_kernel_s = 0;
  std::string compute_precision;  // "bf16", "fp8", ...
  SpecModel spec;
  std::vector<std::string> notes;
};

// The weight format the model's published checkpoint ships in (Model::checkpoint_weights), bf16
// where it names none.
WeightFormat checkpoint_weight_format(const Model& model);

// A pipelined replica whose stages span `machines` machines: machines - 1 of its hand-overs
// cross the hosts' network (network_bytes_per_s per host, the efficiencies' network hop latency).
void span_machines(ReplicaModel& r, int machines, double network_bytes_per_s,
                   const Efficiencies& eff);

// Resolves the replica model; an Error when the setup is invalid (names the field) or the
// model does not fit (says by how much).
Result<ReplicaModel> build_replica(const Model& model, const Gpu& gpu, const ServeConfig& config,
                                   const ServingAssumptions& serving, const Efficiencies& eff);

// As build_replica, for a runtime without continuous batching or a step budget (transformers'
// generate) whose config sets no token budget: it prefills its whole static batch in one forward
// pass, so the batch's activations and its KV cache share the memory. The batch is as many
// sequences of `prompt_tokens` + `output_tokens` as the memory holds at their activations and
// KV blocks each (at most config.max_num_seqs when set); its token budget is their prompts. Other
// runtimes: build_replica.
Result<ReplicaModel> build_static_batch_replica(const Model& model, const Gpu& gpu,
                                                const ServeConfig& config, double prompt_tokens,
                                                double output_tokens,
                                                const ServingAssumptions& serving,
                                                const Efficiencies& eff);

// The share of a sequence's keys and values (token x layer) the runtime keeps at `tokens`
// tokens: a windowed layer's window where its cache is sized to it (RuntimeProfile::
// window_sized_kv), else the longest window of any layer; every token of chunked local attention
// that the runtime applies to prefill only (chunked_attention_decode false). 1 without windows.
double kept_kv_share(const ReplicaModel& r, double tokens);

// Maximum sequences running at once with prompt + output tokens each (KV and runtime limits).
int64_t max_concurrent_sequences(const ReplicaModel& r, double prompt_tokens, double output_tokens);

// What one engine step processes.
struct StepLoad {
  double decode_seqs = 0;      // sequences generating one token
  double decode_context = 0;   // sum of their context lengths (keys read)
  double prefill_tokens = 0;   // prompt tokens processed this step
  double prefill_last = 0;     // prompts whose last chunk is in this step (sampled)
  double prefill_pairs = 0;    // query-key pairs of those prompt tokens (causal)
  double prefill_context = 0;  // tokens before those chunks (cached or earlier), their KV read
  bool one_rank = false;       // attention DP: all of it on one rank (a lone request)
};
// Step time by term.
struct StepBreakdown {
  double weights_s = 0;      // weight matmuls (roofline of bytes vs FLOPs)
  double elementwise_s = 0;  // norms, residual adds, activation function (memory-bound)
  double attention_s = 0;    // attention (KV reads vs FLOPs)
  double comm_s = 0;         // tensor-parallel all-reduces, expert-parallel all-to-all
  double overhead_s = 0;     // kernel gaps (or host time when it dominates)
  double draft_s = 0;        // speculative decoding: the drafter's steps (in total_s)
  double host_s = 0;  // the host's time for the step, beside the GPU's (in total_s if longer)
  double total_s = 0;
  double experts_touched = 0;  // per MoE layer
};
StepBreakdown step_time(const ReplicaModel& r, const StepLoad& load);

// Prefill time of one prompt alone (chunked by the token budget), the zero-load TTFT; the first
// `cached_tokens` are in the prefix cache: not computed, their keys and values read.
double prefill_time_s(const ReplicaModel& r, double prompt_tokens, double cached_tokens = 0);

// How a burst's prompts share the steps: as the scheduler runs them (a prompt's chunks alone in
// their steps while requests end less than once a step), or spread evenly over every step (the
// optimistic bound: prefill compute hidden under memory-bound decode steps).
enum class BurstSteps { as_scheduled, spread };

// Steady-state output tokens/s of a burst (all requests at once, fixed lengths), in closed form;
// the first `cached_tokens` of each prompt are in the prefix cache.
double burst_output_tokens_per_s(const ReplicaModel& r, double prompt_tokens, double output_tokens,
                                 double cached_tokens = 0,
                                 BurstSteps steps = BurstSteps::as_scheduled);

}  // namespace gpuplan
