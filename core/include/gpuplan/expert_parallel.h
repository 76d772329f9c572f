#pragma once
// Mixture-of-experts layers as Megatron-Core lays them out under expert parallelism
// (NVIDIA/Megatron-LM@d98e8a64ddf3: megatron/core/parallel_state.py, initialize_model_parallel;
// megatron/core/transformer/moe/moe_layer.py, token_dispatcher.py):
//   - the expert grid folds the dense grid's tensor- and data-parallel ranks (tp x dp; cp too)
//     into etp x ep x edp: experts are sharded over ep ranks, each expert's GEMMs over etp ranks
//     (default etp = tp), and each expert shard is replicated over edp = dp x tp / (ep x etp);
//     pipeline stages are the same for both grids;
//   - attention, norms, embeddings and shared experts stay data-parallel over all dp ranks;
//     expert gradients are reduced (and, with the distributed optimizer, their optimizer states
//     sharded) over the edp group only (distributed/distributed_data_parallel.py);
//   - each rank routes its own (sequence-parallel) share of the tokens and sends every (token,
//     expert) pair to the rank holding the expert: an all-to-all over the ep group to dispatch,
//     one back to combine; with etp > 1 the received tokens are all-gathered over the etp group
//     and the outputs reduce-scattered (MoEAlltoAllTokenDispatcher).
// The planner asks valid_expert_parallel_degrees() which ep values a model and cluster allow.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/result.h"

namespace gpuplan {

// The busiest expert's share of routed tokens relative to an even share, when the setup leaves
// it at 0: 1.52, the global maximal violation (MaxVio_global = max load / mean load - 1 = 0.52)
// that Wang et al. 2024 measured with auxiliary-loss-controlled routing on their 3B MoE model
// ("Auxiliary-Loss-Free Load Balancing Strategy for Mixture-of-Experts", arXiv:2408.15664,
// Table 2; 0.72 on the 1B model, 0.04 with their loss-free balancing). Benchmarks that force an
// even router (Megatron's --moe-router-force-load-balancing) are 1.
inline constexpr double kDefaultBusiestExpertLoad = 1.52;

// What the MoE blocks of a transformer are made of (all 0 for a dense model).
struct MoeShape {
  double moe_layers = 0;    // blocks whose MLP is a mixture of experts
  double dense_layers = 0;  // blocks with a dense MLP
  double experts = 0;       // routed experts per MoE block
  double top_k = 0;         // routed experts per token
  double expert_ffn = 0;    // one routed expert's FFN width
  double shared_ffn = 0;    // the shared experts' FFN width, all of them together (0: none)
  double dense_ffn = 0;     // the dense blocks' FFN width
};
MoeShape moe_shape(const TransformerSpec& spec);

// Expected experts a step touches in one MoE layer when `tokens` tokens each pick
// `experts_per_token` of `experts` at random: E (1 - (1 - k/E)^tokens). What a decode step reads.
double experts_touched(double experts, double experts_per_token, double tokens);

// How a setup places the experts of one MoE model.
struct ExpertLayout {
  int ep = 1;                 // expert-parallel ranks
  int etp = 1;                // ranks each expert's GEMMs are split over
  int edp = 1;                // replicas of each expert shard (its gradients are reduced there)
  double local_experts = 1;   // experts on one rank
  double busiest_expert = 1;  // the busiest expert's tokens / an even share, after dropping
  double rank_load = 1;       // the busiest rank's routed tokens / an even share
  // The busiest rank's receive buffers / an even share: rank_load, or HybridEP's fixed per-rank
  // budget (Setup::moe_rank_capacity) where one is set.
  double receive_share = 1;
  double capacity_factor = 0;  // 0: dropless
};

// The layout of `spec` (model `model_id`) under `setup` (setup.dp x setup.tp x setup.pp GPUs).
// Errors name the key: --ep must divide the experts and ep x etp the data- and tensor-parallel
// ranks (dp x tp), --etp the expert FFN width; the MoE keys need a mixture-of-experts model.
Result<ExpertLayout> expert_layout(const TransformerSpec& spec, const Setup& setup,
                                   const std::string& model_id);
// The error for MoE keys (--ep, --etp, --capacity-factor, ...) given for a model without experts
// (a dense transformer or a layer graph), if any.
std::optional<Error> dense_model_moe_settings(const Setup& setup, const std::string& model_id);

// The ep degrees `gpus` GPUs allow for `spec` with tensor parallelism `tp`, pipeline stages `pp`
// and expert tensor parallelism `etp` (0: as tp), ascending; {1} for a dense model.
std::vector<int> valid_expert_parallel_degrees(const TransformerSpec& spec, int gpus, int tp,
                                               int pp, int etp = 0);

// Bytes one GPU sends to dispatch one micro-batch sample's tokens of one MoE block under `layout`
// (the combine all-to-all returns as many): its sequence-parallel share of the tokens,
// tokens / tp, each sent once per routed expert, hidden x `element_bytes` each.
double dispatch_bytes_per_sample(const TransformerSpec& spec, int64_t seq_len, int tp,
                                 double element_bytes);

}  // namespace gpuplan
