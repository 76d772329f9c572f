// Family builders and the explicit node-list form of a model's "graph" (see graph_builders.h).
// Node names follow the reference implementation's module paths, so a node can be compared with
// the module that torchvision or ultralytics prints.

#include "workload/graph_builders.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace gpuplan {
namespace {

using nlohmann::json;

// Appends nodes to a graph; every method returns the new node's index.
class Net {
 public:
  explicit Net(int64_t in_channels) {
    graph.in_channels = in_channels;
    add(node("input", OpKind::input), {});
  }

  static GraphNode node(const std::string& name, OpKind op) {
    GraphNode n;
    n.name = name;
    n.op = op;
    return n;
  }
  int add(GraphNode n, std::vector<int> from) {
    n.inputs = std::move(from);
    graph.nodes.push_back(std::move(n));
    return static_cast<int>(graph.nodes.size()) - 1;
  }
  int conv(const std::string& name, int from, int64_t out, int64_t k, int64_t stride, int64_t pad,
           int64_t groups = 1, bool bias = false) {
    GraphNode n = node(name, OpKind::conv2d);
    n.out_channels = out;
    n.kernel_h = n.kernel_w = k;
    n.stride = stride;
    n.padding = pad;
    n.groups = groups;
    n.bias = bias;
    return add(n, {from});
  }
  int linear(const std::string& name, int from, int64_t out) {
    GraphNode n = node(name, OpKind::linear);
    n.out_channels = out;
    n.bias = true;
    return add(n, {from});
  }
  int act(const std::string& name, int from, OpKind op, bool inplace) {
    GraphNode n = node(name, op);
    n.inplace = inplace;
    return add(n, {from});
  }
  int pool(const std::string& name, int from, OpKind op, int64_t k, int64_t stride, int64_t pad) {
    GraphNode n = node(name, op);
    n.kernel_h = n.kernel_w = k;
    n.stride = stride;
    n.padding = pad;
    return add(n, {from});
  }
  int adaptive_avgpool(const std::string& name, int from, int64_t size) {
    GraphNode n = node(name, OpKind::adaptive_avgpool2d);
    n.out_h = n.out_w = size;
    return add(n, {from});
  }
  int dropout(const std::string& name, int from, double p) {
    GraphNode n = node(name, OpKind::dropout);
    n.p = p;
    return add(n, {from});
  }
  int op(const std::string& name, OpKind kind, std::vector<int> from) {
    return add(node(name, kind), std::move(from));
  }

