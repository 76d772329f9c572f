// The catalog as a binary blob: one field list per struct (describe), read and written by two
// visitors. Layout: "gpuplan-catalog", the version, then the Catalog's fields in order. Integers
// and enums as zigzag LEB128 varints; doubles as a varint (whole numbers) or a tag and their 8
// bytes; bools as a byte; strings as their index in a table of distinct strings (before the
// body: a count, then each string's length and bytes); containers as a varint count and their
// elements; optionals as a flag byte and the value.
#include "gpuplan/catalog_blob.h"

#include <cstdint>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpuplan {
namespace blob_detail {
// Converts to any field type (declared only: used in unevaluated braces; outside the anonymous
// namespace, so clang does not ask for its definition).
struct AnyField {
  template <class T>
  operator T&() const&&;
};
}  // namespace blob_detail

namespace {

using blob_detail::AnyField;
constexpr std::string_view kMagic = "gpuplan-catalog";
// Doubles below this magnitude that are whole numbers are stored as integers (exactly).
constexpr double kWholeLimit = 9007199254740992.0;  // 2^53

// The number of fields of an aggregate: the most initialisers T{...} accepts (the technique of
// Boost.PFR). Each field list below is checked against it, so a struct that gains a field cannot
// leave the blob (and the blob-vs-JSON test) without it.
// (GCC notes, under -Wconversion, that an optional field takes AnyField through optional's own
// constructor: either way it counts as one field.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
template <class T, class Seq, class = void>
struct InitWith : std::false_type {};
template <class T, size_t... I>
struct InitWith<T, std::index_sequence<I...>, std::void_t<decltype(T{(void(I), AnyField{})...})>>
    : std::true_type {};
#pragma GCC diagnostic pop
template <class T, size_t N = 0>
constexpr size_t field_count() {
  if constexpr (N > 96)
    return N;
  else if constexpr (InitWith<T, std::make_index_sequence<N + 1>>::value)
    return field_count<T, N + 1>();
  else
    return N;
}

template <class Type, class V, class... M>
void visit_fields(V& v, M&... m) {
  static_assert(sizeof...(M) == field_count<Type>(),
                "catalog_blob.cpp: a catalog struct's field list misses a field");
  (v(m), ...);
}

// describe(v, s): the visitor v on each field of s (const for writing, not for reading).
#define GPUPLAN_FIELDS(Type, ...)                                                    \
  template <class V, class S,                                                        \
            std::enable_if_t<std::is_same_v<std::remove_const_t<S>, Type>, int> = 0> \
  void describe(V& v, S& s) {                                                        \
    visit_fields<Type>(v, __VA_ARGS__);                                              \
  }

GPUPLAN_FIELDS(FactSource, s.title, s.url, s.date)
GPUPLAN_FIELDS(Source, s.title, s.url, s.date)
GPUPLAN_FIELDS(Gpu, s.id, s.name, s.vendor, s.architecture, s.aliases, s.memory_bytes,
               s.memory_bandwidth_bytes_per_s, s.peak_dense_flops_per_s, s.peak_sparse_flops_per_s,
               s.matmul_max_achievable_flops_per_s, s.matmul_generation_share, s.sm_count, s.tdp_w,
               s.compute_capability, s.interconnect, s.nvlink_bandwidth_bytes_per_s, s.pcie_gen,
               s.host_link, s.host_link_bytes_per_s, s.serving_gemm,
               s.serving_gemm_generation_share, s.serving_moe_stream_bytes_per_s, s.fact_sources)
GPUPLAN_FIELDS(Gpu::MatmulShare, s.share, s.from)
GPUPLAN_FIELDS(Gpu::ServingGemm, s.weight_stream_bytes_per_s, s.matmul_flop_per_s)
GPUPLAN_FIELDS(Gpu::ServingGemmShare, s.bandwidth_share, s.peak_share, s.from)
GPUPLAN_FIELDS(PriceOrigin, s.source, s.date)
GPUPLAN_FIELDS(Price, s.region, s.date, s.retrieved, s.stale, s.source, s.on_demand_usd_per_hour,
               s.reserved_1y_usd_per_hour, s.reserved_3y_usd_per_hour, s.spot_usd_per_hour,
               s.sold_per, s.currency, s.usd_per_cny, s.rate_source, s.native_per_hour,
               s.origin_by_kind)
GPUPLAN_FIELDS(Instance, s.id, s.provider, s.instance_type, s.gpu, s.gpu_count,
               s.nvlink_domain_gpus, s.min_hosts, s.vcpus, s.ram_bytes, s.gpu_interconnect,
               s.network_bytes_per_s, s.prices, s.offered)
GPUPLAN_FIELDS(Region, s.id, s.name, s.country, s.hipaa, s.gdpr_eu, s.gov)
GPUPLAN_FIELDS(PricingOffer, s.offered, s.source)
GPUPLAN_FIELDS(Provider, s.id, s.name, s.regions, s.pricing_models)
GPUPLAN_FIELDS(SpotBucket, s.id, s.provider, s.label, s.min_fraction_per_month,
               s.max_fraction_per_month, s.source)
GPUPLAN_FIELDS(PricingRules, s.monthly, s.reserved, s.bulk, s.spot, s.spot_interruptions_per_hour,
               s.source, s.usd_per_cny, s.usd_per_cny_source, s.spot_buckets)
GPUPLAN_FIELDS(TransformerSpec, s.layers, s.decoder_layers, s.hidden, s.heads, s.kv_heads,
               s.head_dim, s.ffn_hidden, s.gated_mlp, s.activation, s.vocab, s.max_positions,
               s.positions, s.relative_buckets, s.memory_len, s.adaptive_cutoffs, s.adaptive_div,
               s.token_types, s.embedding_norm, s.tied_embeddings, s.norm, s.norm_bias, s.qkv_bias,
               s.fused_qkv, s.attn_out_bias, s.mlp_bias, s.final_norm, s.pooler,
               s.lm_head_transform, s.lm_head_bias, s.head, s.num_classes, s.dropout,
               s.attention_dropout, s.experts, s.experts_per_token, s.moe_ffn_hidden,
               s.shared_experts, s.shared_expert_ffn_hidden, s.shared_expert_gate,
               s.first_dense_layers, s.moe_layer_step, s.router_bias, s.q_lora_rank, s.kv_lora_rank,
               s.qk_nope_head_dim, s.qk_rope_head_dim, s.v_head_dim, s.sliding_window,
               s.full_attention_every, s.full_attention_first, s.full_attention_leading,
               s.local_attention, s.global_head_dim, s.global_kv_heads, s.global_kv_shared,
               s.attention_sinks, s.sinks_windowed_only, s.index_heads, s.index_head_dim,
               s.index_topk, s.index_shared_layers, s.o_groups, s.o_lora_rank, s.csa_layers,
               s.csa_ratio, s.hca_layers, s.hca_ratio, s.hc_streams, s.qk_norm,
               s.attention_output_gate, s.linear_key_heads, s.linear_value_heads,
               s.linear_key_head_dim, s.linear_value_head_dim, s.linear_conv_kernel, s.linear_mixer,
               s.linear_chunk, s.linear_conv_bias, s.linear_state_fp32, s.layer_pattern,
               s.mlp_widths, s.moe_latent, s.mtp_layers, s.rope_scaling, s.rope_scaling_factor,
               s.rope_original_max_positions, s.image_size, s.patch_size, s.channels, s.class_token)
GPUPLAN_FIELDS(GraphNode, s.name, s.op, s.inputs, s.out_channels, s.kernel_h, s.kernel_w, s.stride,
               s.padding, s.dilation, s.groups, s.bias, s.affine, s.inplace, s.out_h, s.out_w,
               s.scale, s.p)
GPUPLAN_FIELDS(Graph, s.in_channels, s.nodes)
GPUPLAN_FIELDS(TensorShape, s.c, s.h, s.w)
GPUPLAN_FIELDS(NodeCost, s.out, s.params, s.forward_flops_matmul, s.forward_flops_other,
               s.saved_activation_bytes_fp32)
GPUPLAN_FIELDS(GraphCosts, s.params, s.param_tensors, s.forward_flops_matmul, s.forward_flops_other,
               s.saved_activation_bytes_fp32, s.saved_activation_elements, s.saved_fixed_bytes,
               s.saved_batch_stats_bytes, s.largest_output_elements, s.nodes)
GPUPLAN_FIELDS(Model, s.id, s.name, s.name_zh, s.task, s.kind, s.transformer, s.graph, s.source,
               s.default_seq_len, s.default_resolution, s.dataset_size, s.dataset,
               s.default_attention, s.default_attention_source, s.aliases, s.checkpoint_weights,
               s.checkpoint_name, s.default_graph_costs)
GPUPLAN_FIELDS(AttentionEfficiency, s.forward, s.backward, s.causal_forward, s.causal_backward)
GPUPLAN_FIELDS(Efficiencies::ForLoop, s.sgd_s, s.adam_s, s.adamw_s)
GPUPLAN_FIELDS(Efficiencies::RingLatency, s.base_s, s.nvlink_hop_s, s.pcie_hop_s, s.network_hop_s)
GPUPLAN_FIELDS(Efficiencies, s.gemm, s.simt_gemm, s.hbm, s.nvlink, s.pcie, s.network,
               s.kernel_overhead_s, s.eager_memory_bound, s.flash_attention,
               s.flash_attention_default, s.flash3_attention, s.cudnn_attention,
               s.cudnn_fp8_attention, s.cudnn_mxfp8_attention, s.triton_attention,
               s.flash1_attention, s.gemm_tile_rows, s.gemm_tile_cols, s.grouped_gemm,
               s.host_overhead_per_kernel_s, s.optimizer_for_loop_per_tensor, s.nccl_ring,
               s.measured_gemm_flop_per_s, s.measured_tf32_gemm_flop_per_s,
               s.measured_hbm_bytes_per_s, s.measured_intra_busbw_bytes_per_s,
               s.measured_inter_busbw_bytes_per_s, s.measured_recipe_gemm_flop_per_s)
GPUPLAN_FIELDS(InputAssumptions, s.image_samples_per_s_per_core)
GPUPLAN_FIELDS(RunGround, s.kind, s.precision, s.parallel, s.arch, s.gpus, s.runtime)
GPUPLAN_FIELDS(AccuracyRow, s.id, s.source, s.family, s.ground, s.error)
GPUPLAN_FIELDS(AccuracyTable, s.time, s.memory, s.serving, s.generated)
GPUPLAN_FIELDS(PublishedSource, s.repository, s.commit, s.path, s.section, s.url, s.date)
GPUPLAN_FIELDS(PublishedRow, s.id, s.model, s.gpu, s.system, s.num_gpus, s.task, s.precision,
               s.optimizer, s.micro_batch, s.global_batch, s.seq_len, s.resolution, s.zero_stage,
               s.checkpointing, s.memory_format, s.metric, s.value, s.mfu, s.notes, s.setup)
GPUPLAN_FIELDS(PublishedTable, s.id, s.title, s.publisher, s.source, s.caveats, s.rows, s.left_out)
GPUPLAN_FIELDS(Catalog, s.models, s.gpus, s.instances, s.providers, s.pricing, s.efficiencies,
               s.input, s.restart_s, s.accuracy, s.prices_as_of, s.published)
#undef GPUPLAN_FIELDS

class Writer {
 public:
  std::string out;

