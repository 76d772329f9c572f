#pragma once
// Layer graphs for convolutional and other non-transformer models.
//
// A model is a list of nodes in topological order; each node names the earlier nodes it reads.
// Parameters, forward FLOPs and the activations kept for backward are computed node by node from
// the shapes that flow through the graph, never typed in. Builders expand a family description
// (ResNet depth, YOLOv5 width/depth multiples, ...) into such a graph; a custom model can list
// its nodes directly. The JSON forms are documented in data/schema/model.schema.json.

#include <cstdint>
#include <string>
#include <vector>

#include "gpuplan/result.h"

namespace gpuplan {

// What a node computes. Shapes are per sample: channels x height x width.
enum class OpKind {
  input,        // the image: in_channels x resolution x resolution
  conv2d,       // out_channels, kernel, stride, padding, dilation, groups, bias
  linear,       // out_features (reads a flattened or 1x1 input), bias
  batchnorm2d,  // affine, running stats are buffers (not parameters)
  layernorm,    // over channels
  relu,
  relu6,
  silu,
  gelu,
  sigmoid,
  hardswish,
  identity,            // elementwise activations
  maxpool2d,           // kernel, stride, padding (saves input and int64 indices for backward)
  avgpool2d,           // kernel, stride, padding
  adaptive_avgpool2d,  // output size out_h x out_w
  add,                 // residual add of two or more same-shaped inputs
  mul,                 // elementwise product of two inputs (e.g. squeeze-excitation)
  concat,              // along channels
  upsample,            // nearest, integer scale factor
  flatten,             // c*h*w -> features
  dropout,             // probability p; saves a mask in training when p > 0
};

// One node of the graph. Fields that do not apply to an op are ignored.
struct GraphNode {
  std::string name;  // e.g. "layer1.0.conv1"; unique within the graph
  OpKind op = OpKind::identity;
  std::vector<int> inputs;   // indices of earlier nodes; empty means the previous node
  int64_t out_channels = 0;  // conv2d; linear (out_features)
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride = 1, padding = 0, dilation = 1, groups = 1;
  bool bias = false;             // conv2d, linear
  bool affine = true;            // batchnorm2d, layernorm
  bool inplace = false;          // activations: writes over its input (PyTorch inplace=True)
  int64_t out_h = 1, out_w = 1;  // adaptive_avgpool2d
  int64_t scale = 2;             // upsample
  double p = 0.0;                // dropout probability
};

// A whole layer graph: nodes in topological order, node 0 is the input.
struct Graph {
  int64_t in_channels = 3;
  std::vector<GraphNode> nodes;
};

// Shape of one sample's tensor at a node's output.
struct TensorShape {
  int64_t c = 0, h = 1, w = 1;
  int64_t elements() const { return c * h * w; }
};

// Cost of one node for one sample at a given resolution.
struct NodeCost {
  TensorShape out;
  int64_t params = 0;
  double forward_flops_matmul = 0;  // conv2d/linear: 2 FLOPs per multiply-add
  double forward_flops_other = 0;   // norms, activations, pooling, adds (1 FLOP per element op)
  double saved_activation_bytes_fp32 = 0;  // bytes this node adds to what autograd keeps (fp32)
};

// Totals and per-node costs of one forward pass of one sample.
struct GraphCosts {
  int64_t params = 0;
  int64_t param_tensors = 0;  // weight and bias tensors (model.parameters())
  double forward_flops_matmul = 0;
  double forward_flops_other = 0;
  // Bytes of distinct tensors kept for backward in training mode at fp32, per sample
  // (parameters, buffers and the input image excluded; int64 max-pool indices counted at 8
  // bytes): 4 * saved_activation_elements + saved_fixed_bytes.
  double saved_activation_bytes_fp32 = 0;
  // Elements of saved tensors that take the activation dtype (excludes indices and masks).
  double saved_activation_elements = 0;
  double saved_fixed_bytes = 0;  // indices (int64) and dropout masks (bool), dtype independent
  // Per step, not per sample: BatchNorm's save_mean and save_invstd (2 fp32 per channel).
  double saved_batch_stats_bytes = 0;
  int64_t largest_output_elements = 0;  // biggest single activation, for workspace estimates
  std::vector<NodeCost> nodes;          // parallel to Graph::nodes
};

// Computes shapes and costs for one sample of height x width pixels.
// Errors name the node and the problem (e.g. a kernel larger than its padded input).
Result<GraphCosts> analyze_graph(const Graph& graph, int64_t height, int64_t width);

}  // namespace gpuplan