  Graph graph;
};

// The stem and the first `layers` stages of torchvision's ResNet (v1.5: the stride sits on the
// 3x3 conv of a Bottleneck); `last_stride` is the first block's stride in the last stage built
// (2 in torchvision; SSD300 sets it to 1). Returns the last node; `channels` gets its width.
int resnet_trunk(Net& net, int64_t depth, int layers, int64_t last_stride, int64_t& channels) {
  const bool bottleneck = depth >= 50;
  const std::array<int, 4> blocks = depth == 18    ? std::array<int, 4>{2, 2, 2, 2}
                                    : depth == 101 ? std::array<int, 4>{3, 4, 23, 3}
                                    : depth == 152 ? std::array<int, 4>{3, 8, 36, 3}
                                                   : std::array<int, 4>{3, 4, 6, 3};  // 34, 50
  const int64_t expansion = bottleneck ? 4 : 1;
  int x = net.conv("conv1", 0, 64, 7, 2, 3);
  x = net.op("bn1", OpKind::batchnorm2d, {x});
  x = net.act("relu", x, OpKind::relu, true);
  x = net.pool("maxpool", x, OpKind::maxpool2d, 3, 2, 1);
  int64_t inplanes = 64;
  for (int layer = 0; layer < layers; ++layer) {
    const int64_t planes = int64_t{64} << layer;
    for (int b = 0; b < blocks[static_cast<size_t>(layer)]; ++b) {
      const std::string p = "layer" + std::to_string(layer + 1) + "." + std::to_string(b) + ".";
      const int64_t stride = b != 0 || layer == 0 ? 1 : layer == layers - 1 ? last_stride : 2;
      int y = 0;
      if (bottleneck) {
        y = net.conv(p + "conv1", x, planes, 1, 1, 0);
        y = net.op(p + "bn1", OpKind::batchnorm2d, {y});
        y = net.act(p + "relu1", y, OpKind::relu, true);
        y = net.conv(p + "conv2", y, planes, 3, stride, 1);
        y = net.op(p + "bn2", OpKind::batchnorm2d, {y});
        y = net.act(p + "relu2", y, OpKind::relu, true);
        y = net.conv(p + "conv3", y, planes * expansion, 1, 1, 0);
        y = net.op(p + "bn3", OpKind::batchnorm2d, {y});
      } else {
        y = net.conv(p + "conv1", x, planes, 3, stride, 1);
        y = net.op(p + "bn1", OpKind::batchnorm2d, {y});
        y = net.act(p + "relu1", y, OpKind::relu, true);
        y = net.conv(p + "conv2", y, planes, 3, 1, 1);
        y = net.op(p + "bn2", OpKind::batchnorm2d, {y});
      }
      int identity = x;
      if (stride != 1 || inplanes != planes * expansion) {
        identity = net.conv(p + "downsample.0", x, planes * expansion, 1, stride, 0);
        identity = net.op(p + "downsample.1", OpKind::batchnorm2d, {identity});
      }
      // torchvision writes `out += identity` in place; nothing is saved for an add either way.
      x = net.op(p + "add", OpKind::add, {y, identity});
      x = net.act(p + "relu", x, OpKind::relu, true);
      inplanes = planes * expansion;
    }
  }
  channels = inplanes;
  return x;
}

// torchvision/models/resnet.py.
Graph resnet(int64_t depth, int64_t num_classes) {
  Net net(3);
  int64_t channels = 0;
  int x = resnet_trunk(net, depth, 4, 2, channels);
  x = net.adaptive_avgpool("avgpool", x, 1);
  x = net.op("flatten", OpKind::flatten, {x});
  net.linear("fc", x, num_classes);
  return net.graph;
}

// NVIDIA DeepLearningExamples PyTorch/Detection/SSD/ssd/model.py (SSD300 v1.1): a ResNet trunk
// to conv4_x (layer3) with that stage's stride removed (38 x 38 at 300 px), five extra blocks
// (1x1 conv to 256/256/128/128/128, BN, ReLU, 3x3 conv to 512/512/256/256/256, BN, ReLU; stride 2
// with padding for the first three, no padding for the last two), and on each of the six feature
// maps a 3x3 localisation conv (4 numbers per default box) and a 3x3 class conv (num_classes per
// box), with biases; 4, 6, 6, 6, 4, 4 default boxes per cell (8732 at 300 px). The loss (box
// matching, hard-negative mining) is not part of the graph.
Graph ssd300(int64_t depth, int64_t num_classes) {
  Net net(3);
  int64_t channels = 0;
  int x = resnet_trunk(net, depth, 3, 1, channels);
  const bool wide = depth >= 50;
  const std::array<int64_t, 6> outs = {
      channels, 512, 512, 256, 256, wide || depth == 34 ? int64_t{256} : int64_t{128}};
  const std::array<int64_t, 5> mids = {256, 256, 128, 128, 128};
  const std::array<int64_t, 6> boxes = {4, 6, 6, 6, 4, 4};
  std::array<int, 6> feeds{};
  feeds[0] = x;
  for (size_t i = 0; i < mids.size(); ++i) {
    const std::string p = "additional_blocks." + std::to_string(i) + ".";
    const bool strided = i < 3;
    int y = net.conv(p + "0", feeds[i], mids[i], 1, 1, 0);
    y = net.op(p + "1", OpKind::batchnorm2d, {y});
    y = net.act(p + "2", y, OpKind::relu, true);
    y = net.conv(p + "3", y, outs[i + 1], 3, strided ? 2 : 1, strided ? 1 : 0);
    y = net.op(p + "4", OpKind::batchnorm2d, {y});
    feeds[i + 1] = net.act(p + "5", y, OpKind::relu, true);
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    net.conv("loc." + std::to_string(i), feeds[i], boxes[i] * 4, 3, 1, 1, 1, true);
    net.conv("conf." + std::to_string(i), feeds[i], boxes[i] * num_classes, 3, 1, 1, 1, true);
  }
  return net.graph;
}

// torchvision/models/vgg.py, configurations A, B, D, E (0 = max pool).
Graph vgg(int64_t depth, bool batch_norm, int64_t num_classes) {
  static const std::map<int64_t, std::vector<int64_t>> cfgs = {
      {11, {64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0}},
      {13, {64, 64, 0, 128, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0}},
      {16, {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0}},
      {19, {64,  64,  0,   128, 128, 0,   256, 256, 256, 256, 0,
            512, 512, 512, 512, 0,   512, 512, 512, 512, 0}},
  };
  Net net(3);
  int x = 0;
  int index = 0;  // position in torchvision's `features` Sequential
  auto name = [&] { return "features." + std::to_string(index++); };
  for (int64_t v : cfgs.at(depth)) {
    if (v == 0) {
      x = net.pool(name(), x, OpKind::maxpool2d, 2, 2, 0);
      continue;
    }
    x = net.conv(name(), x, v, 3, 1, 1, 1, true);
    if (batch_norm) x = net.op(name(), OpKind::batchnorm2d, {x});
    x = net.act(name(), x, OpKind::relu, true);
  }
  x = net.adaptive_avgpool("avgpool", x, 7);
  x = net.op("flatten", OpKind::flatten, {x});
  x = net.linear("classifier.0", x, 4096);
  x = net.act("classifier.1", x, OpKind::relu, true);
  x = net.dropout("classifier.2", x, 0.5);
  x = net.linear("classifier.3", x, 4096);
  x = net.act("classifier.4", x, OpKind::relu, true);
  x = net.dropout("classifier.5", x, 0.5);
  net.linear("classifier.6", x, num_classes);
  return net.graph;
}

// torchvision/models/_utils.py _make_divisible: round to a multiple of 8, never down by > 10%.
int64_t make_divisible_tv(double v, int64_t divisor = 8) {
  int64_t out = std::max(
      divisor, static_cast<int64_t>(v + static_cast<double>(divisor) / 2.0) / divisor * divisor);
  if (static_cast<double>(out) < 0.9 * v) out += divisor;
  return out;
}

// torchvision/models/mobilenetv2.py (Conv2dNormActivation = conv, BN, ReLU6(inplace=True)).
Graph mobilenet_v2(double width_mult, int64_t num_classes) {
  struct Stage {
    int64_t t, c, n, s;
  };
  static const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  Net net(3);
  auto cna = [&](const std::string& p, int from, int64_t out, int64_t k, int64_t stride,
                 int64_t groups) {
    int y = net.conv(p + ".0", from, out, k, stride, (k - 1) / 2, groups);
    y = net.op(p + ".1", OpKind::batchnorm2d, {y});
    return net.act(p + ".2", y, OpKind::relu6, true);
  };
  int64_t in_c = make_divisible_tv(32 * width_mult);
  const int64_t last_c = make_divisible_tv(1280 * std::max(1.0, width_mult));
  int x = cna("features.0", 0, in_c, 3, 2, 1);
  int index = 1;
  for (const Stage& st : stages) {
    const int64_t out_c = make_divisible_tv(static_cast<double>(st.c) * width_mult);
    for (int64_t i = 0; i < st.n; ++i) {
      const std::string block = "features." + std::to_string(index++);
      const std::string p = block + ".conv.";
      const int64_t stride = i == 0 ? st.s : 1;
      const int64_t hidden = in_c * st.t;  // int(round(inp * expand_ratio)) of integers
      int y = x;
      int part = 0;
      if (st.t != 1) y = cna(p + std::to_string(part++), y, hidden, 1, 1, 1);
      y = cna(p + std::to_string(part++), y, hidden, 3, stride, hidden);
      y = net.conv(p + std::to_string(part++), y, out_c, 1, 1, 0);
      y = net.op(p + std::to_string(part++), OpKind::batchnorm2d, {y});
      const bool residual = stride == 1 && in_c == out_c;
      x = residual ? net.op(block + ".add", OpKind::add, {x, y}) : y;
      in_c = out_c;
    }
  }
  x = cna("features." + std::to_string(index), x, last_c, 1, 1, 1);
  x = net.adaptive_avgpool("avgpool", x, 1);  // nn.functional.adaptive_avg_pool2d(x, (1, 1))
  x = net.op("flatten", OpKind::flatten, {x});
  x = net.dropout("classifier.0", x, 0.2);
  net.linear("classifier.1", x, num_classes);
  return net.graph;
}

// ultralytics/yolov5 v6.x: models/yolov5s.yaml (m, l, x differ only in the multiples), the
// modules of models/common.py (Conv, Bottleneck, C3, SPPF) and Detect in models/yolo.py.
class Yolov5 {
 public:
  Yolov5(double depth_multiple, double width_multiple)
      : depth_(depth_multiple), width_(width_multiple) {}

