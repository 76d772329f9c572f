// Shape inference and per-node costs of a layer graph (see gpuplan/graph.h).
//
// FLOPs follow torch.profiler's convention (torch/csrc/profiler/util.cpp, computeFlops): a
// multiply-add is 2 FLOPs, conv2d = 2*N*Hout*Wout*kh*kw*Cin*Cout/groups, addmm = 2*M*K*N; bias
// adds are not in those counts, so they go to forward_flops_other with the other elementwise work.
//
// Saved bytes follow what autograd keeps in training mode (tools/autograd/derivatives.yaml and
// the code generator's rules), counted once per storage, as torch.autograd.graph's
// saved_tensors_hooks would see them:
//   conv2d, linear (addmm mat1), avg pools   save their input;
//   batchnorm2d (training)                    its input plus save_mean/save_invstd per channel;
//   layernorm                                 its input plus mean/rstd per normalised position;
//   relu, sigmoid                             their result (threshold_backward(grad, result, 0));
//   relu6 (hardtanh), silu, gelu, hardswish   their input (e.g. hardtanh_backward(grad, self, ..));
//   max_pool2d_with_indices                   its input and int64 indices of the output's size;
//   mul                                       both operands;
//   add, cat, upsample_nearest2d, flatten     nothing (sizes only);
//   adaptive avg pool to 1x1                  nothing: ATen computes it as input.mean({-1,-2})
//                                             (ATen/native/AdaptiveAveragePooling.cpp), whose
//                                             backward needs sizes only;
//   dropout (p > 0)                           a mask (native_dropout's bool mask on CUDA).
// An in-place activation whose formula uses its result saves the storage it wrote over (relu_
// adds nothing when that storage is already saved). One whose formula uses its input cannot keep
// the input it overwrote, so the generated code saves `self.clone()`
// (torchgen/gen_variable_type.py, save_variables: original_self): ReLU6(inplace=True) costs as
// much as ReLU6() (pytorch/pytorch#95432).

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/graph.h"

namespace gpuplan {
namespace {

constexpr double kFp32Bytes = 4.0;
constexpr double kInt64Bytes = 8.0;
constexpr double kMaskBytes = 1.0;  // bool
// Counts above 2^53 are no longer exact in a double; nothing real comes near.
constexpr double kMaxCount = 9007199254740992.0;
// Bound on channels, kernels, strides, ...: keeps every int64 product below overflow.
constexpr int64_t kMaxField = int64_t{1} << 31;

// What an elementwise activation's backward formula reads.
enum class Reads { nothing, input, result };

Reads activation_reads(OpKind op) {
  switch (op) {
    case OpKind::relu:
    case OpKind::sigmoid:
      return Reads::result;
    case OpKind::relu6:
    case OpKind::silu:
    case OpKind::gelu:
    case OpKind::hardswish:
      return Reads::input;
    default:
      return Reads::nothing;
  }
}

bool is_activation(OpKind op) {
  return op == OpKind::relu || op == OpKind::relu6 || op == OpKind::silu || op == OpKind::gelu ||
         op == OpKind::sigmoid || op == OpKind::hardswish || op == OpKind::identity;
}

std::string shape_str(const TensorShape& s) {
  return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
}

// Output size of a sliding window along one axis; empty message when it fits.
std::string window_out(int64_t in, int64_t kernel, int64_t stride, int64_t padding,
                       int64_t dilation, int64_t* out) {
  const int64_t padded = in + 2 * padding;
  const int64_t span = dilation * (kernel - 1) + 1;
  if (span > padded) {
    return "kernel " + std::to_string(span) + " larger than padded input " +
           std::to_string(padded) + " (use a larger image or fewer downsampling layers)";
  }
  *out = (padded - span) / stride + 1;
  return "";
}

// The storages autograd keeps, each counted once at its largest use.
class SavedStorages {
 public:
  // Records that `bytes` of storage `id` are saved; returns the bytes this adds.
  double save(size_t id, double bytes) {
    if (id >= bytes_.size()) bytes_.resize(id + 1, 0.0);
    if (excluded_.size() > id && excluded_[id]) return 0.0;
    const double added = std::max(0.0, bytes - bytes_[id]);
    bytes_[id] = std::max(bytes_[id], bytes);
    return added;
  }
  void exclude(size_t id) {
    if (id >= excluded_.size()) excluded_.resize(id + 1, false);
    excluded_[id] = true;
  }