  // Strings go to a table, each once (the catalog repeats its sources' titles, links and dates
  // many times); the body holds their index.
  void operator()(const std::string& s) {
    auto [it, added] = index_.emplace(s, table_.size());
    if (added) table_.push_back(&it->first);
    varint(it->second);
  }
  // The string table as the blob writes it before the body: a count, then each string.
  std::string table() const {
    Writer t;
    t.varint(table_.size());
    for (const std::string* s : table_) {
      t.varint(s->size());
      t.out.append(*s);
    }
    return std::move(t.out);
  }
  template <class T>
  void operator()(const std::vector<T>& xs) {
    varint(xs.size());
    for (const auto& x : xs) (*this)(x);
  }
  template <class K, class T>
  void operator()(const std::map<K, T>& m) {
    varint(m.size());
    for (const auto& [k, x] : m) {
      (*this)(k);
      (*this)(x);
    }
  }
  template <class T>
  void operator()(const std::optional<T>& x) {
    (*this)(x.has_value());
    if (x) (*this)(*x);
  }
  template <class A, class B>
  void operator()(const std::pair<A, B>& x) {
    (*this)(x.first);
    (*this)(x.second);
  }
  void operator()(double x) {
    // Whole numbers (most of the catalog's: bytes, FLOP/s, counts) as a varint with a 0 tag
    // bit; others (and -0) as tag 1 and their 8 bytes.
    if (std::abs(x) < kWholeLimit && x == std::floor(x) && !(x == 0 && std::signbit(x))) {
      varint(zigzag(static_cast<int64_t>(x)) << 1);
    } else {
      varint(1);
      char b[sizeof x];
      std::memcpy(b, &x, sizeof x);
      out.append(b, sizeof x);
    }
  }
  template <class T>
  void operator()(const T& x) {
    if constexpr (std::is_same_v<T, bool>) {
      out.push_back(x ? '\1' : '\0');
    } else if constexpr (std::is_enum_v<T>) {
      varint(zigzag(static_cast<int64_t>(x)));
    } else if constexpr (std::is_integral_v<T>) {
      varint(zigzag(static_cast<int64_t>(x)));
    } else {
      describe(*this, x);
    }
  }
  // Unsigned LEB128: 7 bits a byte, the high bit set on every byte but the last.
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }

 private:
  static uint64_t zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }
  std::unordered_map<std::string, size_t> index_;
  std::vector<const std::string*> table_;
};

class Reader {
 public:
  explicit Reader(std::string_view blob) : p_(blob.data()), end_(blob.data() + blob.size()) {}
  bool ok() const { return ok_; }
  bool at_end() const { return p_ == end_; }

  void operator()(std::string& s) {
    const uint64_t i = varint();
    if (i < table_.size())
      s.assign(table_[static_cast<size_t>(i)]);
    else
      ok_ = false;
  }
  // Reads the string table (Writer::table); the strings stay in the blob until copied out.
  void table() {
    table_.resize(count());
    for (auto& s : table_) {
      const size_t n = count();
      s = std::string_view(p_, n);
      p_ += n;
    }
  }
  template <class T>
  void operator()(std::vector<T>& xs) {
    xs.resize(count());
    for (auto& x : xs) (*this)(x);
  }
  template <class K, class T>
  void operator()(std::map<K, T>& m) {
    const size_t n = count();
    for (size_t i = 0; i < n && ok_; ++i) {
      std::pair<K, T> kv;
      (*this)(kv);
      m.emplace_hint(m.end(), std::move(kv));
    }
  }
  template <class T>
  void operator()(std::optional<T>& x) {
    bool has = false;
    (*this)(has);
    if (has) (*this)(x.emplace());
  }
  template <class A, class B>
  void operator()(std::pair<A, B>& x) {
    (*this)(x.first);
    (*this)(x.second);
  }
  void operator()(double& x) {
    const uint64_t v = varint();
    if ((v & 1) == 0) {
      x = static_cast<double>(unzigzag(v >> 1));
    } else if (v == 1 && static_cast<size_t>(end_ - p_) >= sizeof x) {
      std::memcpy(&x, p_, sizeof x);
      p_ += sizeof x;
    } else {
      ok_ = false;
    }
  }
  template <class T>
  void operator()(T& x) {
    if constexpr (std::is_same_v<T, bool>) {
      if (!ok_ || p_ == end_) {
        ok_ = false;
        x = false;
      } else {
        x = *p_++ != 0;
      }
    } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
      x = static_cast<T>(unzigzag(varint()));
    } else {
      describe(*this, x);
    }
  }
  // Reads the magic text; false when the blob does not start with it.
  bool magic() {
    if (static_cast<size_t>(end_ - p_) < kMagic.size() ||
        kMagic != std::string_view(p_, kMagic.size()))
      return false;
    p_ += kMagic.size();
    return true;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; ok_ && shift < 64; shift += 7) {
      if (p_ == end_) break;
      const auto byte = static_cast<unsigned char>(*p_++);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) return v;
    }
    ok_ = false;
    return 0;
  }

 private:
  static int64_t unzigzag(uint64_t v) {
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  // A count of elements, each at least a byte: more than the bytes left is a damaged blob.
  size_t count() {
    const uint64_t n = varint();
    if (n > static_cast<uint64_t>(end_ - p_)) ok_ = false;
    return ok_ ? static_cast<size_t>(n) : 0;
  }
  const char* p_;
  const char* end_;
  bool ok_ = true;
  std::vector<std::string_view> table_;
};

