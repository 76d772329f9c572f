#pragma once
// Field-by-field comparison of queries and serve requests, for the round-trip properties (a query
// read back from its link must equal the original value by value, not merely write the same text
// twice: that is how a key a writer drops gets caught). Shared by tests/core/query/keys_test.cpp
// and tests/web/link_test.cpp.
//
// A field added to Setup, TransformerSpec, CustomModel, Query or ServeRequest needs a key row in
// core/src/query/keys.cpp and a line here; KeysTable.FieldListsAreComplete fails until it has one.

#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gpuplan/query.h"

namespace gpuplan::test {

// Collects the names of the fields that differ, with both values.
class FieldDiff {
 public:
  template <class V>
  void field(const char* name, const V& a, const V& b) {
    if (same(a, b)) return;
    std::ostringstream o;
    o << name << ": " << show(a) << " vs " << show(b);
    diffs_.push_back(o.str());
  }
  const std::vector<std::string>& diffs() const { return diffs_; }
  std::string text() const {
    std::string out;
    for (const auto& d : diffs_) out += (out.empty() ? "" : "; ") + d;
    return out;
  }

 private:
  template <class V>
  static bool same(const V& a, const V& b) {
    return a == b;
  }
  static bool same(const double& a, const double& b) {
    return a == b || (std::isnan(a) && std::isnan(b));
  }
  template <class V>
  static std::string show(const V& v) {
    std::ostringstream o;
    if constexpr (std::is_enum_v<V>) {
      o << static_cast<int>(v);
    } else if constexpr (std::is_same_v<V, std::vector<std::string>> ||
                         std::is_same_v<V, std::vector<int64_t>>) {
      for (const auto& x : v) o << x << ",";
    } else if constexpr (std::is_same_v<V, std::optional<bool>>) {
      o << (v ? (*v ? "1" : "0") : "unset");
    } else if constexpr (std::is_same_v<V, std::optional<WeightFormat>>) {
      o << (v ? std::to_string(static_cast<int>(*v)) : "unset");
    } else {
      o.precision(17);
      o << v;
    }
    return o.str();
  }
  std::vector<std::string> diffs_;
};

#define GPUPLAN_FIELD(d, a, b, path) (d).field(#path, (a).path, (b).path)

inline void compare_setup(FieldDiff& d, const Setup& a, const Setup& b) {
  GPUPLAN_FIELD(d, a, b, mode);
  GPUPLAN_FIELD(d, a, b, global_batch);
  GPUPLAN_FIELD(d, a, b, micro_batch);
  GPUPLAN_FIELD(d, a, b, seq_len);
  GPUPLAN_FIELD(d, a, b, resolution);
  GPUPLAN_FIELD(d, a, b, precision);
  GPUPLAN_FIELD(d, a, b, optimizer);
  GPUPLAN_FIELD(d, a, b, optimizer_loop);
  GPUPLAN_FIELD(d, a, b, clip_grad_norm);
  GPUPLAN_FIELD(d, a, b, checkpointing);
  GPUPLAN_FIELD(d, a, b, checkpoint_every);
  GPUPLAN_FIELD(d, a, b, offload_activation_layers);
  GPUPLAN_FIELD(d, a, b, offload_modules);
  GPUPLAN_FIELD(d, a, b, cuda_graph_modules);
  GPUPLAN_FIELD(d, a, b, recompute_num_layers);
  GPUPLAN_FIELD(d, a, b, grad_reduce);
  GPUPLAN_FIELD(d, a, b, cache_quantized_weights);
  GPUPLAN_FIELD(d, a, b, quantized_params);
  GPUPLAN_FIELD(d, a, b, fp8_attention);
  GPUPLAN_FIELD(d, a, b, bf16_first_layers);
  GPUPLAN_FIELD(d, a, b, bf16_last_layers);
  GPUPLAN_FIELD(d, a, b, optimizer_state_dtype);
  GPUPLAN_FIELD(d, a, b, master_dtype);
  GPUPLAN_FIELD(d, a, b, compile);
  GPUPLAN_FIELD(d, a, b, fused_kernels);
  GPUPLAN_FIELD(d, a, b, fused_loss);
  GPUPLAN_FIELD(d, a, b, dropout);
  GPUPLAN_FIELD(d, a, b, mtp_layers);
  GPUPLAN_FIELD(d, a, b, attention);
  GPUPLAN_FIELD(d, a, b, memory_format);
  GPUPLAN_FIELD(d, a, b, dp);
  GPUPLAN_FIELD(d, a, b, zero_stage);
  GPUPLAN_FIELD(d, a, b, dp_shard);
  GPUPLAN_FIELD(d, a, b, tp);
  GPUPLAN_FIELD(d, a, b, sequence_parallel);
  GPUPLAN_FIELD(d, a, b, pp);
  GPUPLAN_FIELD(d, a, b, vp);
  GPUPLAN_FIELD(d, a, b, cp);
  GPUPLAN_FIELD(d, a, b, cp_comm);
  GPUPLAN_FIELD(d, a, b, tp_comm_overlap);
  GPUPLAN_FIELD(d, a, b, overlap_grad_reduce);
  GPUPLAN_FIELD(d, a, b, overlap_param_gather);
  GPUPLAN_FIELD(d, a, b, framework);
  GPUPLAN_FIELD(d, a, b, ep);
  GPUPLAN_FIELD(d, a, b, etp);
  GPUPLAN_FIELD(d, a, b, capacity_factor);
  GPUPLAN_FIELD(d, a, b, moe_pad_to_capacity);
  GPUPLAN_FIELD(d, a, b, moe_rank_capacity);
  GPUPLAN_FIELD(d, a, b, moe_imbalance);
  GPUPLAN_FIELD(d, a, b, moe_dispatcher);
  GPUPLAN_FIELD(d, a, b, moe_a2a_overlap);
  GPUPLAN_FIELD(d, a, b, lora_rank);
  GPUPLAN_FIELD(d, a, b, qlora);
  GPUPLAN_FIELD(d, a, b, lora_targets);
  GPUPLAN_FIELD(d, a, b, generate_tokens);
  GPUPLAN_FIELD(d, a, b, torch_release);
  // Not keys: data/assumptions.json's, the same for every query.
  GPUPLAN_FIELD(d, a, b, assumptions.cuda_context_bytes);
  GPUPLAN_FIELD(d, a, b, assumptions.cublas_workspace_bytes);
  GPUPLAN_FIELD(d, a, b, assumptions.allocator_round_bytes);
}

inline void compare_transformer(FieldDiff& d, const TransformerSpec& a, const TransformerSpec& b) {
  GPUPLAN_FIELD(d, a, b, layers);
  GPUPLAN_FIELD(d, a, b, decoder_layers);
  GPUPLAN_FIELD(d, a, b, hidden);
  GPUPLAN_FIELD(d, a, b, heads);
  GPUPLAN_FIELD(d, a, b, kv_heads);
  GPUPLAN_FIELD(d, a, b, head_dim);
  GPUPLAN_FIELD(d, a, b, ffn_hidden);
  GPUPLAN_FIELD(d, a, b, gated_mlp);
  GPUPLAN_FIELD(d, a, b, activation);
  GPUPLAN_FIELD(d, a, b, vocab);
  GPUPLAN_FIELD(d, a, b, max_positions);
  GPUPLAN_FIELD(d, a, b, positions);
  GPUPLAN_FIELD(d, a, b, relative_buckets);
  GPUPLAN_FIELD(d, a, b, memory_len);
  GPUPLAN_FIELD(d, a, b, adaptive_cutoffs);
  GPUPLAN_FIELD(d, a, b, adaptive_div);
  GPUPLAN_FIELD(d, a, b, token_types);
  GPUPLAN_FIELD(d, a, b, embedding_norm);
  GPUPLAN_FIELD(d, a, b, tied_embeddings);
  GPUPLAN_FIELD(d, a, b, norm);
  GPUPLAN_FIELD(d, a, b, norm_bias);
  GPUPLAN_FIELD(d, a, b, qkv_bias);
  GPUPLAN_FIELD(d, a, b, fused_qkv);
  GPUPLAN_FIELD(d, a, b, attn_out_bias);
  GPUPLAN_FIELD(d, a, b, mlp_bias);
  GPUPLAN_FIELD(d, a, b, final_norm);
  GPUPLAN_FIELD(d, a, b, pooler);
  GPUPLAN_FIELD(d, a, b, lm_head_transform);
  GPUPLAN_FIELD(d, a, b, lm_head_bias);
  GPUPLAN_FIELD(d, a, b, head);
  GPUPLAN_FIELD(d, a, b, num_classes);
  GPUPLAN_FIELD(d, a, b, dropout);
  GPUPLAN_FIELD(d, a, b, attention_dropout);
  GPUPLAN_FIELD(d, a, b, experts);
  GPUPLAN_FIELD(d, a, b, experts_per_token);
  GPUPLAN_FIELD(d, a, b, moe_ffn_hidden);
  GPUPLAN_FIELD(d, a, b, shared_experts);
  GPUPLAN_FIELD(d, a, b, shared_expert_ffn_hidden);
  GPUPLAN_FIELD(d, a, b, shared_expert_gate);
  GPUPLAN_FIELD(d, a, b, first_dense_layers);
  GPUPLAN_FIELD(d, a, b, moe_layer_step);
  GPUPLAN_FIELD(d, a, b, router_bias);
  GPUPLAN_FIELD(d, a, b, q_lora_rank);
  GPUPLAN_FIELD(d, a, b, kv_lora_rank);
  GPUPLAN_FIELD(d, a, b, qk_nope_head_dim);
  GPUPLAN_FIELD(d, a, b, qk_rope_head_dim);
  GPUPLAN_FIELD(d, a, b, v_head_dim);
  GPUPLAN_FIELD(d, a, b, sliding_window);
  GPUPLAN_FIELD(d, a, b, full_attention_every);
  GPUPLAN_FIELD(d, a, b, local_attention);
  GPUPLAN_FIELD(d, a, b, attention_sinks);
  GPUPLAN_FIELD(d, a, b, index_heads);
  GPUPLAN_FIELD(d, a, b, index_head_dim);
  GPUPLAN_FIELD(d, a, b, index_topk);
  GPUPLAN_FIELD(d, a, b, index_shared_layers);
  GPUPLAN_FIELD(d, a, b, full_attention_first);
  GPUPLAN_FIELD(d, a, b, full_attention_leading);
  GPUPLAN_FIELD(d, a, b, global_head_dim);
  GPUPLAN_FIELD(d, a, b, global_kv_heads);
  GPUPLAN_FIELD(d, a, b, global_kv_shared);
  GPUPLAN_FIELD(d, a, b, sinks_windowed_only);
  GPUPLAN_FIELD(d, a, b, o_groups);
  GPUPLAN_FIELD(d, a, b, o_lora_rank);
  GPUPLAN_FIELD(d, a, b, csa_layers);
  GPUPLAN_FIELD(d, a, b, csa_ratio);
  GPUPLAN_FIELD(d, a, b, hca_layers);
  GPUPLAN_FIELD(d, a, b, hca_ratio);
  GPUPLAN_FIELD(d, a, b, hc_streams);
  GPUPLAN_FIELD(d, a, b, qk_norm);
  GPUPLAN_FIELD(d, a, b, attention_output_gate);
  GPUPLAN_FIELD(d, a, b, linear_key_heads);
  GPUPLAN_FIELD(d, a, b, linear_value_heads);
  GPUPLAN_FIELD(d, a, b, linear_key_head_dim);
  GPUPLAN_FIELD(d, a, b, linear_value_head_dim);
  GPUPLAN_FIELD(d, a, b, linear_conv_kernel);
  GPUPLAN_FIELD(d, a, b, linear_mixer);
  GPUPLAN_FIELD(d, a, b, linear_chunk);
  GPUPLAN_FIELD(d, a, b, linear_conv_bias);
  GPUPLAN_FIELD(d, a, b, linear_state_fp32);
  GPUPLAN_FIELD(d, a, b, layer_pattern);
  GPUPLAN_FIELD(d, a, b, mlp_widths);
  GPUPLAN_FIELD(d, a, b, moe_latent);
  GPUPLAN_FIELD(d, a, b, mtp_layers);
  GPUPLAN_FIELD(d, a, b, rope_scaling);
  GPUPLAN_FIELD(d, a, b, rope_scaling_factor);
  GPUPLAN_FIELD(d, a, b, rope_original_max_positions);
  GPUPLAN_FIELD(d, a, b, image_size);
  GPUPLAN_FIELD(d, a, b, patch_size);
  GPUPLAN_FIELD(d, a, b, channels);
  GPUPLAN_FIELD(d, a, b, class_token);
}

inline void compare_query(FieldDiff& d, const Query& a, const Query& b) {
  GPUPLAN_FIELD(d, a, b, request.model);
  compare_setup(d, a.request.setup, b.request.setup);
  GPUPLAN_FIELD(d, a, b, dp_given);
  GPUPLAN_FIELD(d, a, b, custom.kind);
  compare_transformer(d, a.custom.transformer, b.custom.transformer);
  GPUPLAN_FIELD(d, a, b, custom.cnn_builder);
  GPUPLAN_FIELD(d, a, b, custom.cnn_depth);
  GPUPLAN_FIELD(d, a, b, custom.cnn_classes);
  GPUPLAN_FIELD(d, a, b, custom.cnn_width);
  GPUPLAN_FIELD(d, a, b, custom.cnn_depth_multiple);
  GPUPLAN_FIELD(d, a, b, custom.name);
  GPUPLAN_FIELD(d, a, b, hf_config_text);  // not keys: a file the face reads
  GPUPLAN_FIELD(d, a, b, hf_config_name);
  GPUPLAN_FIELD(d, a, b, gpu);
  GPUPLAN_FIELD(d, a, b, gpus);
  GPUPLAN_FIELD(d, a, b, instance);
  GPUPLAN_FIELD(d, a, b, nodes);
  GPUPLAN_FIELD(d, a, b, runtime);
  GPUPLAN_FIELD(d, a, b, run.tokens);
  GPUPLAN_FIELD(d, a, b, run.epochs);
  GPUPLAN_FIELD(d, a, b, run.dataset_size);
  GPUPLAN_FIELD(d, a, b, pricing);
  GPUPLAN_FIELD(d, a, b, region);
  GPUPLAN_FIELD(d, a, b, spot.interruptions_per_hour);
  GPUPLAN_FIELD(d, a, b, spot.checkpoint_interval_h);
  GPUPLAN_FIELD(d, a, b, spot.restart_h);
  GPUPLAN_FIELD(d, a, b, spot_bucket);
  GPUPLAN_FIELD(d, a, b, commitment.utilisation);
  GPUPLAN_FIELD(d, a, b, currency);
  GPUPLAN_FIELD(d, a, b, provider);
  GPUPLAN_FIELD(d, a, b, compliance);
  GPUPLAN_FIELD(d, a, b, objective);
  GPUPLAN_FIELD(d, a, b, deadline_hours);
  GPUPLAN_FIELD(d, a, b, budget_usd);
  GPUPLAN_FIELD(d, a, b, min_gpu_memory_gb);
  GPUPLAN_FIELD(d, a, b, plan_gpu);
  GPUPLAN_FIELD(d, a, b, max_nodes);
  GPUPLAN_FIELD(d, a, b, top_k);
  // serving (the runtime profiles), probe and measured are what the face loads, never keys.
}

inline void compare_serve(FieldDiff& d, const ServeRequest& a, const ServeRequest& b) {
  GPUPLAN_FIELD(d, a, b, model);
  GPUPLAN_FIELD(d, a, b, rate_per_s);
  GPUPLAN_FIELD(d, a, b, load_curve);
  GPUPLAN_FIELD(d, a, b, prompt_tokens);
  GPUPLAN_FIELD(d, a, b, output_tokens);
  GPUPLAN_FIELD(d, a, b, ttft_ms);
  GPUPLAN_FIELD(d, a, b, tpot_ms);
  GPUPLAN_FIELD(d, a, b, percentile);
  GPUPLAN_FIELD(d, a, b, runtime);
  GPUPLAN_FIELD(d, a, b, weights);
  GPUPLAN_FIELD(d, a, b, kv);
  GPUPLAN_FIELD(d, a, b, tp);
  GPUPLAN_FIELD(d, a, b, lengths);
  GPUPLAN_FIELD(d, a, b, requests);
  GPUPLAN_FIELD(d, a, b, min_replicas);
  GPUPLAN_FIELD(d, a, b, target_utilisation);
  GPUPLAN_FIELD(d, a, b, headroom);
  GPUPLAN_FIELD(d, a, b, start_s);
  GPUPLAN_FIELD(d, a, b, load_gb_per_s);
  GPUPLAN_FIELD(d, a, b, top);
  GPUPLAN_FIELD(d, a, b, gpu);
  GPUPLAN_FIELD(d, a, b, instance);
  GPUPLAN_FIELD(d, a, b, provider);
  GPUPLAN_FIELD(d, a, b, region);
  GPUPLAN_FIELD(d, a, b, prefix_hit_rate);
  GPUPLAN_FIELD(d, a, b, spec_method);
  GPUPLAN_FIELD(d, a, b, spec_tokens);
  GPUPLAN_FIELD(d, a, b, spec_acceptance);
  GPUPLAN_FIELD(d, a, b, spec_draft_model);
  GPUPLAN_FIELD(d, a, b, pp);
  GPUPLAN_FIELD(d, a, b, ep);
  GPUPLAN_FIELD(d, a, b, attention_dp);
  GPUPLAN_FIELD(d, a, b, currency);
  GPUPLAN_FIELD(d, a, b, disaggregate);
  GPUPLAN_FIELD(d, a, b, prefill_tp);
  GPUPLAN_FIELD(d, a, b, decode_tp);
}

#undef GPUPLAN_FIELD

inline std::string query_differences(const Query& a, const Query& b) {
  FieldDiff d;
  compare_query(d, a, b);
  return d.text();
}

inline std::string serve_differences(const ServeRequest& a, const ServeRequest& b) {
  FieldDiff d;
  compare_serve(d, a, b);
  return d.text();
}

}  // namespace gpuplan::test