  // parse_model: channels scaled and rounded up to a multiple of 8; repeats scaled, with
  // Python's round() (halves to even, as nearbyint does by default).
  int64_t ch(int64_t c) const {
    return static_cast<int64_t>(std::ceil(static_cast<double>(c) * width_ / 8.0)) * 8;
  }
  int64_t reps(int64_t n) const {
    if (n <= 1) return n;
    return std::max<int64_t>(1,
                             static_cast<int64_t>(std::nearbyint(static_cast<double>(n) * depth_)));
  }
  // Conv: conv2d (no bias, padding k/2 unless given) + BatchNorm2d + SiLU.
  int conv(const std::string& p, int from, int64_t out, int64_t k, int64_t stride,
           int64_t pad = -1) {
    int y = net.conv(p + ".conv", from, out, k, stride, pad >= 0 ? pad : k / 2);
    y = net.op(p + ".bn", OpKind::batchnorm2d, {y});
    return net.act(p + ".act", y, OpKind::silu, false);
  }
  // C3: cv3(cat(m(cv1(x)), cv2(x))), m = n Bottlenecks of c_ = c2/2 channels.
  int c3(const std::string& p, int from, int64_t out, int64_t n, bool shortcut) {
    const int64_t hidden = out / 2;
    int y = conv(p + ".cv1", from, hidden, 1, 1);
    for (int64_t i = 0; i < n; ++i) {
      const std::string b = p + ".m." + std::to_string(i);
      int z = conv(b + ".cv1", y, hidden, 1, 1);
      z = conv(b + ".cv2", z, hidden, 3, 1);
      y = shortcut ? net.op(b + ".add", OpKind::add, {y, z}) : z;
    }
    const int side = conv(p + ".cv2", from, hidden, 1, 1);
    const int cat = net.op(p + ".cat", OpKind::concat, {y, side});
    return conv(p + ".cv3", cat, out, 1, 1);
  }
  // SPPF: three chained 5x5 max pools (stride 1), all four maps concatenated.
  int sppf(const std::string& p, int from, int64_t in_c, int64_t out) {
    const int x0 = conv(p + ".cv1", from, in_c / 2, 1, 1);
    const int y1 = net.pool(p + ".m.0", x0, OpKind::maxpool2d, 5, 1, 2);
    const int y2 = net.pool(p + ".m.1", y1, OpKind::maxpool2d, 5, 1, 2);
    const int y3 = net.pool(p + ".m.2", y2, OpKind::maxpool2d, 5, 1, 2);
    const int cat = net.op(p + ".cat", OpKind::concat, {x0, y1, y2, y3});
    return conv(p + ".cv2", cat, out, 1, 1);
  }
  int up(const std::string& p, int from) {
    GraphNode n = Net::node(p, OpKind::upsample);
    n.scale = 2;
    return net.add(n, {from});
  }
  static std::string m(int i) { return "model." + std::to_string(i); }

