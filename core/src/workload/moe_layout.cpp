// Where a mixture-of-experts model's experts live under a setup (expert_parallel.h): the shape of
// its MoE blocks, the expert-parallel grid carved out of the data- and tensor-parallel ranks, the
// busiest rank's share of the routed tokens, and the bytes one token dispatch moves.
#include <algorithm>
#include <cmath>
#include <string>

#include "gpuplan/expert_parallel.h"
#include "gpuplan/transformer.h"

namespace gpuplan {
namespace {

Error invalid(Msg id, std::vector<std::string> args) {
  return make_error(Errc::invalid_argument, id, std::move(args));
}
std::string str(double n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", n);
  return buf;
}

// The busiest expert's tokens relative to an even share once an expert takes at most
// `capacity_factor` times that share (0: no cap) and drops the rest.
double capped(double load, double capacity_factor) {
  return capacity_factor > 0 ? std::min(load, capacity_factor) : load;
}

}  // namespace

// Errors for MoE settings that a model without experts cannot use.
std::optional<Error> dense_model_moe_settings(const Setup& setup, const std::string& id) {
  if (setup.ep > 1) return invalid(Msg::est_moe_only, {"ep", id});
  if (setup.etp > 0) return invalid(Msg::est_moe_only, {"etp", id});
  if (setup.capacity_factor > 0) return invalid(Msg::est_moe_only, {"capacity-factor", id});
  if (setup.moe_imbalance > 0) return invalid(Msg::est_moe_only, {"moe-imbalance", id});
  if (setup.moe_a2a_overlap) return invalid(Msg::est_moe_only, {"moe-a2a-overlap", id});
  if (setup.moe_pad_to_capacity) return invalid(Msg::est_moe_only, {"moe-pad-to-capacity", id});
  if (setup.moe_rank_capacity > 0) return invalid(Msg::est_moe_only, {"moe-rank-capacity", id});
  if (setup.offload_modules != 0) return invalid(Msg::est_moe_only, {"offload-modules", id});
  const unsigned moe_graphs = kGraphMoe | kGraphMoeRouter | kGraphMoePreprocess;
  if (setup.cuda_graph_modules & moe_graphs) {
    return invalid(
        Msg::est_moe_only,
        {"cuda-graph-modules " + cuda_graph_modules_name(setup.cuda_graph_modules & moe_graphs),
         id});
  }
  return std::nullopt;
}

double experts_touched(double experts, double experts_per_token, double tokens) {
  if (experts <= 0 || tokens <= 0) return 0;
  return experts * (1.0 - std::pow(1.0 - experts_per_token / experts, tokens));
}

MoeShape moe_shape(const TransformerSpec& spec) {
  // Both stacks of an encoder-decoder model; multi-token prediction modules are left out, as the
  // time model's blocks are (work_profile.cpp).
  const TransformerSpec decoder = spec.stack(spec.decoder_layers);
  MoeShape m;
  m.moe_layers = static_cast<double>(spec.moe_layer_count() + decoder.moe_layer_count());
  m.dense_layers =
      static_cast<double>(spec.dense_mlp_layer_count() + decoder.dense_mlp_layer_count());
  m.dense_ffn = static_cast<double>(spec.ffn_hidden);
  if (!spec.is_moe()) return m;
  m.experts = static_cast<double>(spec.experts);
  m.top_k = static_cast<double>(spec.experts_per_token);
  m.expert_ffn = static_cast<double>(spec.moe_ffn_hidden_or_default());
  m.shared_ffn =
      static_cast<double>(spec.shared_experts * spec.shared_expert_ffn_hidden_or_default());
  return m;
}

Result<ExpertLayout> expert_layout(const TransformerSpec& spec, const Setup& setup,
                                   const std::string& id) {
  if (!spec.is_moe()) {
    if (auto err = dense_model_moe_settings(setup, id)) return *err;
    return ExpertLayout{};
  }
  const MoeShape m = moe_shape(spec);
  ExpertLayout x;
  x.ep = setup.ep;
  x.etp = setup.etp > 0 ? setup.etp : setup.tp;
  if (spec.experts % x.ep != 0)
    return invalid(Msg::est_ep_experts, {std::to_string(x.ep), str(m.experts), id});
  // Megatron-Core folds context parallelism into the experts' ranks: ep x etp x edp = dp x cp x tp
  // (parallel_state.py, the expert-model-parallel groups).
  const int64_t ranks = int64_t{setup.dp} * setup.cp * setup.tp;
  if (ranks % (int64_t{x.ep} * x.etp) != 0) {
    return invalid(Msg::est_ep_ranks,
                   {std::to_string(int64_t{x.ep} * x.etp), std::to_string(ranks)});
  }
  if (spec.moe_ffn_hidden_or_default() % x.etp != 0)
    return invalid(Msg::est_etp_ffn, {std::to_string(x.etp), str(m.expert_ffn)});
  if (x.ep > 1 && setup.tp > 1 && !setup.sequence_parallel && setup.mode == Mode::train)
    return invalid(Msg::est_ep_needs_sp, {std::to_string(setup.tp)});
  // Every token picks top_k distinct experts, so one expert takes at most every token:
  // experts / top_k times an even share.
  const double most = m.experts / m.top_k;
  if (setup.moe_imbalance != 0 && (setup.moe_imbalance < 1 || setup.moe_imbalance > most)) {
    return invalid(Msg::est_moe_imbalance,
                   {str(setup.moe_imbalance), str(most), str(m.experts), str(m.top_k)});
  }
  if (setup.moe_pad_to_capacity && setup.capacity_factor <= 0)
    return invalid(Msg::est_pad_needs_capacity, {});
  // Megatron sets a per-rank budget on the flex dispatcher's HybridEP (and NCCL-EP) backends only
  // (transformer_config.py, moe_expert_rank_capacity_factor).
  if (setup.moe_rank_capacity > 0 && setup.moe_dispatcher != MoeDispatcher::hybridep)
    return invalid(Msg::est_rank_capacity_hybridep, {moe_dispatcher_name(setup.moe_dispatcher)});
  // A graph replays fixed shapes. Transformer Engine's per-layer graphs hold an MoE block only
  // under token-drop routing padded to the capacity (Megatron: "drop-and-pad MoE layers only",
  // enums.py); a full-iteration graph holds it under that, or under HybridEP's fixed per-rank
  // budget. Megatron refuses the EP all-to-all overlap with per-layer graphs of whole MoE blocks
  // (transformer_config.py), not with a full-iteration graph.
  const unsigned per_layer_moe = setup.cuda_graph_modules & (kGraphMoe | kGraphLayer);
  const unsigned whole_moe = per_layer_moe | (setup.cuda_graph_modules & kGraphFullIteration);
  const bool fixed_shapes =
      setup.moe_pad_to_capacity || (setup.moe_rank_capacity > 0 && per_layer_moe == 0);
  if (whole_moe != 0 && !fixed_shapes)
    return invalid(Msg::est_graphs_dropless, {cuda_graph_modules_name(whole_moe)});
  if (per_layer_moe != 0 && setup.moe_a2a_overlap)
    return invalid(Msg::est_graphs_a2a_overlap, {cuda_graph_modules_name(per_layer_moe)});
  x.edp = static_cast<int>(ranks / (int64_t{x.ep} * x.etp));
  x.local_experts = m.experts / x.ep;
  x.capacity_factor = setup.capacity_factor;
  const double busiest = setup.moe_imbalance > 0 ? setup.moe_imbalance : kDefaultBusiestExpertLoad;
  x.busiest_expert = capped(busiest, setup.capacity_factor);
  // The busiest rank holds the busiest expert and local_experts - 1 others at an even share
  // (capped too): the least it can carry. Ranks holding several hot experts carry more.
  x.rank_load = (x.busiest_expert + (x.local_experts - 1) * capped(1.0, setup.capacity_factor)) /
                x.local_experts;
  // Padded to capacity, every expert computes (and receives) exactly its capacity
  // (token_dispatcher.py, drop_and_pad: capacity x ranks rows per local expert).
  if (setup.moe_pad_to_capacity) x.busiest_expert = x.rank_load = setup.capacity_factor;
  // A per-rank budget drops what the busiest rank receives beyond it; its buffers hold the
  // budget whatever arrives, and its grouped GEMMs run on the tokens kept.
  x.receive_share = x.rank_load;
  if (setup.moe_rank_capacity > 0) {
    x.rank_load = std::min(x.rank_load, setup.moe_rank_capacity);
    x.busiest_expert = std::min(x.busiest_expert, setup.moe_rank_capacity * x.local_experts);
    x.receive_share = setup.moe_rank_capacity;
  }
  return x;
}

std::vector<int> valid_expert_parallel_degrees(const TransformerSpec& spec, int gpus, int tp,
                                               int pp, int etp) {
  if (!spec.is_moe() || tp < 1 || pp < 1 || gpus % (int64_t{tp} * pp) != 0) return {1};
  const int64_t ranks = gpus / pp;  // dp x cp x tp
  const int64_t expert_tp = etp > 0 ? etp : tp;
  std::vector<int> out;
  for (int64_t ep = 1; ep <= spec.experts && ep * expert_tp <= ranks; ++ep) {
    if (spec.experts % ep == 0 && ranks % (ep * expert_tp) == 0 && spec.ffn_hidden % expert_tp == 0)
      out.push_back(static_cast<int>(ep));
  }
  return out.empty() ? std::vector<int>{1} : out;
}

double dispatch_bytes_per_sample(const TransformerSpec& spec, int64_t seq_len, int tp,
                                 double element_bytes) {
  if (!spec.is_moe()) return 0;
  const MoeShape m = moe_shape(spec);
  const double tokens = static_cast<double>(transformer_tokens(spec, seq_len)) / std::max(tp, 1);
  return tokens * m.top_k * static_cast<double>(spec.expert_io_width()) * element_bytes;
}

}  // namespace gpuplan