// The string table, then x.
template <class T>
std::string to_blob(const T& x) {
  Writer w;
  w(x);
  return w.table() + w.out;
}

}  // namespace

std::string catalog_to_blob(const Catalog& catalog) {
  Writer header;
  header.out.append(kMagic);
  header.varint(kCatalogBlobVersion);
  return header.out + to_blob(catalog);
}

Result<Catalog> catalog_from_blob(std::string_view blob) {
  Reader r(blob);
  if (!r.magic()) return make_error(Errc::parse_error, "catalog blob: not a gpuplan catalog blob");
  const uint64_t version = r.varint();
  if (r.ok() && version != kCatalogBlobVersion) {
    return make_error(Errc::unsupported_version,
                      "catalog blob: version " + std::to_string(version) + " (this build reads " +
                          std::to_string(kCatalogBlobVersion) + "); rebuild it from data/");
  }
  Catalog c;
  r.table();
  r(c);
  if (!r.ok()) return make_error(Errc::parse_error, "catalog blob: truncated");
  if (!r.at_end()) return make_error(Errc::parse_error, "catalog blob: bytes after the catalog");
  return c;
}

std::string gpu_to_blob(const Gpu& gpu) {
  return to_blob(gpu);
}
std::string model_to_blob(const Model& model) {
  return to_blob(model);
}
std::string provider_to_blob(const Provider& provider) {
  return to_blob(provider);
}
std::string instance_to_blob(const Instance& instance) {
  return to_blob(instance);
}
std::string published_to_blob(const PublishedTable& table) {
  return to_blob(table);
}

}  // namespace gpuplan