  Net net{3};

 private:
  double depth_, width_;
};

// Backbone, model.0-9 of yolov5s.yaml.
void yolov5_backbone(Yolov5& y, std::vector<int>& out) {
  auto m = Yolov5::m;
  out[0] = y.conv(m(0), 0, y.ch(64), 6, 2, 2);  // args [64, 6, 2, 2]: padding 2, not autopad's 3
  out[1] = y.conv(m(1), out[0], y.ch(128), 3, 2);
  out[2] = y.c3(m(2), out[1], y.ch(128), y.reps(3), true);
  out[3] = y.conv(m(3), out[2], y.ch(256), 3, 2);
  out[4] = y.c3(m(4), out[3], y.ch(256), y.reps(6), true);
  out[5] = y.conv(m(5), out[4], y.ch(512), 3, 2);
  out[6] = y.c3(m(6), out[5], y.ch(512), y.reps(9), true);
  out[7] = y.conv(m(7), out[6], y.ch(1024), 3, 2);
  out[8] = y.c3(m(8), out[7], y.ch(1024), y.reps(3), true);
  out[9] = y.sppf(m(9), out[8], y.ch(1024), y.ch(1024));
}

// PAN neck, model.10-23.
void yolov5_neck(Yolov5& y, std::vector<int>& out) {
  auto m = Yolov5::m;
  Net& net = y.net;
  out[10] = y.conv(m(10), out[9], y.ch(512), 1, 1);
  out[11] = y.up(m(11), out[10]);
  out[12] = net.op(m(12), OpKind::concat, {out[11], out[6]});
  out[13] = y.c3(m(13), out[12], y.ch(512), y.reps(3), false);
  out[14] = y.conv(m(14), out[13], y.ch(256), 1, 1);
  out[15] = y.up(m(15), out[14]);
  out[16] = net.op(m(16), OpKind::concat, {out[15], out[4]});
  out[17] = y.c3(m(17), out[16], y.ch(256), y.reps(3), false);  // P3/8
  out[18] = y.conv(m(18), out[17], y.ch(256), 3, 2);
  out[19] = net.op(m(19), OpKind::concat, {out[18], out[14]});
  out[20] = y.c3(m(20), out[19], y.ch(512), y.reps(3), false);  // P4/16
  out[21] = y.conv(m(21), out[20], y.ch(512), 3, 2);
  out[22] = net.op(m(22), OpKind::concat, {out[21], out[10]});
  out[23] = y.c3(m(23), out[22], y.ch(1024), y.reps(3), false);  // P5/32
}

Graph yolov5(double depth_multiple, double width_multiple, int64_t num_classes, int64_t anchors) {
  Yolov5 y(depth_multiple, width_multiple);
  std::vector<int> out(25);
  yolov5_backbone(y, out);
  yolov5_neck(y, out);
  // Detect: a 1x1 conv with bias per scale to anchors * (classes + box 4 + objectness 1).
  const int64_t per_scale = anchors * (num_classes + 5);
  for (int i = 0; i < 3; ++i) {
    y.net.conv(Yolov5::m(24) + ".m." + std::to_string(i), out[static_cast<size_t>(17 + 3 * i)],
               per_scale, 1, 1, 0, 1, true);
  }
  return y.net.graph;
}

// A JSON value for a message, cut short so that a wrong value cannot flood it.
std::string brief(const json& v) {
  std::string text = v.dump();
  if (text.size() > 60) {
    text.resize(57);
    text += "...";
  }
  return text;
}

// Reads one JSON object's fields, keeping the first error. Field paths are where + "." + key.
class Reader {
 public:
  Reader(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  // Fails on any key not in `allowed`.
  void allow(const std::vector<std::string_view>& allowed, const std::string& context = "") {
    for (auto it = obj_.begin(); it != obj_.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(it.key(), "unknown field" + context + " (known: " + list + ")");
    }
  }
  bool has(const char* key) const { return obj_.contains(key); }
  int64_t integer(const char* key, int64_t fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX})) {
      fail(key, "must be an integer, got " + brief(v));
      return fallback;
    }
    return v.get<int64_t>();
  }
  double number(const char* key, double fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_number()) {
      fail(key, "must be a number, got " + brief(v));
      return fallback;
    }
    return v.get<double>();
  }
  bool boolean(const char* key, bool fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_boolean()) {
      fail(key, "must be true or false, got " + brief(v));
      return fallback;
    }
    return v.get<bool>();
  }
  std::string string(const char* key, const std::string& fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_string()) {
      fail(key, "must be a string, got " + brief(v));
      return fallback;
    }
    return v.get<std::string>();
  }
  // An integer or an [h, w] pair (kernel, output_size).
  void pair(const char* key, int64_t* h, int64_t* w) {
    if (!has(key)) return;
    const json& v = obj_.at(key);
    if (v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer()) {
      *h = v[0].get<int64_t>();
      *w = v[1].get<int64_t>();
    } else if (v.is_number_integer()) {
      *h = *w = integer(key, 0);
    } else {
      fail(key, "must be an integer or an [h, w] pair, got " + brief(v));
    }
  }
  void require(const char* key) {
    if (!has(key)) fail(key, "required field is missing");
  }
  void fail(const std::string& key, const std::string& message) {
    if (!error) error = make_error(Errc::schema_error, where_ + "." + key + ": " + message);
  }

  std::optional<Error> error;

 private:
  const json& obj_;
  std::string where_;
};

