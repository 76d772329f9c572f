// The key table: one row per key of estimate/plan (Query) and serve (ServeRequest). Each row
// says how its value is read (bounds and messages), how it is written back into a link (left out
// where it equals the default of a default-constructed Query, so an absent key reads back as that
// default), and what --help and the page say about it. Defaults that depend on the model or the
// hardware (batch, GPUs, dataset size, spot rates, planner limits) stay 0 here and are decided
// by resolve_defaults (evaluate.cpp); the rows' default_text says so.
#include "gpuplan/keys.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "gpuplan/framework.h"
#include "gpuplan/timing.h"

namespace gpuplan {
namespace {

// A value reader before the table names it: (into, key, value).
template <class T>
using Read =
    std::function<std::optional<Error>(T&, const std::string& key, const std::string& value)>;
template <class T>
using Write = std::function<std::optional<std::string>(const T&)>;

// What a row reads and writes; the table adds the name, group and words. `text` is the value as
// a link writes it; `write`, when set, replaces the rule "written where the text differs from a
// default-constructed T's".
template <class T>
struct Value {
  KeyType type = KeyType::text;
  double min = 0, max = 0;
  std::string choices;
  bool is_switch = false;
  Read<T> read;
  std::function<std::string(const T&)> text;
  Write<T> write;
};

// A field of T, for T& and const T& alike: FIELD(request.setup.seq_len).
#define FIELD(path)      \
  [](auto& q) -> auto& { \
    return q.path;       \
  }

// A default-constructed T: what an absent key means (built once, never destroyed).
template <class T>
const T& default_of() {
  static const T* d = new T();
  return *d;
}

// "--key: 'value' is not ..." (which `id` says); `list` for the ones that name choices.
Error not_a(Msg id, const std::string& key, const std::string& value,
            const std::string& list = "") {
  return make_error(Errc::invalid_argument, id, {key, value, list});
}

// Bounds as messages print them ("1e+16", "0.001").
std::string bound_text(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", x);
  return b;
}

Error out_of_range(const std::string& key, const std::string& value, double min, double max) {
  return make_error(Errc::invalid_argument, Msg::query_out_of_range,
                    {key, value, bound_text(min), bound_text(max)});
}

template <class T, class Get>
Value<T> integer(int64_t min, int64_t max, Get get) {
  Read<T> read = [=](T& q, const std::string& key, const std::string& v) -> std::optional<Error> {
    auto n = parse_int(v, key);
    if (!n.ok()) return n.error();
    if (n.value() < min || n.value() > max)
      return out_of_range(key, v, static_cast<double>(min), static_cast<double>(max));
    auto& field = get(q);
    field = static_cast<std::remove_reference_t<decltype(field)>>(n.value());
    return std::nullopt;
  };
  return {KeyType::integer,
          static_cast<double>(min),
          static_cast<double>(max),
          "",
          false,
          read,
          [=](const T& q) { return std::to_string(get(q)); },
          {}};
}

template <class T, class Get>
Value<T> number(double min, double max, Get get) {
  Read<T> read = [=](T& q, const std::string& key, const std::string& v) -> std::optional<Error> {
    auto x = parse_bounded_number(key, v, min, max);
    if (!x.ok()) return x.error();
    get(q) = x.value();
    return std::nullopt;
  };
  return {KeyType::number,
          min,
          max,
          "",
          false,
          read,
          [=](const T& q) { return exact_number(get(q)); },
          {}};
}

template <class T, class Get>
Value<T> text(Get get) {
  Read<T> read = [=](T& q, const std::string&, const std::string& v) -> std::optional<Error> {
    get(q) = v;
    return std::nullopt;
  };
  return {KeyType::text, 0, 0, "", false, read, [=](const T& q) { return get(q); }, {}};
}

// A catalog id filter where "auto" (or "any") means every one: stored as "".
template <class T, class Get>
Value<T> id_or_auto(Get get) {
  Value<T> v = text<T>(get);
  v.read = [=](T& q, const std::string&, const std::string& s) -> std::optional<Error> {
    get(q) = s == "auto" || s == "any" ? "" : s;
    return std::nullopt;
  };
  return v;
}

std::optional<bool> parse_bool(const std::string& v) {
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  return std::nullopt;
}

template <class T, class Get>
Value<T> boolean(Get get) {
  Read<T> read = [=](T& q, const std::string& key, const std::string& v) -> std::optional<Error> {
    const auto b = parse_bool(v);
    if (!b) return not_a(Msg::query_not_bool, key, v);
    get(q) = *b;
    return std::nullopt;
  };
  return {KeyType::boolean,
          0,
          1,
          "",
          false,
          read,
          [=](const T& q) { return std::string(get(q) ? "1" : "0"); },
          {}};
}

// A switch: also given bare ("--sp" on the command line, "sp=" or "sp" in a link).
template <class T, class Get>
Value<T> flag(Get get) {
  Value<T> v = boolean<T>(get);
  v.is_switch = true;
  const Read<T> strict = v.read;
  v.read = [=](T& q, const std::string& key, const std::string& s) -> std::optional<Error> {
    if (!s.empty()) return strict(q, key, s);
    get(q) = true;
    return std::nullopt;
  };
  return v;
}

template <class E>
std::string names_of(std::initializer_list<E> values, const char* (*name)(E)) {
  std::string list;
  for (E e : values) list += (list.empty() ? "" : ", ") + std::string(name(e));
  return list;
}

// One of an enum's values, read by `parse` and written by `name`; `values` are the ones
// messages and --help list.
template <class T, class E, class Get>
Value<T> enumeration(std::optional<E> (*parse)(const std::string&), const char* (*name)(E),
                     std::initializer_list<E> values, Get get) {
  const std::string choices = names_of(values, name);
  Read<T> read = [=](T& q, const std::string& key, const std::string& v) -> std::optional<Error> {
    const std::optional<E> e = parse(v);
    if (!e) return not_a(Msg::query_not_one_of, key, v, choices);
    get(q) = *e;
    return std::nullopt;
  };
  return {KeyType::choice,
          0,
          0,
          choices,
          false,
          read,
          [=](const T& q) { return std::string(name(get(q))); },
          {}};
}

// As enumeration, with "auto" first: the field left unset (std::nullopt) for the caller to choose.
template <class T, class E, class Get>
Value<T> enumeration_or_auto(std::optional<E> (*parse)(const std::string&), const char* (*name)(E),
                             std::initializer_list<E> values, Get get) {
  const std::string choices = "auto, " + names_of(values, name);
  Read<T> read = [=](T& q, const std::string& key, const std::string& v) -> std::optional<Error> {
    const std::optional<E> e = parse(v);
    if (!e && v != "auto") return not_a(Msg::query_not_one_of, key, v, choices);
    get(q) = e;
    return std::nullopt;
  };
  return {KeyType::choice,
          0,
          0,
          choices,
          false,
          read,
          [=](const T& q) { return get(q) ? std::string(name(*get(q))) : std::string("auto"); },
          {}};
}

// One of `names`, the enum's values in declaration order (as the catalog's files spell them).
template <class T, class Get>
Value<T> indexed(std::vector<const char*> names, Get get) {
  std::string choices;
  for (const char* n : names) choices += (choices.empty() ? "" : ", ") + std::string(n);
  Read<T> read = [=](T& q, const std::string& key, const std::string& v) -> std::optional<Error> {
    for (size_t i = 0; i < names.size(); ++i) {
      if (v != names[i]) continue;
      auto& field = get(q);
      field = static_cast<std::remove_reference_t<decltype(field)>>(i);
      return std::nullopt;
    }
    return not_a(Msg::query_not_one_of, key, v, choices);
  };
  return {KeyType::choice,
          0,
          0,
          choices,
          false,
          read,
          [=](const T& q) { return std::string(names[static_cast<size_t>(get(q))]); },
          {}};
}

// Only written when `when` holds (the custom model's keys, when that model is the workload).
template <class T, class When>
Value<T> only_if(When when, Value<T> v) {
  const std::function<std::string(const T&)> text = v.text;
  const std::string absent = text(default_of<T>());
  const Write<T> write = v.write;
  v.write = [=](const T& q) -> std::optional<std::string> {
    if (!when(q)) return std::nullopt;
    if (write) return write(q);
    const std::string t = text(q);
    return t == absent ? std::nullopt : std::optional<std::string>(t);
  };
  return v;
}

// A row of the table: the value's reader (its errors carry the key) and writer, and its words.
template <class T>
KeyRow<T> row(const char* name, KeyGroup group, Value<T> v, std::string default_text,
              const char* help_en, const char* help_zh) {
  KeyRow<T> r;
  r.name = name;
  r.group = group;
  r.type = v.type;
  r.min = v.min;
  r.max = v.max;
  r.choices = std::move(v.choices);
  r.default_text = std::move(default_text);
  r.help_en = help_en;
  r.help_zh = help_zh;
  r.is_switch = v.is_switch;
  r.text = v.text;
  r.read = [name, read = std::move(v.read)](T& q, const std::string& value) {
    std::optional<Error> e = read(q, name, value);
    if (e && e->key.empty()) e->key = name;
    return e;
  };
  if (v.write) {
    r.write = std::move(v.write);
  } else {
    const std::string absent = v.text(default_of<T>());
    r.write = [text = std::move(v.text), absent](const T& q) -> std::optional<std::string> {
      std::string t = text(q);
      if (t == absent) return std::nullopt;
      return t;
    };
  }
  return r;
}

}  // namespace

namespace {

using G = KeyGroup;
using Q = Query;

Value<Q> model_id() {
  Value<Q> v = text<Q>(FIELD(request.model));
  v.read = [](Q& q, const std::string& k, const std::string& s) -> std::optional<Error> {
    if (s.empty()) return make_error(Errc::invalid_argument, Msg::query_empty_model, {k});
    q.request.model = s;
    return std::nullopt;
  };
  return v;
}

// --dp: given, data parallelism is fixed; absent, it fills the GPUs (resolve_defaults).
Value<Q> data_parallel() {
  Value<Q> v = integer<Q>(1, 1'000'000, FIELD(request.setup.dp));
  const Read<Q> read = v.read;
  v.read = [read](Q& q, const std::string& k, const std::string& s) {
    q.dp_given = true;
    return read(q, k, s);
  };
  v.write = [](const Q& q) -> std::optional<std::string> {
    if (!q.dp_given) return std::nullopt;
    return std::to_string(q.request.setup.dp);
  };
  return v;
}

Value<Q> module_list() {
  Value<Q> v;
  v.type = KeyType::list;
  v.read = [](Q& q, const std::string& k, const std::string& s) -> std::optional<Error> {
    std::vector<std::string>& targets = q.request.setup.lora_targets;
    targets.clear();
    for (size_t start = 0; start <= s.size();) {
      const size_t comma = std::min(s.find(',', start), s.size());
      if (comma > start) targets.push_back(s.substr(start, comma - start));
      start = comma + 1;
    }
    if (targets.empty()) return not_a(Msg::query_not_module_list, k, s);
    return std::nullopt;
  };
  v.text = [](const Q& q) {
    std::string list;
    for (const auto& t : q.request.setup.lora_targets) list += (list.empty() ? "" : ",") + t;
    return list;
  };
  return v;
}

// A list of Megatron's module names held as bits of a Setup field: --recompute-modules
// ("layernorm,moe_act") and --offload-modules ("expert_fc1,moe_act"), in their names' spelling.
Value<Q> megatron_module_list(std::optional<unsigned> (*parse)(const std::string&),
                              std::string (*name)(unsigned), unsigned Setup::*field) {
  Value<Q> v;
  v.type = KeyType::list;
  v.choices = name(~0u);
  v.read = [parse, name, field](Q& q, const std::string& k,
                                const std::string& s) -> std::optional<Error> {
    const std::optional<unsigned> modules = parse(s);
    if (!modules) return not_a(Msg::query_not_one_of, k, s, name(~0u));
    q.request.setup.*field = *modules;
    return std::nullopt;
  };
  v.text = [name, field](const Q& q) { return name(q.request.setup.*field); };
  return v;
}

// The setup --framework's preset gives (framework.h) beside the precision `q` runs at, or, for
// the precision row itself, at the default precision.
Q preset_setup(const Q& q, bool precision_row) {
  const Setup& s = q.request.setup;
  Q base;
  if (precision_row) {
    base.request.setup = framework_setup(s.framework, Setup{}.precision);
    return base;
  }
  Setup& b = base.request.setup;
  b.framework = s.framework;
  b.precision = s.precision;
  apply_framework_defaults(
      b, [](const char* key, const void*) { return std::string(key) == "precision"; }, nullptr);
  return base;
}

// A field a framework preset sets: written where it differs from what the preset gives (not
// from Setup{}), since the preset fills every key a link leaves out (parse_query).
Value<Q> preset(Value<Q> v, bool precision_row = false) {
  const auto text = v.text;
  v.write = [text, precision_row](const Q& q) -> std::optional<std::string> {
    const std::string t = text(q);
    return t == text(preset_setup(q, precision_row)) ? std::nullopt : std::optional<std::string>(t);
  };
  return v;
}

std::vector<QueryKey> setup_rows() {
  return {
      row("model", G::setup, model_id(), "", "a model of the zoo (gpuplan models) or its alias",
          "模型库中的模型 id（gpuplan models）或其别名"),
      row("mode", G::setup,
          enumeration<Q>(parse_mode, mode_name, {Mode::train, Mode::infer},
                         FIELD(request.setup.mode)),
          "train", "train (forward, backward, optimizer) or infer (prefill and decode)",
          "训练（前向、反向、优化器）或推理（预填充与解码）"),
      row("framework", G::setup,
          enumeration<Q>(
              parse_framework, framework_name,
              {Framework::none, Framework::megatron, Framework::torchtitan, Framework::fsdp,
               Framework::deepspeed, Framework::hf_trainer, Framework::megatron_bridge},
              FIELD(request.setup.framework)),
          "none",
          "the training framework: its defaults (fused kernels, attention kernel, ZeRO, "
          "overlap) fill the options not given",
          "训练框架：其默认设置（融合内核、注意力内核、ZeRO、通信重叠）填充未给出的选项"),
      row("batch", G::setup, integer<Q>(1, 100'000'000, FIELD(request.setup.global_batch)),
          "auto: micro-batch x data-parallel GPUs; plan: " + std::to_string(kPlannerDefaultBatch),
          "samples per optimizer step, all GPUs together (global batch)",
          "每个优化步的样本数，所有 GPU 合计（全局批量）"),
      row("micro-batch", G::setup, integer<Q>(1, 100'000'000, FIELD(request.setup.micro_batch)),
          "auto: one per GPU, or the largest divisor of batch / dp that fits",
          "samples per GPU per forward and backward pass (gradient accumulation makes up the rest)",
          "每块 GPU 每次前向与反向的样本数（其余由梯度累积补足）"),
      row("seq", G::setup, integer<Q>(1, 100'000'000, FIELD(request.setup.seq_len)),
          "auto: the model's", "tokens per sample", "每个样本的 token 数"),
      row("resolution", G::setup, integer<Q>(1, 100'000, FIELD(request.setup.resolution)),
          "auto: the model's", "image side in pixels (image models)", "图像边长，像素（图像模型）"),
      row("precision", G::setup,
          preset(enumeration<Q>(parse_precision, precision_name,
                                {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16,
                                 Precision::amp_fp16, Precision::amp_bf16, Precision::mixed_fp16,
                                 Precision::mixed_bf16, Precision::fp8, Precision::fp8_blockwise,
                                 Precision::mxfp8, Precision::nvfp4},
                                FIELD(request.setup.precision)),
                 true),
          "fp32",
          "amp-*: autocast over FP32 weights; mixed-*: 16-bit weights and activations, FP32 "
          "masters (FSDP MixedPrecision, Megatron --bf16); fp8, fp8-blockwise, mxfp8, nvfp4: "
          "Transformer Engine's recipes",
          "amp-*：在 FP32 权重上自动混合精度；mixed-*：16 位权重与激活，FP32 主权重（FSDP "
          "MixedPrecision、Megatron --bf16）；fp8、fp8-blockwise、mxfp8、nvfp4：Transformer "
          "Engine 的配方"),
      row("optimizer", G::setup,
          enumeration<Q>(
              parse_optimizer, optimizer_name,
              {Optimizer::sgd, Optimizer::sgd_momentum, Optimizer::adam, Optimizer::adamw,
               Optimizer::adam_8bit, Optimizer::adafactor, Optimizer::lamb},
              FIELD(request.setup.optimizer)),
          "adamw", "the optimizer, whose states take memory", "优化器（其状态占用显存）"),
      row("optimizer-loop", G::setup,
          enumeration<Q>(parse_optimizer_loop, optimizer_loop_name,
                         {OptimizerLoop::foreach, OptimizerLoop::for_loop},
                         FIELD(request.setup.optimizer_loop)),
          "foreach", "for-loop: one host iteration per tensor, as PyTorch before 2.0",
          "for-loop：每个张量一次主机循环，如 PyTorch 2.0 之前"),
      row("clip-grad-norm", G::setup, flag<Q>(FIELD(request.setup.clip_grad_norm)), "0",
          "clip_grad_norm_ before each optimizer step", "每个优化步之前执行 clip_grad_norm_"),
  };
}

std::vector<QueryKey> kernel_rows() {
  return {
      row("checkpointing", G::setup,
          enumeration<Q>(
              parse_checkpointing, checkpointing_name,
              {Checkpointing::none, Checkpointing::selective, Checkpointing::full,
               Checkpointing::op_selective, Checkpointing::every_k_layers, Checkpointing::block},
              FIELD(request.setup.checkpointing)),
          "none", "activation checkpointing: what the backward pass recomputes",
          "激活检查点：反向传播时重算的部分"),
      row("recompute-modules", G::setup,
          megatron_module_list(parse_recompute_modules, recompute_modules_name,
                               &Setup::recompute_modules),
          "core_attn",
          "selective checkpointing: the parts of each block recomputed (Megatron's "
          "--recompute-modules: core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, "
          "shared_experts)",
          "选择性检查点：每个块中重算的部分（Megatron 的 --recompute-modules：core_attn、moe_act、"
          "layernorm、mla_up_proj、mlp、moe、shared_experts）"),
      row("checkpoint-every", G::setup,
          integer<Q>(1, 1'000'000, FIELD(request.setup.checkpoint_every)), "2",
          "every-k-layers: one block in K is recomputed", "every-k-layers：每 K 个块重算一个"),
      row("recompute-num-layers", G::setup,
          integer<Q>(1, 1'000'000, FIELD(request.setup.recompute_num_layers)), "1",
          "--checkpointing block: the first N blocks of each pipeline stage (or virtual stage) are "
          "recomputed "
          "(Megatron --recompute-method block --recompute-num-layers)",
          "--checkpointing block 时：每个流水线阶段（或虚拟阶段）的前 N 个块重算（Megatron "
          "--recompute-method block --recompute-num-layers）"),
      row("offload-activation-layers", G::setup,
          integer<Q>(0, 1'000'000, FIELD(request.setup.offload_activation_layers)), "0",
          "the saved activations of the first N blocks wait in host memory between the forward and "
          "backward pass (Megatron --cpu-offloading-num-layers; no recompute, --pp 1)",
          "前 N 个块保存的激活在前向与反向之间存放在主机内存中（Megatron "
          "--cpu-offloading-num-layers；不重算，--pp 1）"),
      row("offload-modules", G::setup,
          megatron_module_list(parse_offload_modules, offload_modules_name,
                               &Setup::offload_modules),
          "",
          "mixture of experts: the modules whose inputs wait in host memory between each block's "
          "forward and backward pass (Megatron --fine-grained-activation-offloading "
          "--offload-modules: expert_fc1, moe_act)",
          "混合专家：这些模块的输入在每个块的前向与反向之间存放在主机内存中（Megatron "
          "--fine-grained-activation-offloading --offload-modules：expert_fc1、moe_act）"),
      row("attention", G::setup,
          preset(enumeration<Q>(
              parse_attention, attention_name,
              {Attention::automatic, Attention::eager, Attention::flash, Attention::flash3,
               Attention::cudnn, Attention::triton, Attention::flash1},
              FIELD(request.setup.attention))),
          "auto",
          "auto: what PyTorch's SDPA picks (flash) at 16 bits from PyTorch 2.0, unless the model's "
          "own attention code adds relative position biases or is eager by reference; flash: "
          "FlashAttention-2 / SDPA; flash3: FlashAttention-3; cudnn: cuDNN's fused attention "
          "(Transformer Engine on Hopper); triton: FlashAttention in Triton (MPT's attn_impl); "
          "flash1: the first FlashAttention (before FlashAttention-2, 2022)",
          "auto：PyTorch 2.0 起在 16 位时取 SDPA 所选内核（flash），除非模型自带的注意力代码加入"
          "相对位置偏置或其参考实现为 eager；flash：FlashAttention-2 / "
          "SDPA；flash3：FlashAttention-3；cudnn：cuDNN 融合注意力（Hopper 上 Transformer "
          "Engine 所用）；triton：Triton 版 FlashAttention（MPT 的 attn_impl）；flash1：第一版 "
          "FlashAttention（FlashAttention-2 之前，2022 年）"),
      row("memory-format", G::setup,
          enumeration<Q>(parse_memory_format, memory_format_name,
                         {MemoryFormat::automatic, MemoryFormat::nchw, MemoryFormat::channels_last},
                         FIELD(request.setup.memory_format)),
          "auto", "convolutions' activations: auto is channels-last at 16 bits, else NCHW",
          "卷积激活的内存格式：auto 在 16 位时为 channels-last，否则 NCHW"),
      row("grad-reduce", G::setup,
          preset(enumeration<Q>(parse_grad_reduce, grad_reduce_name,
                                {GradReduce::automatic, GradReduce::fp32, GradReduce::bf16},
                                FIELD(request.setup.grad_reduce))),
          "auto",
          "gradient dtype of mixed-* and TE recipes (FSDP reduce_dtype, Megatron "
          "grad_reduce_in_fp32)",
          "mixed-* 与 TE 配方的梯度精度（FSDP reduce_dtype、Megatron grad_reduce_in_fp32）"),
  };
}

// Transformer Engine recipes' options and the optimizer's dtypes (precision.h).
std::vector<QueryKey> recipe_rows() {
  return {
      row("cache-quantized-weights", G::setup,
          flag<Q>(FIELD(request.setup.cache_quantized_weights)), "0",
          "TE recipes: weights quantised once per step (Megatron passes is_first_microbatch), "
          "not per micro-batch",
          "TE 配方：权重每步量化一次（Megatron 传 is_first_microbatch），而非每个微批次"),
      row("quantized-params", G::setup, flag<Q>(FIELD(request.setup.quantized_params)), "0",
          "TE recipes: weights kept and gathered quantised, no bf16 copy (Megatron "
          "--fp8-param-gather)",
          "TE 配方：权重以量化形式保存与收集，无 bf16 副本（Megatron --fp8-param-gather）"),
      row("fp8-attention", G::setup, flag<Q>(FIELD(request.setup.fp8_attention)), "0",
          "TE recipes: the attention core's matmuls in FP8 (Megatron "
          "--fp8-dot-product-attention; needs --attention cudnn)",
          "TE 配方：注意力核心的矩阵乘用 FP8（Megatron --fp8-dot-product-attention；需要 "
          "--attention cudnn）"),
      row("bf16-first-layers", G::setup,
          integer<Q>(0, 1'000'000, FIELD(request.setup.bf16_first_layers)), "0",
          "TE recipes: the first N blocks kept in bf16", "TE 配方：前 N 个块保持 bf16"),
      row("bf16-last-layers", G::setup,
          integer<Q>(0, 1'000'000, FIELD(request.setup.bf16_last_layers)), "0",
          "TE recipes: the last N blocks kept in bf16", "TE 配方：最后 N 个块保持 bf16"),
      row("optimizer-state-dtype", G::setup,
          enumeration<Q>(parse_store_dtype, store_dtype_name,
                         {StoreDtype::automatic, StoreDtype::fp32, StoreDtype::bf16,
                          StoreDtype::fp16, StoreDtype::fp8},
                         FIELD(request.setup.optimizer_state_dtype)),
          "auto", "Adam's moments (Megatron's precision-aware optimizer)",
          "Adam 的一阶与二阶矩（Megatron 的精度感知优化器）"),
      row("master-dtype", G::setup,
          enumeration<Q>(parse_store_dtype, store_dtype_name,
                         {StoreDtype::automatic, StoreDtype::fp32, StoreDtype::fp16},
                         FIELD(request.setup.master_dtype)),
          "auto", "master weights (Megatron's precision-aware optimizer)",
          "主权重（Megatron 的精度感知优化器）"),
  };
}

std::vector<QueryKey> fusion_rows() {
  Value<Q> torch = enumeration<Q>(
      parse_torch_release, torch_release_name,
      {TorchRelease::v1_10_or_earlier, TorchRelease::v1_11_to_1_13, TorchRelease::v2_0_or_later},
      FIELD(request.setup.torch_release));
  torch.choices = "1.10, 1.11-1.13, 2.0+ (or a release number, e.g. 2.4)";
  return {
      row("dropout", G::setup, number<Q>(0, 0.999, FIELD(request.setup.dropout)),
          "auto: the model's", "dropout probability in training (overrides the model's)",
          "训练时的 dropout 概率（覆盖模型自带的）"),
      row("mtp-layers", G::setup, integer<Q>(0, 64, FIELD(request.setup.mtp_layers)),
          "auto: the model's",
          "multi-token prediction modules trained with a language model (DeepSeek-V3's MTP; "
          "Megatron --mtp-num-layers; 0: none)",
          "与语言模型一同训练的多 token 预测模块数（DeepSeek-V3 的 MTP；Megatron "
          "--mtp-num-layers；0：不训练）"),
      row("cuda-graph-modules", G::setup,
          megatron_module_list(parse_cuda_graph_modules, cuda_graph_modules_name,
                               &Setup::cuda_graph_modules),
          "",
          "training: the parts of each block replayed from CUDA graphs, whose kernels the host "
          "does not launch one by one (Megatron --cuda-graph-scope: attn, mlp, moe, moe_router, "
          "moe_preprocess, mamba; layer: whole blocks; full_iteration: the whole pass)",
          "训练：每个块中由 CUDA 图重放的部分，其内核不再由主机逐个启动（Megatron 的 "
          "--cuda-graph-scope 取值 'attn'、'mlp'、'moe'、'moe_router'、'moe_preprocess'、'mamba'；"
          "'layer'：整个块；'full_iteration'：整个前向与反向）"),
      row("compile", G::setup, flag<Q>(FIELD(request.setup.compile)), "0",
          "torch.compile: non-matmul kernels fused", "torch.compile：融合非矩阵乘内核"),
      row("fused-kernels", G::setup, preset(flag<Q>(FIELD(request.setup.fused_kernels))), "0",
          "the framework's fused norm, activation and dropout kernels (Megatron, Transformer "
          "Engine): non-matmul work at HBM rate",
          "框架自带的融合归一化、激活与 dropout 内核（Megatron、Transformer Engine）：非矩阵乘"
          "部分按显存带宽计"),
      row("fused-loss", G::setup, preset(flag<Q>(FIELD(request.setup.fused_loss))), "0",
          "a fused cross-entropy: no FP32 logits kept", "融合交叉熵：不保留 FP32 logits"),
      row("pytorch", G::setup, torch, "2.0+",
          "PyTorch release (or its number, e.g. 2.4): before 1.11 softmax and log_softmax also "
          "keep their input; before 2.0 auto attention is eager (no SDPA)",
          "PyTorch 版本（或版本号，如 2.4）：1.11 之前 softmax 与 log_softmax 还保留其输入；2.0 "
          "之前 auto 注意力为 eager（没有 SDPA）"),
      row("generate", G::setup, integer<Q>(0, 100'000'000, FIELD(request.setup.generate_tokens)),
          "0", "infer: tokens decoded after the prompt (seq)",
          "推理：提示（seq）之后解码的 token 数"),
  };
}

std::vector<QueryKey> parallel_rows() {
  return {
      row("dp", G::parallelism, data_parallel(), "auto: the GPUs left by tp x pp x cp",
          "data-parallel replicas", "数据并行副本数"),
      row("zero", G::parallelism, preset(integer<Q>(0, 3, FIELD(request.setup.zero_stage))), "0",
          "ZeRO stage across data-parallel GPUs (3 is also FSDP full sharding)",
          "跨数据并行 GPU 的 ZeRO 阶段（3 即 FSDP 完全分片）"),
      row("dp-shard", G::parallelism, integer<Q>(0, 1'000'000, FIELD(request.setup.dp_shard)), "0",
          "hybrid sharding (HSDP): ZeRO shards over groups of N data-parallel GPUs, each group a "
          "replica that all-reduces its shard (0: one group of all)",
          "混合分片（HSDP）：ZeRO 在每 N 个数据并行 GPU "
          "组成的组内分片，每组是一个副本，副本间对分片做 "
          "all-reduce（0：所有 GPU 为一组）"),
      row("tp", G::parallelism, integer<Q>(1, 1'000'000, FIELD(request.setup.tp)), "1",
          "tensor-parallel degree", "张量并行度"),
      row("sp", G::parallelism, flag<Q>(FIELD(request.setup.sequence_parallel)), "0",
          "sequence parallelism (with tp > 1)", "序列并行（tp > 1 时）"),
      row("pp", G::parallelism, integer<Q>(1, 1'000'000, FIELD(request.setup.pp)), "1",
          "pipeline stages (1F1B schedule)", "流水线级数（1F1B 调度）"),
      row("vp", G::parallelism, integer<Q>(1, 1'000'000, FIELD(request.setup.vp)), "1",
          "virtual pipeline stages per pipeline rank: interleaved 1F1B (1: plain 1F1B)",
          "每个流水线 rank 的虚拟流水线级数：交错式 1F1B（1：普通 1F1B）"),
      row("cp", G::parallelism, integer<Q>(1, 1'000'000, FIELD(request.setup.cp)), "1",
          "context-parallel degree: the sequence split over this many GPUs",
          "上下文并行度：序列切分到这么多块 GPU 上"),
      row("cp-comm", G::parallelism,
          enumeration<Q>(parse_context_comm, context_comm_name,
                         {ContextComm::ring, ContextComm::all_to_all},
                         FIELD(request.setup.cp_comm)),
          "ring",
          "how context parallelism exchanges attention's inputs: ring (K/V passed on behind "
          "attention) or all-to-all (DeepSpeed Ulysses)",
          "上下文并行交换注意力输入的方式：ring（K/V 环形传递，与注意力计算重叠）或 "
          "all-to-all（DeepSpeed Ulysses）"),
      row("tp-comm-overlap", G::parallelism, flag<Q>(FIELD(request.setup.tp_comm_overlap)), "0",
          "tensor-parallel communication overlapped with the GEMMs (Transformer Engine "
          "userbuffers; needs sp)",
          "张量并行通信与 GEMM 重叠（Transformer Engine userbuffers；需要 sp）"),
      row("overlap-grad-reduce", G::parallelism,
          preset(boolean<Q>(FIELD(request.setup.overlap_grad_reduce))), "1",
          "gradients reduced in buckets during backward (0: after it, as Megatron without "
          "--overlap-grad-reduce)",
          "反向传播期间分桶归约梯度（0：反向结束后归约，如未加 --overlap-grad-reduce 的 "
          "Megatron）"),
      row("overlap-param-gather", G::parallelism,
          preset(flag<Q>(FIELD(request.setup.overlap_param_gather))), "0",
          "ZeRO-1 / distributed optimizer: the updated parameters' all-gather overlapped with "
          "the next step's forward",
          "ZeRO-1 / 分布式优化器：更新后参数的 all-gather 与下一步的前向重叠"),
  };
}

// Mixture-of-experts parallelism and adapters (LoRA, QLoRA).
std::vector<QueryKey> expert_and_adapter_rows() {
  return {
      row("ep", G::parallelism, integer<Q>(1, 1'000'000, FIELD(request.setup.ep)), "1",
          "mixture of experts: expert-parallel ranks, carved out of dp x cp x tp (Megatron-Core)",
          "混合专家：专家并行的秩数，从 dp x cp x tp 中划分（Megatron-Core）"),
      row("etp", G::parallelism, integer<Q>(1, 1'000'000, FIELD(request.setup.etp)), "auto: tp",
          "mixture of experts: ranks each expert's GEMMs are split over",
          "混合专家：每个专家的矩阵乘切分到的秩数"),
      row("capacity-factor", G::parallelism,
          number<Q>(0, 1e6, FIELD(request.setup.capacity_factor)), "0",
          "mixture of experts: an expert takes at most this many times an even share of the "
          "tokens and drops the rest (0: dropless)",
          "混合专家：每个专家最多接收均分 token 数的这一倍数，其余丢弃（0：不丢弃）"),
      row("moe-pad-to-capacity", G::parallelism, flag<Q>(FIELD(request.setup.moe_pad_to_capacity)),
          "0",
          "mixture of experts: pad every expert's input to the capacity (needs --capacity-factor)",
          "混合专家：把每个专家的输入填充到容量（需要 --capacity-factor）"),
      row("moe-rank-capacity", G::parallelism,
          number<Q>(0, 1e6, FIELD(request.setup.moe_rank_capacity)), "0",
          "mixture of experts: HybridEP's fixed budget per expert-parallel rank, in even shares "
          "of the routed tokens; the rest is dropped, and full_iteration CUDA graphs can hold "
          "the MoE blocks (0: none)",
          "混合专家：HybridEP 每个专家并行秩的固定预算（以路由 token 的均分份额计）；超出部分丢弃，"
          "full_iteration CUDA 图可包含 MoE 块（0：无）"),
      row("moe-imbalance", G::parallelism, number<Q>(1, 1e6, FIELD(request.setup.moe_imbalance)),
          "auto: 1.52",
          "mixture of experts: the busiest expert's tokens / an even share (1: forced balance)",
          "混合专家：最忙专家的 token 数 / 均分份额（1：强制均衡）"),
      row("moe-dispatcher", G::parallelism,
          enumeration<Q>(parse_moe_dispatcher, moe_dispatcher_name,
                         {MoeDispatcher::alltoall, MoeDispatcher::deepep, MoeDispatcher::hybridep},
                         FIELD(request.setup.moe_dispatcher)),
          "alltoall",
          "mixture of experts: how tokens reach their experts (NCCL all-to-all, DeepEP's "
          "node-aware dispatch, or HybridEP's, which spans an NVL72 rack)",
          "混合专家：token 到达专家的方式（NCCL all-to-all、DeepEP 按节点的分发，或可跨整个 NVL72 "
          "机架的 "
          "HybridEP）"),
      row("moe-a2a-overlap", G::parallelism, flag<Q>(FIELD(request.setup.moe_a2a_overlap)), "0",
          "mixture of experts: Megatron's 1F1B all-to-all overlap with the other micro-batch's "
          "compute",
          "混合专家：Megatron 的 1F1B all-to-all 与另一微批次计算重叠"),
      row("lora-rank", G::parallelism, integer<Q>(0, 65536, FIELD(request.setup.lora_rank)), "0",
          "LoRA adapters of this rank, base weights frozen (0: full fine-tuning)",
          "该秩的 LoRA 适配器，基座权重冻结（0：全量微调）"),
      row("qlora", G::parallelism, flag<Q>(FIELD(request.setup.qlora)), "0",
          "4-bit NF4 base weights with double quantisation", "4 位 NF4 基座权重，双重量化"),
      row("lora-targets", G::parallelism, module_list(), "q_proj,v_proj",
          "the modules LoRA adapts (Hugging Face names, or Megatron's linear_qkv, linear_proj, "
          "linear_fc1, linear_fc2: one adapter per fused layer)",
          "LoRA 适配的模块（Hugging Face 的名称，或 Megatron 的 "
          "linear_qkv、linear_proj、linear_fc1、"
          "linear_fc2：每个融合层一个适配器）"),
  };
}

std::vector<QueryKey> hardware_and_run_rows() {
  return {
      row("gpu", G::hardware, text<Q>(FIELD(gpu)), "", "a GPU of the catalog (gpuplan gpus)",
          "目录中的 GPU（gpuplan gpus）"),
      row("gpus", G::hardware, integer<Q>(1, kMaxClusterGpus, FIELD(gpus)),
          "auto: 1, or the instance's", "GPUs of that model in one box",
          "同一台机器中该型号 GPU 的数量"),
      row("instance", G::hardware, text<Q>(FIELD(instance)), "",
          "a cloud instance type (gpuplan instances): its GPUs and price",
          "云实例类型（gpuplan instances）：其 GPU 与价格"),
      row("nodes", G::hardware, integer<Q>(1, kMaxClusterGpus, FIELD(nodes)), "auto: 1",
          "instances joined by their network (up to 100,000 GPUs in all)",
          "通过网络连接的实例数（合计最多 100,000 块 GPU）"),
      row("runtime", G::hardware,
          enumeration<Q>(
              parse_runtime, runtime_name,
              {Runtime::hf, Runtime::vllm, Runtime::trtllm, Runtime::sglang, Runtime::llamacpp},
              FIELD(runtime)),
          "hf",
          "infer with --generate: the engine whose prefill and decode are timed, as gpuplan serve "
          "times it (hf: transformers' model.generate in eager PyTorch)",
          "推理且给出 --generate 时：按 gpuplan serve 的方式计时预填充与解码所用的引擎（hf："
          "transformers 库的 model.generate，eager PyTorch）"),
      row("tokens", G::run, number<Q>(1, 1e16, FIELD(run.tokens)), "",
          "run length in training tokens (2B, 2e9)",
          "训练时长，以训练 token 数计（可写 2亿、2e9）"),
      row("epochs", G::run, number<Q>(1e-3, 1e6, FIELD(run.epochs)), "",
          "run length in passes over the dataset", "训练时长，以数据集遍数计"),
      row("dataset-size", G::run, number<Q>(1, 1e13, FIELD(run.dataset_size)),
          "auto: the model's dataset", "samples per epoch", "每遍的样本数"),
  };
}

// --currency of estimate, plan and serve (Query::currency, ServeRequest::currency alike).
template <class T>
Value<T> currency() {
  Value<T> v = text<T>(FIELD(currency));
  v.type = KeyType::choice;
  v.choices = "usd, cny";
  v.read = [](T& q, const std::string& k, const std::string& s) -> std::optional<Error> {
    if (s != "usd" && s != "cny") return not_a(Msg::query_not_one_of, k, s, "usd, cny");
    q.currency = s == "usd" ? "USD" : "CNY";
    return std::nullopt;
  };
  v.text = [](const T& q) { return std::string(q.currency == "CNY" ? "cny" : "usd"); };
  return v;
}

std::vector<QueryKey> pricing_rows() {
  return {
      row("pricing", G::pricing,
          enumeration<Q>(parse_pricing, pricing_name,
                         {Pricing::on_demand, Pricing::monthly, Pricing::reserved_1y,
                          Pricing::reserved_3y, Pricing::bulk, Pricing::spot},
                         FIELD(pricing)),
          "on-demand", "how the instance is paid for", "实例的计费方式"),
      row("region", G::pricing, text<Q>(FIELD(region)), "", "a region of the provider",
          "云厂商的区域"),
      row("currency", G::pricing, currency<Q>(), "usd", "the currency prices are shown in",
          "显示价格所用的货币"),
      row("reservation-utilisation", G::pricing, number<Q>(1e-3, 1, FIELD(commitment.utilisation)),
          "", "the share of a reserved term the run uses (absent: the whole term is charged)",
          "本次运行使用的预留期比例（缺省：按整个预留期计费）"),
      row("spot-interruptions-per-hour", G::pricing,
          number<Q>(0, 10, FIELD(spot.interruptions_per_hour)),
          "auto: data/assumptions.json's rate", "spot interruptions per hour",
          "每小时竞价实例中断次数"),
      row("spot-interruption-bucket", G::pricing, text<Q>(FIELD(spot_bucket)), "",
          "a published interruption bucket (e.g. aws-10-15) instead of a rate",
          "公布的中断率区间（如 aws-10-15），代替中断次数"),
      row("checkpoint-interval-hours", G::pricing,
          number<Q>(1e-3, 1e4, FIELD(spot.checkpoint_interval_h)), "1",
          "hours between checkpoints (half an interval is lost per interruption)",
          "两次检查点之间的小时数（每次中断损失半个间隔）"),
      row("restart-hours", G::pricing, number<Q>(0, 1e3, FIELD(spot.restart_h)),
          "auto: data/assumptions.json's restart time", "hours to restart after an interruption",
          "中断后重启所需小时数"),
  };
}

const char* objective_name(Objective o) {
  return o == Objective::time ? "time" : "cost";
}
std::optional<Objective> parse_objective(const std::string& s) {
  if (s == "cost") return Objective::cost;
  if (s == "time") return Objective::time;
  return std::nullopt;
}

// --compliance: one of compliance_kinds(), or empty (any).
Value<Q> compliance() {
  Value<Q> v = text<Q>(FIELD(compliance));
  v.type = KeyType::choice;
  for (const ComplianceKind& c : compliance_kinds())
    v.choices += (v.choices.empty() ? "" : ", ") + std::string(c.id);
  v.read = [list = v.choices](Q& q, const std::string& k,
                              const std::string& s) -> std::optional<Error> {
    const auto& kinds = compliance_kinds();
    if (!s.empty() && std::none_of(kinds.begin(), kinds.end(),
                                   [&](const ComplianceKind& c) { return s == c.id; })) {
      return not_a(Msg::query_not_one_of_or_empty, k, s, list);
    }
    q.compliance = s;
    return std::nullopt;
  };
  return v;
}

std::vector<QueryKey> planner_rows() {
  return {
      row("provider", G::planner, text<Q>(FIELD(provider)), "", "only this provider's instances",
          "只考虑该云厂商的实例"),
      row("compliance", G::planner, compliance(), "", "only regions that meet it (data/providers)",
          "只考虑满足该合规要求的区域"),
      row("objective", G::planner,
          enumeration<Q>(parse_objective, objective_name, {Objective::cost, Objective::time},
                         FIELD(objective)),
          "cost", "what the plans are ranked by", "方案的排序依据"),
      row("deadline-hours", G::planner, number<Q>(0, 1e7, FIELD(deadline_hours)), "",
          "only plans that finish within this many hours", "只保留在该小时数内完成的方案"),
      row("budget-usd", G::planner, number<Q>(0, 1e12, FIELD(budget_usd)), "",
          "only plans that cost at most this", "只保留花费不超过该金额的方案"),
      row("plan-gpu", G::planner, text<Q>(FIELD(plan_gpu)), "",
          "only this GPU's instances (gpuplan gpus); the planner searches every GPU, whatever "
          "--gpu says (that is the estimate's GPU)",
          "只考虑该 GPU 的实例（gpuplan gpus）；规划器搜索所有 GPU，与 --gpu（估算所用的 "
          "GPU）无关"),
      row("min-gpu-memory-gb", G::planner, number<Q>(0, 1e4, FIELD(min_gpu_memory_gb)), "",
          "only GPUs with at least this much memory (GB)", "只考虑显存不少于该值的 GPU（GB）"),
      row("max-nodes", G::planner, integer<Q>(1, kMaxPlanNodes, FIELD(max_nodes)),
          "auto: " + std::to_string(kDefaultMaxNodes),
          "the most instances a plan joins (auto also tries one whole rack that is sold only "
          "whole, e.g. 18 hosts of an NVL72)",
          "一个方案最多连接的实例数（自动时也会尝试一个只整柜出售的机柜，例如 NVL72 的 18 "
          "台主机）"),
      row("top", G::planner, integer<Q>(1, kMaxTopK, FIELD(top_k)),
          "auto: " + std::to_string(kDefaultTopK), "plans shown", "显示的方案数"),
  };
}

bool custom_transformer(const Q& q) {
  return q.custom.kind == CustomModel::Kind::transformer;
}
bool custom_cnn(const Q& q) {
  return q.custom.kind == CustomModel::Kind::cnn;
}

// A field of the custom transformer, written when that transformer is the workload.
#define SPEC(path) FIELD(custom.transformer.path)
template <class V>
Value<Q> spec(V v) {
  return only_if<Q>(custom_transformer, std::move(v));
}

// A field the editor's conventions set (editor_conventions): written where it differs from what
// they give, and read after them, so an uploaded config.json's own choice comes back.
Value<Q> conventional(Value<Q> v) {
  const auto text = v.text;
  v.write = [text](const Q& q) -> std::optional<std::string> {
    if (!custom_transformer(q)) return std::nullopt;
    Q c = q;
    c.custom.transformer = editor_conventions(q.custom.transformer);
    const std::string t = text(q);
    return t == text(c) ? std::nullopt : std::optional<std::string>(t);
  };
  return v;
}

QueryKey derived(QueryKey r) {
  r.derived = true;
  return r;
}

Value<Q> custom_kind() {
  Value<Q> v = indexed<Q>({"none", "transformer", "cnn"}, FIELD(custom.kind));
  v.choices = "transformer, cnn";
  const Read<Q> read = v.read;
  v.read = [read](Q& q, const std::string& k, const std::string& s) -> std::optional<Error> {
    if (s == "none") return not_a(Msg::query_not_one_of, k, s, "transformer, cnn");
    return read(q, k, s);
  };
  return v;
}

std::vector<QueryKey> custom_shape_rows() {
  const G g = G::custom_model;
  return {
      row("custom", g, custom_kind(), "", "a model described by its hyperparameters",
          "按超参数描述的模型"),
      row("c-name", g,
          only_if<Q>([](const Q& q) { return q.custom.kind != CustomModel::Kind::none; },
                     text<Q>(FIELD(custom.name))),
          "", "its name, for people", "其名称（供显示）"),
      row("c-layers", g, spec(integer<Q>(1, 100000, SPEC(layers))), "",
          "blocks (the encoder's, for encoder-decoder models)",
          "块数（编码器-解码器模型为编码器的）"),
      row("c-decoder-layers", g, spec(integer<Q>(0, 100000, SPEC(decoder_layers))), "0",
          "decoder blocks with cross-attention (encoder-decoder)",
          "带交叉注意力的解码器块数（编码器-解码器）"),
      row("c-hidden", g, spec(integer<Q>(1, 1000000, SPEC(hidden))), "", "hidden size", "隐藏维度"),
      row("c-heads", g, spec(integer<Q>(1, 100000, SPEC(heads))), "", "attention heads",
          "注意力头数"),
      row("c-kv-heads", g, spec(integer<Q>(0, 100000, SPEC(kv_heads))), "0",
          "key/value heads, fewer for grouped-query attention (0: as heads)",
          "键/值头数，分组查询注意力时更少（0：同头数）"),
      row("c-head-dim", g, spec(integer<Q>(0, 100000, SPEC(head_dim))), "0",
          "width of a head (0: hidden / heads)", "每个头的宽度（0：隐藏维度 / 头数）"),
      row("c-ffn", g, spec(integer<Q>(1, 10000000, SPEC(ffn_hidden))), "",
          "MLP hidden size (per expert)", "MLP 隐藏维度（每个专家）"),
      row("c-vocab", g, spec(integer<Q>(1, 10000000, SPEC(vocab))), "", "vocabulary size",
          "词表大小"),
      row("c-max-positions", g, spec(integer<Q>(0, 100000000, SPEC(max_positions))), "0",
          "longest context (learned positions need it)", "最长上下文（学习式位置编码需要）"),
      row("c-gated", g, spec(boolean<Q>(SPEC(gated_mlp))), "0",
          "a gated MLP (SwiGLU: three matrices)", "门控 MLP（SwiGLU：三个矩阵）"),
      row("c-tied", g, spec(boolean<Q>(SPEC(tied_embeddings))), "0",
          "the output projection shares the input embedding", "输出投影与输入嵌入共享"),
      row("c-bias", g, spec(boolean<Q>(SPEC(qkv_bias))), "0",
          "biases on the Q, K, V projections (and, by convention, the others)",
          "Q、K、V 投影带偏置（按惯例其余投影也带）"),
      row("c-experts", g, spec(integer<Q>(0, 100000, SPEC(experts))), "0",
          "mixture of experts: MLPs per layer (0 or 1: dense)",
          "混合专家：每层 MLP 数（0 或 1：稠密）"),
      row("c-experts-per-token", g, spec(integer<Q>(0, 100000, SPEC(experts_per_token))), "0",
          "experts each token is routed to", "每个 token 路由到的专家数"),
  };
}

std::vector<QueryKey> custom_convention_rows() {
  const G g = G::custom_model;
  return {
      derived(row("c-activation", g,
                  conventional(indexed<Q>({"gelu", "relu", "silu", "relu2"}, SPEC(activation))),
                  "auto: silu when gated, else gelu", "the MLP's activation", "MLP 的激活函数")),
      derived(row("c-positions", g,
                  conventional(indexed<Q>({"learned", "rotary", "relative", "none", "xl-relative"},
                                          SPEC(positions))),
                  "auto: rotary when gated or without max positions, else learned",
                  "how positions enter", "位置编码方式")),
      derived(row("c-norm", g, conventional(indexed<Q>({"layernorm", "rmsnorm"}, SPEC(norm))),
                  "auto: rmsnorm when gated, else layernorm", "the blocks' norm", "块的归一化")),
      derived(row("c-norm-bias", g, conventional(boolean<Q>(SPEC(norm_bias))),
                  "auto: 0 when gated, else 1", "LayerNorm with a bias", "LayerNorm 带偏置")),
      derived(row("c-attn-out-bias", g, conventional(boolean<Q>(SPEC(attn_out_bias))),
                  "auto: as c-bias", "a bias on the attention's output projection",
                  "注意力输出投影带偏置")),
      derived(row("c-mlp-bias", g, conventional(boolean<Q>(SPEC(mlp_bias))), "auto: as c-bias",
                  "biases on the MLP's projections", "MLP 投影带偏置")),
      derived(row("c-head", g, conventional(indexed<Q>({"lm", "classifier", "none"}, SPEC(head))),
                  "lm", "the output head", "输出头")),
      row("c-classes", g, spec(integer<Q>(0, 1000000, SPEC(num_classes))), "0",
          "classes of a classifier head", "分类头的类别数"),
  };
}

// A list of integers of the custom transformer, comma-separated in a link: adaptive input and
// softmax cutoffs ("20000,40000,200000"), per-layer MLP widths.
Value<Q> integer_list(std::vector<int64_t> TransformerSpec::*field, int64_t most) {
  Value<Q> v;
  v.type = KeyType::list;
  v.read = [field, most](Q& q, const std::string& k, const std::string& s) -> std::optional<Error> {
    std::vector<int64_t>& list = q.custom.transformer.*field;
    list.clear();
    for (size_t start = 0; start <= s.size() && !s.empty();) {
      const size_t comma = std::min(s.find(',', start), s.size());
      auto n = parse_int(s.substr(start, comma - start), k);
      if (!n.ok()) return n.error();
      if (n.value() < 1 || n.value() > most)
        return out_of_range(k, s, 1, static_cast<double>(most));
      list.push_back(n.value());
      start = comma + 1;
    }
    return std::nullopt;
  };
  v.text = [field](const Q& q) {
    std::string list;
    for (int64_t c : q.custom.transformer.*field)
      list += (list.empty() ? "" : ",") + std::to_string(c);
    return list;
  };
  return spec(v);
}

// TransformerSpec::attention_dropout: absent, as the residual dropout.
Value<Q> attention_dropout() {
  Value<Q> v = boolean<Q>(FIELD(custom.transformer.dropout));
  v.read = [](Q& q, const std::string& k, const std::string& s) -> std::optional<Error> {
    const auto b = parse_bool(s);
    if (!b) return not_a(Msg::query_not_bool, k, s);
    q.custom.transformer.attention_dropout = *b;
    return std::nullopt;
  };
  v.text = [](const Q& q) {
    const auto& d = q.custom.transformer.attention_dropout;
    return std::string(!d ? "" : *d ? "1" : "0");
  };
  return spec(v);
}

std::vector<QueryKey> custom_layout_rows() {
  const G g = G::custom_model;
  return {
      row("c-fused-qkv", g, spec(boolean<Q>(SPEC(fused_qkv))), "0",
          "one Linear computes Q, K and V (GPT-2's c_attn)",
          "一个 Linear 同时计算 Q、K、V（GPT-2 的 c_attn）"),
      row("c-relative-buckets", g, spec(integer<Q>(0, 1000000, SPEC(relative_buckets))), "0",
          "T5-style relative attention buckets", "T5 式相对注意力桶数"),
      row("c-memory-len", g, spec(integer<Q>(0, 100000000, SPEC(memory_len))), "0",
          "Transformer-XL: cached hidden states each layer attends to",
          "Transformer-XL：每层关注的缓存隐藏状态数"),
      row("c-adaptive-cutoffs", g, integer_list(&TransformerSpec::adaptive_cutoffs, 10'000'000), "",
          "adaptive input and softmax: vocabulary cutoffs", "自适应输入与 softmax：词表切分点"),
      row("c-adaptive-div", g, spec(integer<Q>(1, 1000, SPEC(adaptive_div))), "1",
          "adaptive input: each cluster's width is divided by this",
          "自适应输入：每个簇的宽度除以该值"),
      row("c-token-types", g, spec(integer<Q>(0, 1000000, SPEC(token_types))), "0",
          "segment embeddings (BERT)", "片段嵌入数（BERT）"),
      row("c-embedding-norm", g, spec(boolean<Q>(SPEC(embedding_norm))), "0",
          "a norm right after the embeddings (BERT)", "嵌入之后紧接一个归一化（BERT）"),
      row("c-final-norm", g, spec(boolean<Q>(SPEC(final_norm))), "1", "a norm after the last block",
          "最后一个块之后的归一化"),
      row("c-pooler", g, spec(boolean<Q>(SPEC(pooler))), "0", "BERT's pooler (dense + tanh)",
          "BERT 的池化层（dense + tanh）"),
      row("c-lm-head-transform", g, spec(boolean<Q>(SPEC(lm_head_transform))), "0",
          "BERT's MLM head transform (dense + norm)", "BERT MLM 头的变换（dense + 归一化）"),
      row("c-lm-head-bias", g, spec(boolean<Q>(SPEC(lm_head_bias))), "0",
          "a bias on the output projection", "输出投影带偏置"),
      row("c-dropout", g, spec(boolean<Q>(SPEC(dropout))), "0",
          "dropout on the residual stream in training", "训练时残差流上的 dropout"),
      row("c-attention-dropout", g, attention_dropout(), "auto: as c-dropout",
          "dropout on the attention probabilities", "注意力概率上的 dropout"),
      row("c-image-size", g, spec(integer<Q>(0, 100000, SPEC(image_size))), "0",
          "vision transformers: image side in pixels", "视觉 Transformer：图像边长（像素）"),
      row("c-patch-size", g, spec(integer<Q>(0, 100000, SPEC(patch_size))), "0",
          "vision transformers: patch side in pixels", "视觉 Transformer：图块边长（像素）"),
      row("c-channels", g, spec(integer<Q>(1, 1000, SPEC(channels))), "3",
          "vision transformers: input channels", "视觉 Transformer：输入通道数"),
      row("c-class-token", g, spec(boolean<Q>(SPEC(class_token))), "0",
          "vision transformers: a class token", "视觉 Transformer：类别 token"),
  };
}

// Mixture-of-experts layouts (DeepSeek-V3, Llama 4, Qwen3-MoE, GPT-OSS), as the catalog's model
// files spell them.
std::vector<QueryKey> custom_moe_rows() {
  const G g = G::custom_model;
  return {
      row("c-moe-ffn", g, spec(integer<Q>(0, 1000000, SPEC(moe_ffn_hidden))), "0",
          "routed experts' MLP width (0: c-ffn)", "路由专家的 MLP 宽度（0：同 c-ffn）"),
      row("c-shared-experts", g, spec(integer<Q>(0, 100000, SPEC(shared_experts))), "0",
          "shared experts every token passes through", "每个 token 都经过的共享专家数"),
      row("c-shared-expert-ffn", g, spec(integer<Q>(0, 1000000, SPEC(shared_expert_ffn_hidden))),
          "0", "shared experts' MLP width (0: c-moe-ffn)",
          "共享专家的 MLP 宽度（0：同 c-moe-ffn）"),
      row("c-shared-expert-gate", g, spec(boolean<Q>(SPEC(shared_expert_gate))), "0",
          "a sigmoid gate scales the shared experts' output", "共享专家的输出乘以一个门控值"),
      row("c-first-dense-layers", g, spec(integer<Q>(0, 1000000, SPEC(first_dense_layers))), "0",
          "dense blocks before the first MoE block", "第一个 MoE 块之前的稠密块数"),
      row("c-moe-layer-step", g, spec(integer<Q>(1, 1000000, SPEC(moe_layer_step))), "1",
          "every n-th block (after the dense ones) is MoE", "（稠密块之后）每 n 个块一个 MoE 块"),
      row("c-router-bias", g, spec(boolean<Q>(SPEC(router_bias))), "0",
          "the router Linear has a bias", "路由器的 Linear 带偏置"),
      row("c-mtp-layers", g, spec(integer<Q>(0, 64, SPEC(mtp_layers))), "0",
          "multi-token prediction modules (trained, dropped at inference)",
          "多 token 预测模块（训练时有，推理时去掉）"),
  };
}

// Attention of 2026's own kinds: full blocks first of every n (Step-3.7) or also leading
// (MiMo-V2-Flash), global blocks of their own geometry (Gemma 4) and without sinks
// (MiMo-V2-Flash), DeepSeek-V4's compressed attention and hyper-connections.
std::vector<QueryKey> custom_attention_variant_rows() {
  const G g = G::custom_model;
  return {
      row("c-full-attention-first", g, spec(boolean<Q>(SPEC(full_attention_first))), "0",
          "the full blocks are the first of every n-th (blocks 0, n, 2n, ...) instead of the last",
          "全注意力块是每 n 个中的第一个（第 0、n、2n…… 个块），而不是最后一个"),
      row("c-full-attention-leading", g, spec(integer<Q>(0, 1000000, SPEC(full_attention_leading))),
          "0", "the first n blocks attend fully as well (MiMo-V2-Flash: block 0)",
          "前 n 个块也是全注意力块（MiMo-V2-Flash：第 0 个块）"),
      row("c-global-head-dim", g, spec(integer<Q>(0, 1000000, SPEC(global_head_dim))), "0",
          "with a window: channels per head of the full-attention blocks (0: head-dim)",
          "有窗口时：全注意力块每个头的通道数（0：与一般块相同）"),
      row("c-global-kv-heads", g, spec(integer<Q>(0, 1000000, SPEC(global_kv_heads))), "0",
          "with a window: key-value heads of the full-attention blocks (0: kv-heads)",
          "有窗口时：全注意力块的键值头数（0：与一般块相同）"),
      row("c-global-kv-shared", g, spec(boolean<Q>(SPEC(global_kv_shared))), "0",
          "the full-attention blocks' keys are also their values (no v_proj)",
          "全注意力块的键同时用作值（没有 v_proj）"),
      row("c-sinks-windowed-only", g, spec(boolean<Q>(SPEC(sinks_windowed_only))), "0",
          "the attention sinks are the windowed blocks' only, not the full blocks'",
          "注意力汇聚只在窗口块中，全注意力块没有"),
      row("c-o-groups", g, spec(integer<Q>(0, 1000000, SPEC(o_groups))), "0",
          "compressed attention: groups of heads sharing a low-rank output projection",
          "压缩注意力：共享一个低秩输出投影的头组数"),
      row("c-o-lora-rank", g, spec(integer<Q>(0, 1000000, SPEC(o_lora_rank))), "0",
          "compressed attention (DeepSeek-V4): each group's output rank (0: none)",
          "压缩注意力（DeepSeek-V4）：每组输出投影的秩（0：不用）"),
      row("c-csa-layers", g, spec(integer<Q>(0, 1000000, SPEC(csa_layers))), "0",
          "compressed attention: blocks that compress keys and select the indexer's top-k",
          "压缩注意力：压缩键并由索引器选出前 k 个条目的块数"),
      row("c-csa-ratio", g, spec(integer<Q>(0, 1000000, SPEC(csa_ratio))), "0",
          "compressed attention: tokens per entry in those blocks",
          "压缩注意力：这些块中每个条目压缩的 token 数"),
      row("c-hca-layers", g, spec(integer<Q>(0, 1000000, SPEC(hca_layers))), "0",
          "compressed attention: blocks that read every heavily compressed entry",
          "压缩注意力：读取全部高倍压缩条目的块数"),
      row("c-hca-ratio", g, spec(integer<Q>(0, 1000000, SPEC(hca_ratio))), "0",
          "compressed attention: tokens per entry in those blocks",
          "压缩注意力：这些块中每个条目压缩的 token 数"),
      row("c-hc-streams", g, spec(integer<Q>(0, 64, SPEC(hc_streams))), "0",
          "hyper-connections: copies of the residual stream (0: a plain residual)",
          "超连接：残差流的份数（0：普通残差）"),
  };
}

// Latent, local and normalised attention and rotary scaling (DeepSeek-V3's MLA, GPT-OSS and
// Llama 4 windows, Qwen3's QK norm).
std::vector<QueryKey> custom_attention_rows() {
  const G g = G::custom_model;
  return {
      row("c-q-lora-rank", g, spec(integer<Q>(0, 1000000, SPEC(q_lora_rank))), "0",
          "latent attention: the queries' bottleneck rank (0: one projection)",
          "潜在注意力：查询的瓶颈秩（0：单一投影）"),
      row("c-kv-lora-rank", g, spec(integer<Q>(0, 1000000, SPEC(kv_lora_rank))), "0",
          "latent attention: the keys' and values' latent width (0: off)",
          "潜在注意力：键与值的潜在宽度（0：关闭）"),
      row("c-qk-nope-head-dim", g, spec(integer<Q>(0, 1000000, SPEC(qk_nope_head_dim))), "0",
          "latent attention: query/key channels per head without rotary",
          "潜在注意力：每头不带旋转编码的查询/键通道数"),
      row("c-qk-rope-head-dim", g, spec(integer<Q>(0, 1000000, SPEC(qk_rope_head_dim))), "0",
          "latent attention: rotary key channels shared by the heads",
          "潜在注意力：各头共享的旋转键通道数"),
      row("c-v-head-dim", g, spec(integer<Q>(0, 1000000, SPEC(v_head_dim))), "0",
          "value channels per head (latent attention; otherwise 0: head-dim)",
          "每头的值通道数（潜在注意力；否则 0 表示与头维度相同）"),
      row("c-sliding-window", g, spec(integer<Q>(0, 1000000000, SPEC(sliding_window))), "0",
          "local attention: the window in tokens (0: every block attends fully)",
          "局部注意力：窗口的 token 数（0：每个块都是全注意力）"),
      row("c-full-attention-every", g, spec(integer<Q>(0, 1000000, SPEC(full_attention_every))),
          "0", "with a window or linear attention: every n-th block attends fully",
          "有窗口或线性注意力时：每 n 个块一个全注意力块"),
      row("c-local-attention", g, spec(indexed<Q>({"sliding", "chunked"}, SPEC(local_attention))),
          "sliding", "the window slides, or cuts the sequence into chunks",
          "窗口滑动，或把序列切成块"),
      row("c-attention-sinks", g, spec(boolean<Q>(SPEC(attention_sinks))), "0",
          "a learned sink logit per head and block", "每个块每个头一个可学习的 sink logit"),
      row("c-index-topk", g, spec(integer<Q>(0, 1000000000, SPEC(index_topk))), "0",
          "sparse attention: keys each query attends to, chosen by its indexer (0: none)",
          "稀疏注意力：每个查询由索引器选出并关注的键数（0：不用）"),
      row("c-index-heads", g, spec(integer<Q>(0, 1000000, SPEC(index_heads))), "0",
          "sparse attention: the indexer's heads", "稀疏注意力：索引器的头数"),
      row("c-index-head-dim", g, spec(integer<Q>(0, 1000000, SPEC(index_head_dim))), "0",
          "sparse attention: channels per indexer head", "稀疏注意力：索引器每头的通道数"),
      row("c-index-shared-layers", g, spec(integer<Q>(0, 1000000, SPEC(index_shared_layers))), "0",
          "sparse attention: blocks reusing an earlier block's selection (no indexer of their own)",
          "稀疏注意力：沿用前面某块选择结果的块数（自身没有索引器）"),
      row("c-attention-output-gate", g, spec(boolean<Q>(SPEC(attention_output_gate))), "0",
          "q_proj also yields a sigmoid gate on the attention output",
          "查询投影还输出一个作用于注意力输出的门控"),
      row("c-qk-norm", g,
          spec(indexed<Q>({"none", "rmsnorm", "l2", "rmsnorm-layer"}, SPEC(qk_norm))), "none",
          "a norm of queries and keys per head (or over all of a layer's heads at once)",
          "对查询与键做归一化，按头进行（或对一层的所有头一起）"),
      row("c-rope-scaling", g,
          spec(indexed<Q>({"none", "linear", "dynamic", "yarn", "llama3", "longrope"},
                          SPEC(rope_scaling))),
          "none", "rotary position scaling (config.json's rope_scaling)",
          "旋转位置编码的缩放（config.json 的 rope_scaling）"),
      row("c-rope-scaling-factor", g, spec(number<Q>(1, 1e6, SPEC(rope_scaling_factor))), "1",
          "rotary scaling factor", "旋转位置缩放倍数"),
      row("c-rope-original-max-positions", g,
          spec(integer<Q>(0, 10000000, SPEC(rope_original_max_positions))), "0",
          "the context before rotary scaling", "旋转缩放前的上下文长度"),
  };
}

// Linear-attention mixers (Qwen3-Next's gated delta rule, Nemotron-H's Mamba-2), single-purpose
// layer patterns and LatentMoE.
std::vector<QueryKey> custom_hybrid_rows() {
  const G g = G::custom_model;
  return {
      row("c-linear-key-heads", g, spec(integer<Q>(0, 1000000, SPEC(linear_key_heads))), "0",
          "linear attention: query/key heads", "线性注意力：查询/键头数"),
      row("c-linear-value-heads", g, spec(integer<Q>(0, 1000000, SPEC(linear_value_heads))), "0",
          "linear attention: value heads (0: off; on, all blocks but every n-th are linear)",
          "线性注意力：值头数（0：关闭；开启时除每 n 个块外都是线性注意力）"),
      row("c-linear-key-head-dim", g, spec(integer<Q>(0, 1000000, SPEC(linear_key_head_dim))), "0",
          "linear attention: channels per query/key head", "线性注意力：每个查询/键头的通道数"),
      row("c-linear-value-head-dim", g, spec(integer<Q>(0, 1000000, SPEC(linear_value_head_dim))),
          "0", "linear attention: channels per value head", "线性注意力：每个值头的通道数"),
      row("c-linear-conv-kernel", g, spec(integer<Q>(0, 64, SPEC(linear_conv_kernel))), "0",
          "linear attention: taps of the convolution over q, k and v",
          "线性注意力：作用于查询、键、值的卷积的抽头数"),
      row("c-linear-mixer", g, spec(indexed<Q>({"gated-delta", "mamba2"}, SPEC(linear_mixer))),
          "gated-delta",
          "linear attention: the gated delta rule (Qwen3-Next) or Mamba-2 (Nemotron-H)",
          "线性注意力：门控增量规则（Qwen3-Next）或 Mamba-2（Nemotron-H）"),
      row("c-linear-chunk", g, spec(integer<Q>(0, 1000000, SPEC(linear_chunk))), "0",
          "linear attention: tokens per chunk of the chunked scan (0: the mixer's default)",
          "线性注意力：分块扫描每块的 token 数（0：该混合器的默认值）"),
      row("c-linear-conv-bias", g, spec(boolean<Q>(SPEC(linear_conv_bias))), "0",
          "linear attention: the convolution has a bias", "线性注意力：卷积带偏置"),
      row("c-linear-state-fp32", g, spec(boolean<Q>(SPEC(linear_state_fp32))), "0",
          "linear attention: the recurrent state is cached in fp32",
          "线性注意力：循环状态以 fp32 缓存"),
      row("c-layer-pattern", g, spec(text<Q>(SPEC(layer_pattern))), "",
          "single-purpose layers, one character each: M mamba, * attention, - MLP, E MoE "
          "(Nemotron-H's hybrid_override_pattern; empty: attention and MLP in every block)",
          "单一用途的层，每层一个字符：M 为 Mamba，* 为注意力，- 为 MLP，E 为 MoE"
          "（Nemotron-H 的 hybrid_override_pattern；空：每个块都有注意力与 MLP）"),
      row("c-mlp-widths", g, integer_list(&TransformerSpec::mlp_widths, 10'000'000), "",
          "with a layer pattern: each MLP layer's width in order, where they differ (DeciLM's "
          "ffn_mult; empty: c-ffn each)",
          "有层模式时：按顺序给出每个 MLP 层的宽度（剪枝后各块不同；留空：都用 c-ffn）"),
      row("c-moe-latent", g, spec(integer<Q>(0, 1000000, SPEC(moe_latent))), "0",
          "LatentMoE: the width the routed experts run at (0: hidden)",
          "LatentMoE：路由专家运行的潜空间宽度（0：隐藏维度）"),
  };
}

std::vector<QueryKey> custom_cnn_rows() {
  const G g = G::custom_model;
  auto cnn = [](Value<Q> v) { return only_if<Q>(custom_cnn, std::move(v)); };
  Value<Q> builder = text<Q>(FIELD(custom.cnn_builder));
  builder.type = KeyType::choice;
  builder.choices = "resnet, vgg, mobilenet_v2, yolov5";
  builder.read = [](Q& q, const std::string& k, const std::string& s) -> std::optional<Error> {
    for (const char* b : {"resnet", "vgg", "mobilenet_v2", "yolov5"}) {
      if (s != b) continue;
      q.custom.cnn_builder = s;
      return std::nullopt;
    }
    return not_a(Msg::query_not_one_of, k, s, "resnet, vgg, mobilenet_v2, yolov5");
  };
  return {
      row("cnn", g, cnn(builder), "resnet", "the CNN family's builder", "CNN 家族的构建器"),
      row("cnn-depth", g, cnn(integer<Q>(1, 1000, FIELD(custom.cnn_depth))), "50",
          "layers (resnet, vgg)", "层数（resnet、vgg）"),
      row("cnn-classes", g, cnn(integer<Q>(1, 1000000, FIELD(custom.cnn_classes))), "1000",
          "output classes", "输出类别数"),
      row("cnn-width", g, cnn(number<Q>(0.05, 8, FIELD(custom.cnn_width))), "1",
          "width multiplier (mobilenet_v2, yolov5)", "宽度倍数（mobilenet_v2、yolov5）"),
      row("cnn-depth-multiple", g, cnn(number<Q>(0.05, 8, FIELD(custom.cnn_depth_multiple))), "1",
          "depth multiple (yolov5)", "深度倍数（yolov5）"),
  };
}

#undef SPEC

using R = ServeRequest;

std::optional<LengthDistribution> parse_lengths(const std::string& v) {
  if (v == "fixed") return LengthDistribution::fixed;
  if (v == "sharegpt") return LengthDistribution::sharegpt;
  return std::nullopt;
}
const char* lengths_name(LengthDistribution d) {
  return d == LengthDistribution::sharegpt ? "sharegpt" : "fixed";
}

Value<R> percentile() {
  Value<R> v = integer<R>(50, 99, FIELD(percentile));
  v.type = KeyType::choice;
  v.choices = "50, 90, 99";
  v.read = [](R& r, const std::string& k, const std::string& s) -> std::optional<Error> {
    if (s != "50" && s != "90" && s != "99")
      return not_a(Msg::query_not_one_of, k, s, "50, 90, 99");
    r.percentile = std::stoi(s);
    return std::nullopt;
  };
  return v;
}

Value<R> serve_model() {
  Value<R> v = text<R>(FIELD(model));
  v.read = [](R& r, const std::string& k, const std::string& s) -> std::optional<Error> {
    if (s.empty()) return make_error(Errc::invalid_argument, Msg::query_empty_model, {k});
    r.model = s;
    return std::nullopt;
  };
  return v;
}

std::vector<ServeKey> serve_load_rows() {
  const G g = G::serve;
  return {
      row("model", g, serve_model(), "", "a model of the zoo", "模型库中的模型"),
      row("rate", g, number<R>(1e-6, 1e7, FIELD(rate_per_s)), "",
          "the peak request rate, requests/s (required)", "峰值请求速率，请求/秒（必填）"),
      row("load-curve", g, text<R>(FIELD(load_curve)), "",
          "the day's load: flat, business-hours, diurnal, 24 rates R0,...,R23 or (CLI) a file",
          "一天的负载：flat、business-hours、diurnal、24 个速率 R0,...,R23 或（命令行）文件"),
      row("prompt-tokens", g, number<R>(1, 1e7, FIELD(prompt_tokens)), "1000", "tokens per prompt",
          "每个提示的 token 数"),
      row("output-tokens", g, number<R>(1, 1e7, FIELD(output_tokens)), "200", "tokens per answer",
          "每个回答的 token 数"),
      row("ttft-ms", g, number<R>(0, 1e7, FIELD(ttft_ms)), "",
          "time to first token target, ms (absent: none)", "首 token 时间目标，毫秒（缺省：无）"),
      row("tpot-ms", g, number<R>(0, 1e7, FIELD(tpot_ms)), "",
          "time per output token target, ms (absent: none)",
          "每个输出 token 时间目标，毫秒（缺省：无）"),
      row("percentile", g, percentile(), "90", "the percentile the targets hold at",
          "目标所针对的百分位"),
  };
}

// Serving features a user turns on: prefix caching and speculative decoding (the Method page,
// "Serving", says what each does to a step).
std::vector<ServeKey> serve_feature_rows() {
  const G g = G::serve;
  return {
      row("prefix-hit-rate", g, number<R>(0, 1, FIELD(prefix_hit_rate)), "0",
          "share of prompt tokens found in the prefix cache (0-1); they are not computed again",
          "在前缀缓存中命中的提示 token 占比（0-1）；命中部分不再计算"),
      row("spec-method", g,
          enumeration<R>(parse_spec_method, spec_method_name,
                         {SpecMethod::none, SpecMethod::draft, SpecMethod::eagle, SpecMethod::mtp},
                         FIELD(spec_method)),
          "none", "speculative decoding: a draft model, an EAGLE head or the model's MTP modules",
          "投机解码：草稿模型、EAGLE 头或模型自带的 MTP 模块"),
      row("spec-tokens", g, integer<R>(1, 16, FIELD(spec_tokens)), "",
          "draft tokens proposed per step (required with --spec-method)",
          "每步提出的草稿 token 数（使用 --spec-method 时必填）"),
      // The lower bound keeps 0 free to mean "not given" (required with a method).
      row("spec-acceptance", g, number<R>(0.001, 1, FIELD(spec_acceptance)), "",
          "measured per-token acceptance rate of the drafts, (0-1] (required with --spec-method)",
          "实测的草稿逐 token 接受率，(0-1]（使用 --spec-method 时必填）"),
      row("spec-draft-model", g, text<R>(FIELD(spec_draft_model)), "",
          "the draft model of the zoo (--spec-method draft)",
          "模型库中的草稿模型（--spec-method draft）"),
      row("disaggregate", g, flag<R>(FIELD(disaggregate)), "0",
          "also plan prefill and decode on separate pools of replicas, the prompt's KV cache sent "
          "between them (the best option's instance)",
          "另外规划预填充与解码分离部署：两个副本池，提示的 KV "
          "缓存在两者之间传输（用最佳选项的实例）"),
      row("prefill-tp", g, integer<R>(0, 64, FIELD(prefill_tp)), "auto: the best replica's tp",
          "--disaggregate: GPUs per prefill replica", "--disaggregate：每个预填充副本的 GPU 数"),
      row("decode-tp", g, integer<R>(0, 64, FIELD(decode_tp)), "auto: the best replica's tp",
          "--disaggregate: GPUs per decode replica", "--disaggregate：每个解码副本的 GPU 数"),
  };
}

std::vector<ServeKey> serve_fleet_rows() {
  const G g = G::serve;
  return {
      row("runtime", g,
          enumeration<R>(
              parse_runtime, runtime_name,
              {Runtime::vllm, Runtime::trtllm, Runtime::sglang, Runtime::hf, Runtime::llamacpp},
              FIELD(runtime)),
          "vllm", "the serving engine", "推理服务引擎"),
      row("weights", g,
          enumeration_or_auto<R>(
              parse_weight_format, weight_format_name,
              {WeightFormat::bf16, WeightFormat::fp16, WeightFormat::fp8, WeightFormat::int8,
               WeightFormat::int4, WeightFormat::int4_experts, WeightFormat::nvfp4,
               WeightFormat::mxfp4, WeightFormat::mxfp4_fp8, WeightFormat::nvfp4_fp8,
               WeightFormat::q4_0, WeightFormat::q8_0, WeightFormat::q4_k_m},
              FIELD(weights)),
          "auto: the checkpoint's (fp8 for DeepSeek-V3, mxfp4-fp8 for DeepSeek-V4, mxfp4 for "
          "gpt-oss, else bf16)",
          "weight format", "权重格式"),
      row("kv", g,
          enumeration<R>(parse_kv_format, kv_format_name,
                         {KvFormat::bf16, KvFormat::fp8, KvFormat::fp4}, FIELD(kv)),
          "bf16", "KV cache format", "KV 缓存格式"),
      row("tp", g, integer<R>(1, 64, FIELD(tp)), "auto: tries 1, 2, 4, 8",
          "GPUs per replica (tensor parallel)", "每个副本的 GPU 数（张量并行）"),
      row("pp", g, integer<R>(0, 64, FIELD(pp)),
          "auto: 1; without NVLink also 1 x 2, 4, 8 and 2 x 2, 2 x 4, 4 x 2; and a machine per "
          "stage "
          "over 2 and 4 networked machines",
          "pipeline stages per replica, each on --tp GPUs: a replica uses tp x pp GPUs",
          "每个副本的流水线级数，每级占 --tp 个 GPU：一个副本用 tp × pp 个 GPU"),
      row("ep", g, integer<R>(0, 64, FIELD(ep)), "1",
          "expert-parallel GPUs per replica, dividing --tp (MoE; 0: all of them)",
          "每个副本中专家并行的 GPU 数，须整除 --tp（MoE；0：全部）"),
      row("attention-dp", g, flag<R>(FIELD(attention_dp)), "0",
          "attention data parallel (MoE): each GPU runs attention whole for its own requests",
          "注意力数据并行（MoE）：每个 GPU 为自己的请求完整运行注意力"),
      row("lengths", g,
          enumeration<R>(parse_lengths, lengths_name,
                         {LengthDistribution::fixed, LengthDistribution::sharegpt}, FIELD(lengths)),
          "fixed",
          "prompt and answer lengths: fixed (--prompt-tokens, --output-tokens), or sharegpt: "
          "ShareGPT's own, as vLLM's benchmark samples it",
          "提示与回答长度：fixed（--prompt-tokens、--output-tokens），或 sharegpt：ShareGPT "
          "自身的长度，按 vLLM 基准的方式抽样"),
      row("requests", g, integer<R>(1, 20000, FIELD(requests)), "400",
          "simulated requests per rate", "每个速率模拟的请求数"),
      row("min-replicas", g, integer<R>(0, 10000, FIELD(min_replicas)), "1",
          "replicas kept at the quietest hour", "最空闲时段保留的副本数"),
      row("target-utilisation", g, number<R>(0.01, 1, FIELD(target_utilisation)), "0.8",
          "the share of a replica's capacity autoscaling aims at", "自动扩缩容瞄准的副本容量占比"),
      row("headroom", g, number<R>(0, 10, FIELD(headroom)), "0.2",
          "spare capacity of the fixed fleet over the peak", "固定规模集群高于峰值的余量"),
      row("start-s", g, number<R>(0, 86400, FIELD(start_s)), "0",
          "instance start to ready, seconds", "实例从启动到就绪的秒数"),
      row("load-gb-per-s", g, number<R>(0, 1e4, FIELD(load_gb_per_s)), "0",
          "model load bandwidth, GB/s (0: not counted)", "模型加载带宽，GB/秒（0：不计）"),
      row("top", g, integer<R>(1, 1000, FIELD(top)), "10", "options shown", "显示的选项数"),
      row("gpu", g, id_or_auto<R>(FIELD(gpu)), "auto", "only this GPU (auto: any)",
          "只考虑该 GPU（auto：任意）"),
      row("instance", g, id_or_auto<R>(FIELD(instance)), "auto",
          "only this instance type (auto: any)", "只考虑该实例类型（auto：任意）"),
      row("provider", g, text<R>(FIELD(provider)), "", "only this provider", "只考虑该云厂商"),
      row("region", g, text<R>(FIELD(region)), "", "only this region", "只考虑该区域"),
      row("currency", g, currency<R>(), "usd",
          "the currency the monthly bill and prices are shown in (CNY at pricing_rules.json's "
          "sourced rate)",
          "月度账单和价格所用的货币（人民币按 pricing_rules.json 中注明来源的汇率换算）"),
  };
}

template <class T>
const KeyRow<T>* find_in(const std::vector<KeyRow<T>>& rows, std::string_view name) {
  for (const auto& r : rows) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

}  // namespace

const std::vector<QueryKey>& query_key_rows() {
  static const std::vector<QueryKey> rows = [] {
    std::vector<QueryKey> all;
    for (auto group : {setup_rows(), kernel_rows(), recipe_rows(), fusion_rows(), parallel_rows(),
                       expert_and_adapter_rows(), hardware_and_run_rows(), pricing_rows(),
                       planner_rows(), custom_shape_rows(), custom_convention_rows(),
                       custom_layout_rows(), custom_moe_rows(), custom_attention_rows(),
                       custom_attention_variant_rows(), custom_hybrid_rows(), custom_cnn_rows()}) {
      all.insert(all.end(), group.begin(), group.end());
    }
    return all;
  }();
  return rows;
}

const std::vector<ServeKey>& serve_key_rows() {
  static const std::vector<ServeKey> rows = [] {
    std::vector<ServeKey> all = serve_load_rows();
    for (auto& r : serve_fleet_rows()) all.push_back(std::move(r));
    for (auto& r : serve_feature_rows()) all.push_back(std::move(r));
    return all;
  }();
  return rows;
}

const QueryKey* find_query_key(std::string_view name) {
  return find_in(query_key_rows(), name);
}

const ServeKey* find_serve_key(std::string_view name) {
  return find_in(serve_key_rows(), name);
}

const char* key_group_title(KeyGroup g) {
  switch (g) {
    case KeyGroup::setup:
      return "setup options";
    case KeyGroup::parallelism:
      return "parallelism and fine-tuning";
    case KeyGroup::custom_model:
      return "custom model (instead of --model)";
    case KeyGroup::hardware:
      return "hardware";
    case KeyGroup::run:
      return "run length";
    case KeyGroup::pricing:
      return "pricing";
    case KeyGroup::planner:
      return "planner (plan)";
    case KeyGroup::serve:
      return "serve options";
  }
  return "";
}

std::string key_usage(KeyType type, const char* name, const std::string& choices, bool is_switch) {
  std::string out = std::string("--") + name;
  if (is_switch) return out;
  switch (type) {
    case KeyType::integer:
      return out + " N";
    case KeyType::number:
      return out + " X";
    case KeyType::text:
      return out + " ID";
    case KeyType::boolean:
      return out + " 0|1";
    case KeyType::list:
      return out + " A,B,...";
    case KeyType::choice:
      break;
  }
  std::string bars;  // "a|b|c": the list, without a note in parentheses after it
  for (char c : choices.substr(0, choices.find(" ("))) {
    if (c == ' ' && !bars.empty() && bars.back() == '|') continue;
    bars += c == ',' ? '|' : c;
  }
  return out + " " + bars;
}

std::string exact_number(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.15g", x);
  if (std::strtod(b, nullptr) != x) std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

TransformerSpec editor_conventions(TransformerSpec t) {
  t.attn_out_bias = t.mlp_bias = t.qkv_bias;
  t.norm = t.gated_mlp ? NormKind::rmsnorm : NormKind::layernorm;
  t.norm_bias = !t.gated_mlp;
  t.activation = t.gated_mlp ? MlpActivation::silu : MlpActivation::gelu;
  t.positions = t.gated_mlp || t.max_positions == 0 ? PositionKind::rotary : PositionKind::learned;
  t.head = HeadKind::lm;
  return t;
}

std::optional<Error> check_schema_version(const std::string& value) {
  auto v = parse_int(value, "v");
  if (!v.ok()) return v.error();
  if (v.value() != kQuerySchemaVersion) {
    return about_key(make_error(Errc::unsupported_version, Msg::query_bad_version,
                                {value, std::to_string(kQuerySchemaVersion)}),
                     "v");
  }
  return std::nullopt;
}

Error unknown_key_error(const std::string& key) {
  Error e = make_error(Errc::invalid_argument, Msg::query_unknown_option, {key});
  e.key = key;
  return e;
}

}  // namespace gpuplan