 private:
  std::vector<double> bytes_;
  std::vector<bool> excluded_;
};

// What one op's cost function reads (the node, its inputs) and fills (shape, parameters, FLOPs,
// what autograd saves).
struct OpContext {
  const GraphNode& n;
  const std::vector<int>& inputs;      // node indices, at least one
  const GraphCosts& costs;             // the earlier nodes' shapes
  const std::vector<size_t>& storage;  // storage id of each earlier node's output
  SavedStorages& saved;
  NodeCost& cost;             // FLOPs go here
  double& batch_stats_bytes;  // GraphCosts::saved_batch_stats_bytes
  TensorShape in;             // the first input's shape
  size_t in_storage;
  double in_elems;
  TensorShape out;  // starts as the input's shape
  double params = 0;
  int param_tensors = 0;       // weight and bias tensors of its module
  bool aliases_input = false;  // output shares the input's storage (views, in-place ops)
  double saved_elems = 0, saved_fixed = 0;

  void save_elems(size_t id, double elements) {
    saved_elems += saved.save(id, elements * kFp32Bytes) / kFp32Bytes;
  }
  const TensorShape& shape_of(int k) const { return costs.nodes[static_cast<size_t>(k)].out; }
};

// Each returns "" or what is wrong with the node (the caller names the node).
using OpCost = std::string (*)(OpContext&);

std::string conv2d_cost(OpContext& c) {
  const GraphNode& n = c.n;
  if (n.out_channels <= 0) return "out_channels must be positive";
  if (n.kernel_h <= 0 || n.kernel_w <= 0 || n.stride <= 0 || n.dilation <= 0 || n.groups <= 0 ||
      n.padding < 0) {
    return "kernel, stride, dilation and groups must be positive and padding >= 0";
  }
  if (c.in.c % n.groups != 0 || n.out_channels % n.groups != 0) {
    return "groups " + std::to_string(n.groups) + " must divide in_channels " +
           std::to_string(c.in.c) + " and out_channels " + std::to_string(n.out_channels);
  }
  std::string e = window_out(c.in.h, n.kernel_h, n.stride, n.padding, n.dilation, &c.out.h);
  if (e.empty()) e = window_out(c.in.w, n.kernel_w, n.stride, n.padding, n.dilation, &c.out.w);
  if (!e.empty()) return e;
  c.out.c = n.out_channels;
  const double macs_per_out = static_cast<double>(c.in.c / n.groups) *
                              static_cast<double>(n.kernel_h) * static_cast<double>(n.kernel_w);
  const double out_elems =
      static_cast<double>(c.out.c) * static_cast<double>(c.out.h) * static_cast<double>(c.out.w);
  c.params =
      static_cast<double>(c.out.c) * macs_per_out + (n.bias ? static_cast<double>(c.out.c) : 0);
  c.param_tensors = n.bias ? 2 : 1;
  c.cost.forward_flops_matmul = 2.0 * macs_per_out * out_elems;
  if (n.bias) c.cost.forward_flops_other = out_elems;
  c.save_elems(c.in_storage, c.in_elems);
  return "";
}

std::string linear_cost(OpContext& c) {
  const GraphNode& n = c.n;
  if (n.out_channels <= 0) return "out_features must be positive";
  if (c.in.h != 1 || c.in.w != 1)
    return "linear reads features, got a " + shape_str(c.in) + " map (add a flatten node)";
  c.out = TensorShape{n.out_channels, 1, 1};
  c.params = static_cast<double>(c.in.c) * static_cast<double>(c.out.c) +
             (n.bias ? static_cast<double>(c.out.c) : 0);
  c.param_tensors = n.bias ? 2 : 1;
  c.cost.forward_flops_matmul = 2.0 * static_cast<double>(c.in.c) * static_cast<double>(c.out.c);
  if (n.bias) c.cost.forward_flops_other = static_cast<double>(c.out.c);
  c.save_elems(c.in_storage, c.in_elems);
  return "";
}

std::string batchnorm2d_cost(OpContext& c) {
  if (c.n.affine) {
    c.params = 2.0 * static_cast<double>(c.in.c);
    c.param_tensors = 2;
  }
  // Normalise (subtract, scale) plus affine (scale, shift); the statistics' reductions add about
  // as much again but are memory-bound.
  c.cost.forward_flops_other = (c.n.affine ? 4.0 : 2.0) * c.in_elems;
  c.save_elems(c.in_storage, c.in_elems);
  c.batch_stats_bytes += 2.0 * static_cast<double>(c.in.c) * kFp32Bytes;
  return "";
}

std::string layernorm_cost(OpContext& c) {
  if (c.n.affine) {
    c.params = 2.0 * static_cast<double>(c.in.c);
    c.param_tensors = 2;
  }
  c.cost.forward_flops_other = (c.n.affine ? 4.0 : 2.0) * c.in_elems;
  c.save_elems(c.in_storage, c.in_elems);
  c.saved_elems += 2.0 * static_cast<double>(c.in.h * c.in.w);  // mean and rstd, fresh tensors
  return "";
}

std::string activation_cost(OpContext& c) {
  const OpKind op = c.n.op;
  c.cost.forward_flops_other = op == OpKind::identity ? 0.0 : c.in_elems;
  c.aliases_input = op == OpKind::identity || c.n.inplace;
  const Reads reads = activation_reads(op);
  if (reads == Reads::input && c.n.inplace) {
    c.saved_elems += c.in_elems;  // a clone of the input it overwrites
  } else if (reads == Reads::input) {
    c.save_elems(c.in_storage, c.in_elems);
  }
  // Reads::result is recorded once the output's storage is known (finish_node).
  return "";
}

std::string pool2d_cost(OpContext& c) {
  const GraphNode& n = c.n;
  if (n.kernel_h <= 0 || n.kernel_w <= 0 || n.stride <= 0 || n.padding < 0) {
    return "kernel and stride must be positive and padding >= 0";
  }
  if (2 * n.padding > std::min(n.kernel_h, n.kernel_w)) {
    return "padding " + std::to_string(n.padding) + " must be at most half the kernel";
  }
  std::string e = window_out(c.in.h, n.kernel_h, n.stride, n.padding, 1, &c.out.h);
  if (e.empty()) e = window_out(c.in.w, n.kernel_w, n.stride, n.padding, 1, &c.out.w);
  if (!e.empty()) return e;
  const double out_elems = static_cast<double>(c.out.c) * static_cast<double>(c.out.h * c.out.w);
  c.cost.forward_flops_other = out_elems * static_cast<double>(n.kernel_h * n.kernel_w);
  c.save_elems(c.in_storage, c.in_elems);
  if (n.op == OpKind::maxpool2d) c.saved_fixed += out_elems * kInt64Bytes;  // fresh indices
  return "";
}

std::string adaptive_avgpool2d_cost(OpContext& c) {
  if (c.n.out_h <= 0 || c.n.out_w <= 0) return "output size must be positive";
  c.out.h = c.n.out_h;
  c.out.w = c.n.out_w;
  c.cost.forward_flops_other = c.in_elems;
  if (c.out.h != 1 || c.out.w != 1) c.save_elems(c.in_storage, c.in_elems);
  return "";
}

// add, mul and concat: shapes must agree (mul may broadcast a per-channel gate).
std::string join_cost(OpContext& c) {
  const OpKind op = c.n.op;
  int64_t channels = 0;
  for (int k : c.inputs) {
    const TensorShape s = c.shape_of(k);
    channels += s.c;
    const bool same_hw = s.h == c.out.h && s.w == c.out.w;
    if (same_hw && (op == OpKind::concat || s.c == c.out.c)) continue;
    // mul broadcasts a per-channel gate (c x 1 x 1) over a map, as in squeeze-excitation.
    const bool gate = op == OpKind::mul && s.c == c.out.c &&
                      ((s.h == 1 && s.w == 1) || (c.out.h == 1 && c.out.w == 1));
    if (!gate) {
      return "input shapes differ (" + shape_str(c.in) + " vs " + shape_str(s) +
             "); they must match, so a strided network needs an image size divisible by its total "
             "stride";
    }
    if (c.out.h == 1 && c.out.w == 1) c.out = s;
  }
  if (op == OpKind::concat) c.out.c = channels;
  const double out_elems = static_cast<double>(c.out.elements());
  if (op == OpKind::add)
    c.cost.forward_flops_other = static_cast<double>(c.inputs.size() - 1) * out_elems;
  if (op == OpKind::mul) {
    c.cost.forward_flops_other = out_elems;
    for (int k : c.inputs) {
      c.save_elems(c.storage[static_cast<size_t>(k)],
                   static_cast<double>(c.shape_of(k).elements()));
    }
  }
  return "";
}

std::string upsample_cost(OpContext& c) {
  if (c.n.scale <= 0) return "scale must be positive";
  if (c.in_elems * static_cast<double>(c.n.scale * c.n.scale) > kMaxCount)
    return "output too large";
  c.out.h = c.in.h * c.n.scale;
  c.out.w = c.in.w * c.n.scale;
  return "";
}

std::string flatten_cost(OpContext& c) {
  c.out = TensorShape{c.in.elements(), 1, 1};
  c.aliases_input = true;
  return "";
}

std::string dropout_cost(OpContext& c) {
  if (!(c.n.p >= 0.0 && c.n.p < 1.0)) return "dropout p must be in [0, 1)";
  if (c.n.p > 0.0) {
    c.cost.forward_flops_other = c.in_elems;
    c.saved_fixed += c.in_elems * kMaskBytes;
  } else {
    c.aliases_input = true;  // at::dropout returns its input when p == 0
  }
  return "";
}

// One cost function per op (the input node is handled by analyze_graph itself).
OpCost op_cost(OpKind op) {
  static const std::pair<OpKind, OpCost> table[] = {
      {OpKind::conv2d, conv2d_cost},
      {OpKind::linear, linear_cost},
      {OpKind::batchnorm2d, batchnorm2d_cost},
      {OpKind::layernorm, layernorm_cost},
      {OpKind::relu, activation_cost},
      {OpKind::relu6, activation_cost},
      {OpKind::silu, activation_cost},
      {OpKind::gelu, activation_cost},
      {OpKind::sigmoid, activation_cost},
      {OpKind::hardswish, activation_cost},
      {OpKind::identity, activation_cost},
      {OpKind::maxpool2d, pool2d_cost},
      {OpKind::avgpool2d, pool2d_cost},
      {OpKind::adaptive_avgpool2d, adaptive_avgpool2d_cost},
      {OpKind::add, join_cost},
      {OpKind::mul, join_cost},
      {OpKind::concat, join_cost},
      {OpKind::upsample, upsample_cost},
      {OpKind::flatten, flatten_cost},
      {OpKind::dropout, dropout_cost},
  };
  for (const auto& [kind, fn] : table) {
    if (kind == op) return fn;
  }
  return nullptr;
}

std::optional<Error> check_image(const Graph& graph, int64_t height, int64_t width) {
  auto invalid = [](std::string message) {
    return make_error(Errc::invalid_argument, std::move(message));
  };
  if (height <= 0 || width <= 0) {
    return invalid("image size must be positive, got " + std::to_string(height) + "x" +
                   std::to_string(width));
  }
  if (graph.in_channels <= 0)
    return invalid("graph in_channels must be positive, got " + std::to_string(graph.in_channels));
  if (height > kMaxField || width > kMaxField || graph.in_channels > kMaxField ||
      static_cast<double>(graph.in_channels) * static_cast<double>(height) *
              static_cast<double>(width) >
          kMaxCount) {
    return invalid("image of " + std::to_string(graph.in_channels) + "x" + std::to_string(height) +
                   "x" + std::to_string(width) + " is too large");
  }
  if (graph.nodes.empty() || graph.nodes[0].op != OpKind::input)
    return invalid("graph must start with an input node");
  return std::nullopt;
}

// Size fields, input indices and arity of node i; "" when they are fine.
std::string check_node(const GraphNode& n, size_t i, const std::vector<int>& inputs) {
  if (n.op == OpKind::input) return "only the first node may be the input";
  for (int64_t v : {n.out_channels, n.kernel_h, n.kernel_w, n.stride, n.padding, n.dilation,
                    n.groups, n.out_h, n.out_w, n.scale}) {
    if (v > kMaxField) return "a size field is " + std::to_string(v) + ", above the limit of 2^31";
  }
  for (int k : inputs) {
    if (k < 0 || static_cast<size_t>(k) >= i)
      return "input index " + std::to_string(k) + " is not an earlier node";
  }
  const size_t arity = inputs.size();
  const bool multi = n.op == OpKind::add || n.op == OpKind::concat;
  if (n.op == OpKind::mul && arity != 2) return "mul takes exactly 2 inputs";
  if (n.op == OpKind::add && arity < 2) return "add takes at least 2 inputs";
  if (!multi && n.op != OpKind::mul && arity != 1) return "takes exactly 1 input";
  return "";
}

// Checks the node's output, gives it a storage, records a result its backward reads, and adds
// its costs to the totals.
std::string finish_node(OpContext& c, size_t i, std::vector<size_t>& storage, size_t& next_storage,
                        GraphCosts& costs) {
  const double out_elems =
      static_cast<double>(c.out.c) * static_cast<double>(c.out.h) * static_cast<double>(c.out.w);
  if (c.out.c <= 0 || out_elems > kMaxCount || c.params > kMaxCount) {
    return "output " + shape_str(c.out) + " or parameter count out of range";
  }
  storage[i] = c.aliases_input ? c.in_storage : next_storage++;
  if (is_activation(c.n.op) && activation_reads(c.n.op) == Reads::result)
    c.save_elems(storage[i], out_elems);
  NodeCost& cost = c.cost;
  cost.out = c.out;
  cost.params = static_cast<int64_t>(c.params);
  cost.saved_activation_bytes_fp32 = c.saved_elems * kFp32Bytes + c.saved_fixed;
  costs.params += cost.params;
  costs.param_tensors += c.param_tensors;
  costs.forward_flops_matmul += cost.forward_flops_matmul;
  costs.forward_flops_other += cost.forward_flops_other;
  costs.saved_activation_elements += c.saved_elems;
  costs.saved_fixed_bytes += c.saved_fixed;
  costs.largest_output_elements = std::max(costs.largest_output_elements, c.out.elements());
  return "";
}

}  // namespace

Result<GraphCosts> analyze_graph(const Graph& graph, int64_t height, int64_t width) {
  if (auto err = check_image(graph, height, width)) return *err;
  GraphCosts costs;
  costs.nodes.resize(graph.nodes.size());
  std::vector<size_t> storage(graph.nodes.size());  // storage id of each node's output
  size_t next_storage = 0;
  SavedStorages saved;
  costs.nodes[0].out = TensorShape{graph.in_channels, height, width};
  storage[0] = next_storage++;
  saved.exclude(storage[0]);  // the image is data the caller holds, not an activation
  costs.largest_output_elements = costs.nodes[0].out.elements();

  for (size_t i = 1; i < graph.nodes.size(); ++i) {
    const GraphNode& n = graph.nodes[i];
    auto fail = [&](const std::string& what) {
      return make_error(Errc::invalid_argument, "node '" + n.name + "': " + what);
    };
    std::vector<int> inputs = n.inputs;
    if (inputs.empty()) inputs.push_back(static_cast<int>(i) - 1);
    if (std::string e = check_node(n, i, inputs); !e.empty()) return fail(e);
    const OpCost cost_of = op_cost(n.op);
    if (!cost_of) return fail("unknown op");
    const auto first = static_cast<size_t>(inputs[0]);
    const TensorShape in = costs.nodes[first].out;
    OpContext c{n,
                inputs,
                costs,
                storage,
                saved,
                costs.nodes[i],
                costs.saved_batch_stats_bytes,
                in,
                storage[first],
                static_cast<double>(in.elements()),
                in};
    if (std::string e = cost_of(c); !e.empty()) return fail(e);
    if (std::string e = finish_node(c, i, storage, next_storage, costs); !e.empty()) return fail(e);
  }
  costs.saved_activation_bytes_fp32 =
      costs.saved_activation_elements * kFp32Bytes + costs.saved_fixed_bytes;
  return costs;
}

}  // namespace gpuplan