struct OpSchema {
  const char* name;
  OpKind op;
  std::vector<std::string_view> fields;  // besides name, op, inputs
};

const std::vector<OpSchema>& op_schemas() {
  static const std::vector<OpSchema> table = {
      {"conv2d",
       OpKind::conv2d,
       {"out_channels", "kernel", "stride", "padding", "dilation", "groups", "bias"}},
      {"linear", OpKind::linear, {"out_features", "bias"}},
      {"batchnorm2d", OpKind::batchnorm2d, {"affine"}},
      {"layernorm", OpKind::layernorm, {"affine"}},
      {"relu", OpKind::relu, {"inplace"}},
      {"relu6", OpKind::relu6, {"inplace"}},
      {"silu", OpKind::silu, {"inplace"}},
      {"gelu", OpKind::gelu, {}},
      {"sigmoid", OpKind::sigmoid, {"inplace"}},
      {"hardswish", OpKind::hardswish, {"inplace"}},
      {"identity", OpKind::identity, {}},
      {"maxpool2d", OpKind::maxpool2d, {"kernel", "stride", "padding"}},
      {"avgpool2d", OpKind::avgpool2d, {"kernel", "stride", "padding"}},
      {"adaptive_avgpool2d", OpKind::adaptive_avgpool2d, {"output_size"}},
      {"add", OpKind::add, {}},
      {"mul", OpKind::mul, {}},
      {"concat", OpKind::concat, {}},
      {"upsample", OpKind::upsample, {"scale"}},
      {"flatten", OpKind::flatten, {}},
      {"dropout", OpKind::dropout, {"p"}},
  };
  return table;
}

