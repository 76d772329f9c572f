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

}  // namespace

Result<GraphCosts> analyze_graph(const Graph& graph, int64_t height, int64_t width) {
  auto invalid = [](std::string message) {
    return make_error(Errc::invalid_argument, std::move(message));
  };
  if (height <= 0 || width <= 0) {
    return invalid("image size must be positive, got " + std::to_string(height) + "x" +
                   std::to_string(width));
  }
  if (graph.in_channels <= 0) {
    return invalid("graph in_channels must be positive, got " + std::to_string(graph.in_channels));
  }
  if (height > kMaxField || width > kMaxField || graph.in_channels > kMaxField ||
      static_cast<double>(graph.in_channels) * static_cast<double>(height) *
              static_cast<double>(width) >
          kMaxCount) {
    return invalid("image of " + std::to_string(graph.in_channels) + "x" + std::to_string(height) +
                   "x" + std::to_string(width) + " is too large");
  }
  if (graph.nodes.empty() || graph.nodes[0].op != OpKind::input) {
    return invalid("graph must start with an input node");
  }

  GraphCosts costs;
  costs.nodes.resize(graph.nodes.size());
  std::vector<size_t> storage(graph.nodes.size());  // storage id of each node's output
  size_t next_storage = 0;
  SavedStorages saved;

  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& n = graph.nodes[i];
    NodeCost& cost = costs.nodes[i];
    auto fail = [&](const std::string& what) { return invalid("node '" + n.name + "': " + what); };

    if (n.op == OpKind::input) {
      if (i != 0) return fail("only the first node may be the input");
      cost.out = TensorShape{graph.in_channels, height, width};
      storage[0] = next_storage++;
      saved.exclude(storage[0]);  // the image is data the caller holds, not an activation
      costs.largest_output_elements = cost.out.elements();
      continue;
    }

    for (int64_t v : {n.out_channels, n.kernel_h, n.kernel_w, n.stride, n.padding, n.dilation,
                      n.groups, n.out_h, n.out_w, n.scale}) {
      if (v > kMaxField)
        return fail("a size field is " + std::to_string(v) + ", above the limit of 2^31");
    }
    std::vector<int> in_idx = n.inputs;
    if (in_idx.empty()) in_idx.push_back(static_cast<int>(i) - 1);
    for (int k : in_idx) {
      if (k < 0 || static_cast<size_t>(k) >= i) {
        return fail("input index " + std::to_string(k) + " is not an earlier node");
      }
    }
    const size_t arity = in_idx.size();
    const bool multi = n.op == OpKind::add || n.op == OpKind::concat;
    if (n.op == OpKind::mul && arity != 2) return fail("mul takes exactly 2 inputs");
    if (n.op == OpKind::add && arity < 2) return fail("add takes at least 2 inputs");
    if (!multi && n.op != OpKind::mul && arity != 1) return fail("takes exactly 1 input");

    const TensorShape in = costs.nodes[static_cast<size_t>(in_idx[0])].out;
    const size_t in_storage = storage[static_cast<size_t>(in_idx[0])];
    const double in_elems = static_cast<double>(in.elements());
    TensorShape out = in;
    double params = 0;
    bool aliases_input = false;  // output shares the input's storage (views, in-place ops)
    double saved_elems = 0, saved_fixed = 0;
    auto save_elems = [&](size_t id, double elements) {
      saved_elems += saved.save(id, elements * kFp32Bytes) / kFp32Bytes;
    };

    switch (n.op) {
      case OpKind::input:
        break;
      case OpKind::conv2d: {
        if (n.out_channels <= 0) return fail("out_channels must be positive");
        if (n.kernel_h <= 0 || n.kernel_w <= 0 || n.stride <= 0 || n.dilation <= 0 ||
            n.groups <= 0 || n.padding < 0) {
          return fail("kernel, stride, dilation and groups must be positive and padding >= 0");
        }
        if (in.c % n.groups != 0 || n.out_channels % n.groups != 0) {
          return fail("groups " + std::to_string(n.groups) + " must divide in_channels " +
                      std::to_string(in.c) + " and out_channels " + std::to_string(n.out_channels));
        }
        std::string e = window_out(in.h, n.kernel_h, n.stride, n.padding, n.dilation, &out.h);
        if (e.empty()) e = window_out(in.w, n.kernel_w, n.stride, n.padding, n.dilation, &out.w);
        if (!e.empty()) return fail(e);
        out.c = n.out_channels;
        const double macs_per_out = static_cast<double>(in.c / n.groups) *
                                    static_cast<double>(n.kernel_h) *
                                    static_cast<double>(n.kernel_w);
        const double out_elems =
            static_cast<double>(out.c) * static_cast<double>(out.h) * static_cast<double>(out.w);
        params =
            static_cast<double>(out.c) * macs_per_out + (n.bias ? static_cast<double>(out.c) : 0);
        cost.forward_flops_matmul = 2.0 * macs_per_out * out_elems;
        if (n.bias) cost.forward_flops_other = out_elems;
        save_elems(in_storage, in_elems);
        break;
      }
      case OpKind::linear: {
        if (n.out_channels <= 0) return fail("out_features must be positive");
        if (in.h != 1 || in.w != 1) {
          return fail("linear reads features, got a " + shape_str(in) +
                      " map (add a flatten node)");
        }
        out = TensorShape{n.out_channels, 1, 1};
        params = static_cast<double>(in.c) * static_cast<double>(out.c) +
                 (n.bias ? static_cast<double>(out.c) : 0);
        cost.forward_flops_matmul = 2.0 * static_cast<double>(in.c) * static_cast<double>(out.c);
        if (n.bias) cost.forward_flops_other = static_cast<double>(out.c);
        save_elems(in_storage, in_elems);
        break;
      }
      case OpKind::batchnorm2d:
        if (n.affine) params = 2.0 * static_cast<double>(in.c);
        // Normalise (subtract, scale) plus affine (scale, shift); the statistics' reductions add
        // about as much again but are memory-bound.
        cost.forward_flops_other = (n.affine ? 4.0 : 2.0) * in_elems;
        save_elems(in_storage, in_elems);
        costs.saved_batch_stats_bytes += 2.0 * static_cast<double>(in.c) * kFp32Bytes;
        break;
      case OpKind::layernorm:
        if (n.affine) params = 2.0 * static_cast<double>(in.c);
        cost.forward_flops_other = (n.affine ? 4.0 : 2.0) * in_elems;
        save_elems(in_storage, in_elems);
        saved_elems += 2.0 * static_cast<double>(in.h * in.w);  // mean and rstd, fresh tensors
        break;
      case OpKind::relu:
      case OpKind::relu6:
      case OpKind::silu:
      case OpKind::gelu:
      case OpKind::sigmoid:
      case OpKind::hardswish:
      case OpKind::identity: {
        cost.forward_flops_other = n.op == OpKind::identity ? 0.0 : in_elems;
        aliases_input = n.op == OpKind::identity || n.inplace;
        const Reads reads = activation_reads(n.op);
        if (reads == Reads::input && n.inplace) {
          saved_elems += in_elems;  // a clone of the input it overwrites
        } else if (reads == Reads::input) {
          save_elems(in_storage, in_elems);
        }
        // Reads::result is recorded below, once the output's storage is known.
        break;
      }
      case OpKind::maxpool2d:
      case OpKind::avgpool2d: {
        if (n.kernel_h <= 0 || n.kernel_w <= 0 || n.stride <= 0 || n.padding < 0) {
          return fail("kernel and stride must be positive and padding >= 0");
        }
        if (2 * n.padding > std::min(n.kernel_h, n.kernel_w)) {
          return fail("padding " + std::to_string(n.padding) + " must be at most half the kernel");
        }
        std::string e = window_out(in.h, n.kernel_h, n.stride, n.padding, 1, &out.h);
        if (e.empty()) e = window_out(in.w, n.kernel_w, n.stride, n.padding, 1, &out.w);
        if (!e.empty()) return fail(e);
        const double out_elems = static_cast<double>(out.c) * static_cast<double>(out.h * out.w);
        cost.forward_flops_other = out_elems * static_cast<double>(n.kernel_h * n.kernel_w);
        save_elems(in_storage, in_elems);
        if (n.op == OpKind::maxpool2d) saved_fixed += out_elems * kInt64Bytes;  // fresh indices
        break;
      }
      case OpKind::adaptive_avgpool2d:
        if (n.out_h <= 0 || n.out_w <= 0) return fail("output size must be positive");
        out.h = n.out_h;
        out.w = n.out_w;
        cost.forward_flops_other = in_elems;
        if (out.h != 1 || out.w != 1) save_elems(in_storage, in_elems);
        break;
      case OpKind::add:
      case OpKind::mul:
      case OpKind::concat: {
        int64_t channels = 0;
        for (int k : in_idx) {
          const TensorShape s = costs.nodes[static_cast<size_t>(k)].out;
          channels += s.c;
          const bool same_hw = s.h == out.h && s.w == out.w;
          if (same_hw && (n.op == OpKind::concat || s.c == out.c)) continue;
          // mul broadcasts a per-channel gate (c x 1 x 1) over a map, as in squeeze-excitation.
          const bool gate = n.op == OpKind::mul && s.c == out.c &&
                            ((s.h == 1 && s.w == 1) || (out.h == 1 && out.w == 1));
          if (!gate) {
            return fail("input shapes differ (" + shape_str(in) + " vs " + shape_str(s) +
                        "); they must match, so a strided network needs an image size divisible "
                        "by its total stride");
          }
          if (out.h == 1 && out.w == 1) out = s;
        }
        if (n.op == OpKind::concat) out.c = channels;
        const double out_elems = static_cast<double>(out.elements());
        if (n.op == OpKind::add)
          cost.forward_flops_other = static_cast<double>(arity - 1) * out_elems;
        if (n.op == OpKind::mul) {
          cost.forward_flops_other = out_elems;
          for (int k : in_idx) {
            save_elems(storage[static_cast<size_t>(k)],
                       static_cast<double>(costs.nodes[static_cast<size_t>(k)].out.elements()));
          }
        }
        break;
      }
      case OpKind::upsample:
        if (n.scale <= 0) return fail("scale must be positive");
        if (in_elems * static_cast<double>(n.scale * n.scale) > kMaxCount)
          return fail("output too large");
        out.h = in.h * n.scale;
        out.w = in.w * n.scale;
        break;
      case OpKind::flatten:
        out = TensorShape{in.elements(), 1, 1};
        aliases_input = true;
        break;
      case OpKind::dropout:
        if (!(n.p >= 0.0 && n.p < 1.0)) return fail("dropout p must be in [0, 1)");
        if (n.p > 0.0) {
          cost.forward_flops_other = in_elems;
          saved_fixed += in_elems * kMaskBytes;
        } else {
          aliases_input = true;  // at::dropout returns its input when p == 0
        }
        break;
    }

    const double out_elems =
        static_cast<double>(out.c) * static_cast<double>(out.h) * static_cast<double>(out.w);
    if (out.c <= 0 || out_elems > kMaxCount || params > kMaxCount) {
      return fail("output " + shape_str(out) + " or parameter count out of range");
    }
    storage[i] = aliases_input ? in_storage : next_storage++;
    if (is_activation(n.op) && activation_reads(n.op) == Reads::result)
      save_elems(storage[i], out_elems);

    cost.out = out;
    cost.params = static_cast<int64_t>(params);
    cost.saved_activation_bytes_fp32 = saved_elems * kFp32Bytes + saved_fixed;
    costs.params += cost.params;
    costs.forward_flops_matmul += cost.forward_flops_matmul;
    costs.forward_flops_other += cost.forward_flops_other;
    costs.saved_activation_elements += saved_elems;
    costs.saved_fixed_bytes += saved_fixed;
    costs.largest_output_elements = std::max(costs.largest_output_elements, out.elements());
  }
  costs.saved_activation_bytes_fp32 =
      costs.saved_activation_elements * kFp32Bytes + costs.saved_fixed_bytes;
  return costs;
}

}  // namespace gpuplan