Result<Graph> nodes_graph(const json& spec, const std::string& where) {
  Reader top(spec, where);
  top.allow({"builder", "in_channels", "nodes"});
  Net net(top.integer("in_channels", 3));
  if (top.error) return *top.error;
  if (!spec.contains("nodes") || !spec.at("nodes").is_array() || spec.at("nodes").empty()) {
    return make_error(Errc::schema_error,
                      where + ".nodes: required, a non-empty list of node objects");
  }
  std::map<std::string, int> index_of = {{"input", 0}};
  const json& list = spec.at("nodes");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + ".nodes[" + std::to_string(i) + "]";
    const json& item = list[i];
    if (!item.is_object())
      return make_error(Errc::schema_error, at + ": must be an object, got " + brief(item));
    Reader r(item, at);
    r.require("op");
    const std::string op_name = r.string("op", "");
    if (r.error) return *r.error;
    const auto& schemas = op_schemas();
    const auto schema = std::find_if(schemas.begin(), schemas.end(),
                                     [&](const OpSchema& s) { return op_name == s.name; });
    if (schema == schemas.end()) {
      std::string known;
      for (const OpSchema& s : schemas) known += (known.empty() ? "" : ", ") + std::string(s.name);
      return make_error(Errc::schema_error,
                        at + ".op: unknown op '" + op_name + "' (known: " + known + ")");
    }
    std::vector<std::string_view> allowed = {"name", "op", "inputs"};
    allowed.insert(allowed.end(), schema->fields.begin(), schema->fields.end());
    r.allow(allowed, " for op '" + op_name + "'");

    GraphNode n = Net::node(r.string("name", op_name + "_" + std::to_string(i + 1)), schema->op);
    if (index_of.count(n.name))
      r.fail("name", "'" + n.name + "' is already the name of an earlier node");
    std::vector<int> inputs;
    if (r.has("inputs")) {
      const json& names = item.at("inputs");
      if (!names.is_array() || names.empty())
        r.fail("inputs", "must be a non-empty list of node names");
      for (const json& name : names.is_array() ? names : json::array()) {
        const auto found =
            name.is_string() ? index_of.find(name.get<std::string>()) : index_of.end();
        if (found == index_of.end()) {
          r.fail("inputs", brief(name) + " is not the name of an earlier node");
        } else {
          inputs.push_back(found->second);
        }
      }
    } else {
      inputs.push_back(static_cast<int>(i));  // the previous node (the input for the first one)
    }
    n.out_channels = r.integer(schema->op == OpKind::linear ? "out_features" : "out_channels", 0);
    if (schema->op == OpKind::conv2d) r.require("out_channels");
    if (schema->op == OpKind::linear) r.require("out_features");
    if (schema->op == OpKind::conv2d || schema->op == OpKind::maxpool2d ||
        schema->op == OpKind::avgpool2d) {
      r.require("kernel");
    }
    r.pair("kernel", &n.kernel_h, &n.kernel_w);
    n.stride =
        r.integer("stride", schema->op == OpKind::conv2d ? 1 : std::max(n.kernel_h, n.kernel_w));
    n.padding = r.integer("padding", 0);
    n.dilation = r.integer("dilation", 1);
    n.groups = r.integer("groups", 1);
    n.bias = r.boolean("bias", true);
    n.affine = r.boolean("affine", true);
    n.inplace = r.boolean("inplace", false);
    if (schema->op == OpKind::adaptive_avgpool2d) r.require("output_size");
    r.pair("output_size", &n.out_h, &n.out_w);
    n.scale = r.integer("scale", 2);
    n.p = r.number("p", 0.5);
    if (r.error) return *r.error;
    index_of[n.name] = net.add(n, inputs);
  }
  return net.graph;
}

}  // namespace

Result<Graph> graph_from_json(const json& spec, const std::string& where) {
  if (!spec.is_object()) {
    return make_error(Errc::schema_error, where + ": must be an object, got " + brief(spec));
  }
  Reader r(spec, where);
  r.require("builder");
  const std::string builder = r.string("builder", "");
  if (r.error) return *r.error;
  if (builder == "nodes") return nodes_graph(spec, where);
  if (builder != "resnet" && builder != "ssd300" && builder != "vgg" && builder != "mobilenet_v2" &&
      builder != "yolov5") {
    return make_error(Errc::schema_error,
                      where + ".builder: unknown builder '" + builder +
                          "' (known: resnet, ssd300, vgg, mobilenet_v2, yolov5, nodes)");
  }

  if (builder == "resnet" || builder == "ssd300") r.allow({"builder", "depth", "num_classes"});
  if (builder == "vgg") r.allow({"builder", "depth", "batch_norm", "num_classes"});
  if (builder == "mobilenet_v2") r.allow({"builder", "width_mult", "num_classes"});
  if (builder == "yolov5") {
    r.allow({"builder", "depth_multiple", "width_multiple", "num_classes", "anchors_per_scale"});
    r.require("depth_multiple");
    r.require("width_multiple");
  }
  if (builder == "resnet" || builder == "ssd300" || builder == "vgg") r.require("depth");
  const int64_t depth = r.integer("depth", 0);
  const int64_t classes = r.integer("num_classes", builder == "yolov5"   ? 80
                                                   : builder == "ssd300" ? 81
                                                                         : 1000);
  const bool batch_norm = r.boolean("batch_norm", false);
  const double width_mult = r.number("width_mult", 1.0);
  const double gd = r.number("depth_multiple", 0);
  const double gw = r.number("width_multiple", 0);
  const int64_t anchors = r.integer("anchors_per_scale", 3);
  if (r.error) return *r.error;

  auto bad = [&](const char* key, const std::string& message) {
    return make_error(Errc::schema_error, where + "." + key + ": " + message);
  };
  // Bounds keep every channel count and product far from overflow.
  auto out_of = [](double v, double hi) { return !(v > 0.0 && v <= hi); };
  if (out_of(static_cast<double>(classes), 1 << 24)) {
    return bad("num_classes", "must be in 1..2^24, got " + std::to_string(classes));
  }
  if (builder == "resnet" || builder == "ssd300") {
    if (depth != 18 && depth != 34 && depth != 50 && depth != 101 && depth != 152) {
      return bad("depth",
                 "ResNet depth must be 18, 34, 50, 101 or 152, got " + std::to_string(depth));
    }
    return builder == "resnet" ? resnet(depth, classes) : ssd300(depth, classes);
  }
  if (builder == "vgg") {
    if (depth != 11 && depth != 13 && depth != 16 && depth != 19) {
      return bad("depth", "VGG depth must be 11, 13, 16 or 19, got " + std::to_string(depth));
    }
    return vgg(depth, batch_norm, classes);
  }
  if (builder == "mobilenet_v2") {
    if (out_of(width_mult, 10)) {
      return bad("width_mult", "must be in (0, 10], got " + brief(width_mult));
    }
    return mobilenet_v2(width_mult, classes);
  }
  // yolov5
  if (out_of(gd, 10)) return bad("depth_multiple", "must be in (0, 10], got " + brief(gd));
  if (out_of(gw, 10)) return bad("width_multiple", "must be in (0, 10], got " + brief(gw));
  if (out_of(static_cast<double>(anchors), 64)) {
    return bad("anchors_per_scale", "must be in 1..64, got " + std::to_string(anchors));
  }
  return yolov5(gd, gw, classes, anchors);
}

}  // namespace gpuplan
