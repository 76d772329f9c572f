// Layer graphs: builders, shapes, parameters, FLOPs and saved activations.
//
// Golden values for torchvision models come from tests/reference/torch_reference.json, written by
// tools/torch_reference.py with real PyTorch (params from model.parameters(), FLOPs from
// torch.profiler, saved bytes from torch.autograd.graph.saved_tensors_hooks; see its docstring).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuplan/graph.h"
#include "workload/graph_builders.h"

namespace gpuplan {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return json();
  return json::parse(in, nullptr, /*allow_exceptions=*/false);
}

// The measured numbers for one model, or nullptr (with a failure saying how to make them).
const json* reference(const std::string& model) {
  static const json ref = read_json(GPUPLAN_SOURCE_DIR "/tests/reference/torch_reference.json");
  if (!ref.is_object() || !ref.contains("models") || !ref["models"].contains(model)) {
    ADD_FAILURE() << "tests/reference/torch_reference.json has no entry for " << model
                  << " (run /usr/bin/python3 tools/torch_reference.py)";
    return nullptr;
  }
  return &ref["models"][model];
}

// The graph of data/models/<id>.json.
std::optional<Graph> model_graph(const std::string& id) {
  const std::string path = GPUPLAN_SOURCE_DIR "/data/models/" + id + ".json";
  const json file = read_json(path);
  if (!file.is_object() || !file.contains("graph")) {
    ADD_FAILURE() << path << " is missing or has no graph";
    return std::nullopt;
  }
  auto graph = graph_from_json(file["graph"], path + ": graph");
  if (!graph.ok()) {
    ADD_FAILURE() << graph.error().message;
    return std::nullopt;
  }
  return graph.value();
}

std::optional<GraphCosts> model_costs(const std::string& id, int64_t resolution) {
  const auto graph = model_graph(id);
  if (!graph) return std::nullopt;
  auto costs = analyze_graph(*graph, resolution, resolution);
  if (!costs.ok()) {
    ADD_FAILURE() << costs.error().message;
    return std::nullopt;
  }
  return costs.value();
}

Result<GraphCosts> analyze_json(const json& spec, int64_t height, int64_t width) {
  auto graph = graph_from_json(spec, "test: graph");
  if (!graph.ok()) return graph.error();
  return analyze_graph(graph.value(), height, width);
}
Result<GraphCosts> analyze_json(const char* text, int64_t height, int64_t width) {
  return analyze_json(json::parse(text), height, width);
}

// Costs of a spec that must analyse; an error fails the test and gives empty costs.
GraphCosts costs_of(const json& spec, int64_t height, int64_t width) {
  auto costs = analyze_json(spec, height, width);
  if (!costs.ok()) {
    ADD_FAILURE() << costs.error().message;
    return GraphCosts{};
  }
  return costs.value();
}

// --- torchvision models against real PyTorch (tools/torch_reference.py) ---------------------

void expect_params_equal(const std::string& id, const std::string& torch_name) {
  const json* ref = reference(torch_name);
  const auto costs = model_costs(id, 224);
  if (!ref || !costs) return;
  EXPECT_EQ(costs->params, ref->at("params").get<int64_t>()) << id;
}

TEST(Graph, Resnet18ParamsEqualTorchvision) {
  expect_params_equal("resnet18", "resnet18");
}
TEST(Graph, Resnet50ParamsEqualTorchvision) {
  expect_params_equal("resnet50", "resnet50");
}
TEST(Graph, Resnet101ParamsEqualTorchvision) {
  expect_params_equal("resnet101", "resnet101");
}
TEST(Graph, Vgg16ParamsEqualTorchvision) {
  expect_params_equal("vgg16", "vgg16");
}
TEST(Graph, MobilenetV2ParamsEqualTorchvision) {
  expect_params_equal("mobilenet-v2", "mobilenet_v2");
}

// torch.profiler counts 2 FLOPs per multiply-add for aten::conv2d and aten::addmm (224x224,
// batch 1); tolerance 1%.
void expect_matmul_flops_near_profiler(const std::string& id, const std::string& torch_name) {
  const json* ref = reference(torch_name);
  const auto costs = model_costs(id, 224);
  if (!ref || !costs) return;
  const double measured = ref->at("forward_flops_matmul_conv").get<double>();
  EXPECT_NEAR(costs->forward_flops_matmul, measured, 0.01 * measured) << id;
}

TEST(Graph, Resnet18MatmulFlopsWithinOnePercentOfProfiler) {
  expect_matmul_flops_near_profiler("resnet18", "resnet18");
}
TEST(Graph, Resnet50MatmulFlopsWithinOnePercentOfProfiler) {
  expect_matmul_flops_near_profiler("resnet50", "resnet50");
}
TEST(Graph, Resnet101MatmulFlopsWithinOnePercentOfProfiler) {
  expect_matmul_flops_near_profiler("resnet101", "resnet101");
}
TEST(Graph, Vgg16MatmulFlopsWithinOnePercentOfProfiler) {
  expect_matmul_flops_near_profiler("vgg16", "vgg16");
}
TEST(Graph, MobilenetV2MatmulFlopsWithinOnePercentOfProfiler) {
  expect_matmul_flops_near_profiler("mobilenet-v2", "mobilenet_v2");
}

// Saved bytes are per sample plus BatchNorm's per-step statistics; the reference measures one
// training forward at batch B with saved_tensors_hooks, excluding the input, parameters and
// buffers. Tolerance 5%.
TEST(Graph, Resnet50SavedActivationsMatchAutogradAtBatch1And8) {
  const json* ref = reference("resnet50");
  const auto costs = model_costs("resnet50", 224);
  if (!ref || !costs) return;
  for (int batch : {1, 8}) {
    const double measured =
        ref->at("saved_activation_bytes").at("batch" + std::to_string(batch)).get<double>();
    const double predicted =
        batch * costs->saved_activation_bytes_fp32 + costs->saved_batch_stats_bytes;
    EXPECT_NEAR(predicted, measured, 0.05 * measured) << "batch " << batch;
  }
}

// The same at batch 1 for every reference model. ResNets match to the byte (tolerance 0.01%, so
// dropping BatchNorm's 0.25% of statistics fails). VGG-16 and MobileNetV2 within 0.5%: the
// reference runs torch 1.13 on CPU, where dropout keeps a float32 mask (CUDA keeps a 1-byte bool,
// modelled here; VGG-16 -24 KiB) and mean() saves its input (MeanBackward1; 2.x saves only
// self.sym_numel(); MobileNetV2 -245 KiB, as no other op saves that ReLU6 output).
TEST(Graph, SavedActivationsOfTorchvisionModelsMatchAutogradAtBatch1) {
  struct Case {
    const char* id;
    const char* torch_name;
    double tolerance;
  };
  const Case cases[] = {{"resnet18", "resnet18", 1e-4},
                        {"resnet50", "resnet50", 1e-4},
                        {"resnet101", "resnet101", 1e-4},
                        {"vgg16", "vgg16", 0.005},
                        {"mobilenet-v2", "mobilenet_v2", 0.005}};
  for (const Case& c : cases) {
    const json* ref = reference(c.torch_name);
    const auto costs = model_costs(c.id, 224);
    if (!ref || !costs) continue;
    const double measured = ref->at("saved_activation_bytes").at("batch1").get<double>();
    const double predicted = costs->saved_activation_bytes_fp32 + costs->saved_batch_stats_bytes;
    EXPECT_NEAR(predicted, measured, c.tolerance * measured) << c.id;
  }
}

// --- YOLOv5 against the published table ----------------------------------------------------
// ultralytics/yolov5 README, v6.0 "Pretrained Checkpoints" table (640 px): params (M) s 7.2,
// m 21.2, l 46.5, x 86.7; FLOPs @640 (B) s 16.5, m 49.0, l 109.1, x 205.7. Both count the model
// after fuse() folds each BatchNorm into its conv (the BN's 2 parameters per channel become one
// bias per channel); FLOPs are thop MACs x 2 of that fused model (conv bias adds included).

struct YoloRow {
  const char* id;
  double params_m;
  double gflops;
};
constexpr YoloRow kYoloReadme[] = {{"yolov5s", 7.2, 16.5},
                                   {"yolov5m", 21.2, 49.0},
                                   {"yolov5l", 46.5, 109.1},
                                   {"yolov5x", 86.7, 205.7}};

TEST(Graph, Yolov5ParamsWithinOnePercentOfReadme) {
  for (const YoloRow& row : kYoloReadme) {
    const auto costs = model_costs(row.id, 640);
    if (!costs) continue;
    EXPECT_NEAR(static_cast<double>(costs->params), row.params_m * 1e6, 0.01 * row.params_m * 1e6)
        << row.id;
  }
}

TEST(Graph, Yolov5FusedParamsRoundToReadme) {
  for (const YoloRow& row : kYoloReadme) {
    const auto graph = model_graph(row.id);
    if (!graph) continue;
    const auto costs = analyze_graph(*graph, 640, 640);
    ASSERT_TRUE(costs.ok()) << costs.error().message;
    double fused = static_cast<double>(costs.value().params);
    for (size_t i = 0; i < graph->nodes.size(); ++i) {
      if (graph->nodes[i].op == OpKind::batchnorm2d)
        fused -= static_cast<double>(costs.value().nodes[i].out.c);
    }
    EXPECT_DOUBLE_EQ(std::round(fused / 1e5) / 10.0, row.params_m) << row.id;
  }
}

TEST(Graph, Yolov5MatmulFlopsWithinOnePercentOfReadme) {
  for (const YoloRow& row : kYoloReadme) {
    const auto costs = model_costs(row.id, 640);
    if (!costs) continue;
    EXPECT_NEAR(costs->forward_flops_matmul, row.gflops * 1e9, 0.01 * row.gflops * 1e9) << row.id;
  }
}

TEST(Graph, Yolov5sHasThreeDetectOutputsAtStrides8To32) {
  const auto graph = model_graph("yolov5s");
  if (!graph) return;
  const auto costs = analyze_graph(*graph, 640, 640);
  ASSERT_TRUE(costs.ok()) << costs.error().message;
  const size_t last = graph->nodes.size() - 1;
  const int64_t sides[] = {80, 40, 20};  // 640 / 8, / 16, / 32
  for (size_t k = 0; k < 3; ++k) {
    const GraphNode& node = graph->nodes[last - 2 + k];
    const TensorShape out = costs.value().nodes[last - 2 + k].out;
    EXPECT_EQ(node.name, "model.24.m." + std::to_string(k));
    EXPECT_EQ(out.c, 3 * (80 + 5));
    EXPECT_EQ(out.h, sides[k]);
    EXPECT_EQ(out.w, sides[k]);
  }
}

TEST(Graph, Ssd300HasTheSixFeatureMapsAnd8732DefaultBoxesOfThePaper) {
  // Liu et al. 2016 (SSD300: 8732 boxes); NVIDIA's ResNet-50 variant keeps 38x38 for conv4_x.
  const auto graph = model_graph("ssd300");
  if (!graph) return;
  const auto costs = analyze_graph(*graph, 300, 300);
  ASSERT_TRUE(costs.ok()) << costs.error().message;
  const int64_t sides[] = {38, 19, 10, 5, 3, 1};
  const int64_t boxes_per_cell[] = {4, 6, 6, 6, 4, 4};
  int64_t boxes = 0, head_params = 0;
  const int64_t in_channels[] = {1024, 512, 512, 256, 256, 256};
  for (size_t i = 0; i < graph->nodes.size(); ++i) {
    const std::string& name = graph->nodes[i].name;
    const TensorShape out = costs.value().nodes[i].out;
    for (int k = 0; k < 6; ++k) {
      if (name == "loc." + std::to_string(k)) {
        EXPECT_EQ(out.h, sides[k]) << name;
        EXPECT_EQ(out.c, boxes_per_cell[k] * 4) << name;
        boxes += out.h * out.w * boxes_per_cell[k];
      }
      if (name == "conf." + std::to_string(k)) {
        EXPECT_EQ(out.c, boxes_per_cell[k] * 81) << name;
      }
      if (name == "loc." + std::to_string(k) || name == "conf." + std::to_string(k)) {
        head_params += costs.value().nodes[i].params;
        EXPECT_EQ(costs.value().nodes[i].params, in_channels[k] * 9 * out.c + out.c) << name;
      }
    }
  }
  EXPECT_EQ(boxes, 8732);
  // ResNet-50 to layer3 (torchvision: 8,543,296 of its 25,557,032 parameters), the five extra
  // blocks (convs without bias, BN scale and shift) and the 12 heads.
  const int64_t extra = (1024 * 256 + 256 * 9 * 512 + 2 * (256 + 512)) +
                        (512 * 256 + 256 * 9 * 512 + 2 * (256 + 512)) +
                        (512 * 128 + 128 * 9 * 256 + 2 * (128 + 256)) +
                        2 * (256 * 128 + 128 * 9 * 256 + 2 * (128 + 256));
  EXPECT_EQ(costs.value().params, 8'543'296 + extra + head_params);
}

// --- hand-computed ------------------------------------------------------------------------

// 1x8x8 image -> conv 1->4 3x3 pad 1 (bias) -> relu -> maxpool 2 -> flatten -> linear 64->10.
//   shapes:  4x8x8 -> 4x8x8 -> 4x4x4 -> 64 -> 10
//   params:  conv 4*1*3*3 + 4 = 40; linear 64*10 + 10 = 650; total 690
//   matmul:  conv 2 * (1*3*3) * 4*8*8 = 4608; linear 2*64*10 = 1280; total 5888
//   other:   conv bias 256 + relu 256 + maxpool 64 outputs * 4 taps = 256 + linear bias 10 = 778
//   saved:   conv's input is the image (not counted); relu its output, 256 floats; maxpool the
//            same storage plus 64 int64 indices (512 B); linear the pooled map, 64 floats.
//            elements 320 -> 1280 B, fixed 512 B, total 1792 B.
constexpr const char* kTinyCnn = R"({"builder": "nodes", "in_channels": 1, "nodes": [
    {"name": "conv", "op": "conv2d", "out_channels": 4, "kernel": 3, "padding": 1},
    {"op": "relu"}, {"op": "maxpool2d", "kernel": 2}, {"op": "flatten"},
    {"name": "fc", "op": "linear", "out_features": 10}]})";

TEST(Graph, TinyCnnMatchesHandComputedCosts) {
  const auto costs = analyze_json(kTinyCnn, 8, 8);
  ASSERT_TRUE(costs.ok()) << costs.error().message;
  const GraphCosts& c = costs.value();
  EXPECT_EQ(c.params, 690);
  EXPECT_DOUBLE_EQ(c.forward_flops_matmul, 5888);
  EXPECT_DOUBLE_EQ(c.forward_flops_other, 778);
  EXPECT_DOUBLE_EQ(c.saved_activation_elements, 320);
  EXPECT_DOUBLE_EQ(c.saved_fixed_bytes, 512);
  EXPECT_DOUBLE_EQ(c.saved_activation_bytes_fp32, 1792);
  EXPECT_EQ(c.nodes[3].out.c, 4);  // "maxpool2d_3": auto-named, 1-based position
  EXPECT_EQ(c.nodes[3].out.h, 4);
  EXPECT_EQ(c.nodes.back().out.c, 10);
}

TEST(Graph, MnistExampleNetHasItsKnownParameterCount) {
  // pytorch/examples mnist/main.py: 320 + 18,496 + 1,179,776 + 1,290; fc1 reads 64x12x12 = 9216.
  const auto costs = model_costs("mnist-cnn", 28);
  if (!costs) return;
  EXPECT_EQ(costs->params, 1199882);
  EXPECT_EQ(costs->nodes[7].out.c, 9216);
}

TEST(Graph, CifarTutorialNetHasItsKnownParameterCount) {
  // PyTorch CIFAR-10 tutorial: 456 + 2,416 + 48,120 + 10,164 + 850; fc1 reads 16x5x5 = 400.
  const auto costs = model_costs("cifar10-cnn", 32);
  if (!costs) return;
  EXPECT_EQ(costs->params, 62006);
  EXPECT_EQ(costs->nodes[7].out.c, 400);
}

// conv -> bn -> activation -> conv on a 4x8x8 map (N = 256 elements per tensor): the BN saves
// the conv output (N), the second conv the activation's output (N). ReLU needs only its result,
// which the conv saves anyway: 2N, in place or not. ReLU6 needs its input, the BN output: 3N;
// in place it overwrites that input, so autograd keeps a clone (pytorch/pytorch#95432): 3N too.
TEST(Graph, InplaceRelu6SavesACloneWhileReluSavesOnlyItsResult) {
  auto saved = [](const char* act, bool inplace) {
    const json spec = {{"builder", "nodes"},
                       {"in_channels", 4},
                       {"nodes",
                        {{{"op", "conv2d"}, {"out_channels", 4}, {"kernel", 1}, {"bias", false}},
                         {{"op", "batchnorm2d"}},
                         {{"op", act}, {"inplace", inplace}},
                         {{"op", "conv2d"}, {"out_channels", 4}, {"kernel", 1}, {"bias", false}}}}};
    return costs_of(spec, 8, 8).saved_activation_elements;
  };
  EXPECT_DOUBLE_EQ(saved("relu", true), 2 * 256);
  EXPECT_DOUBLE_EQ(saved("relu", false), 2 * 256);
  EXPECT_DOUBLE_EQ(saved("relu6", true), 3 * 256);
  EXPECT_DOUBLE_EQ(saved("relu6", false), 3 * 256);
}

// 4x8x8 image -> batchnorm -> adaptive avg pool -> flatten -> linear. Pooling to 1x1 is
// input.mean({-1, -2}) in ATen, whose backward needs sizes only (torch 2.x): the linear's 4-float
// input is all that is saved (BN's input is the image). Pooling to 2x2 is _adaptive_avg_pool2d,
// which saves its input, the BN output (256 floats), and the linear saves 16.
TEST(Graph, AdaptiveAvgPoolTo1x1SavesNothingButLargerOutputsSaveTheirInput) {
  auto saved = [](int output_size) {
    const json spec = {{"builder", "nodes"},
                       {"in_channels", 4},
                       {"nodes",
                        {{{"op", "batchnorm2d"}},
                         {{"op", "adaptive_avgpool2d"}, {"output_size", output_size}},
                         {{"op", "flatten"}},
                         {{"op", "linear"}, {"out_features", 2}}}}};
    return costs_of(spec, 8, 8).saved_activation_elements;
  };
  EXPECT_DOUBLE_EQ(saved(1), 4);
  EXPECT_DOUBLE_EQ(saved(2), 256 + 16);
}

// 4x2x2 image -> flatten -> dropout -> linear (16 features). With p > 0 dropout keeps a 1-byte
// mask (CUDA's native_dropout) and the linear saves the dropped copy; with p = 0 at::dropout
// returns its input, so the linear saves the image itself, which is not counted.
TEST(Graph, DropoutKeepsAOneByteMaskAndIsAViewAtPZero) {
  auto costs = [](double p) {
    const json spec = {{"builder", "nodes"},
                       {"in_channels", 4},
                       {"nodes",
                        {{{"op", "flatten"}},
                         {{"op", "dropout"}, {"p", p}},
                         {{"op", "linear"}, {"out_features", 2}}}}};
    return costs_of(spec, 2, 2);
  };
  EXPECT_DOUBLE_EQ(costs(0.5).saved_fixed_bytes, 16);
  EXPECT_DOUBLE_EQ(costs(0.5).saved_activation_elements, 16);
  EXPECT_DOUBLE_EQ(costs(0.0).saved_activation_bytes_fp32, 0);
}

TEST(Graph, EveryGraphModelFileBuildsAtItsDefaultResolution) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GPUPLAN_SOURCE_DIR "/data/models")) {
    const json file = read_json(entry.path().string());
    if (!file.is_object() || file.value("kind", "") != "graph") continue;
    const auto graph = graph_from_json(file.at("graph"), entry.path().string() + ": graph");
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    const int64_t resolution = file.at("defaults").at("resolution").get<int64_t>();
    const auto costs = analyze_graph(graph.value(), resolution, resolution);
    EXPECT_TRUE(costs.ok()) << entry.path() << ": " << costs.error().message;
    ++checked;
  }
  EXPECT_GE(checked, 13);
}

// --- errors --------------------------------------------------------------------------------

TEST(Graph, KernelLargerThanItsInputIsAnErrorNamingTheNode) {
  const auto costs = analyze_json(R"({"builder": "nodes", "in_channels": 1, "nodes": [
      {"name": "conv1", "op": "conv2d", "out_channels": 8, "kernel": 5},
      {"name": "conv2", "op": "conv2d", "out_channels": 8, "kernel": 5}]})",
                                  8, 8);
  ASSERT_FALSE(costs.ok());
  EXPECT_EQ(costs.error().code, Errc::invalid_argument);
  EXPECT_NE(costs.error().message.find("node 'conv2': kernel 5 larger than padded input 4"),
            std::string::npos)
      << costs.error().message;
}

TEST(Graph, VggOnATooSmallImageNamesThePoolThatRunsOut) {
  const auto graph = model_graph("vgg16");
  if (!graph) return;
  const auto costs = analyze_graph(*graph, 16, 16);  // 16 -> 8 -> 4 -> 2 -> 1 -> fifth pool fails
  ASSERT_FALSE(costs.ok());
  EXPECT_NE(costs.error().message.find("node 'features.30': kernel 2 larger than padded input 1"),
            std::string::npos)
      << costs.error().message;
}

TEST(Graph, Yolov5OffTheStrideGridIsAnErrorAtTheFirstConcat) {
  const auto graph = model_graph("yolov5s");
  if (!graph) return;
  const auto costs = analyze_graph(*graph, 650, 650);  // P5 21x21 upsamples to 42, P4 is 41
  ASSERT_FALSE(costs.ok());
  EXPECT_NE(costs.error().message.find("node 'model.12': input shapes differ"), std::string::npos)
      << costs.error().message;
}

TEST(Graph, NonPositiveImageSizeIsRejected) {
  const auto graph = model_graph("resnet18");
  if (!graph) return;
  for (int64_t side : {0, -224}) {
    const auto costs = analyze_graph(*graph, side, 224);
    ASSERT_FALSE(costs.ok());
    EXPECT_EQ(costs.error().code, Errc::invalid_argument);
    EXPECT_NE(costs.error().message.find("image size must be positive"), std::string::npos);
  }
}

TEST(Graph, UnknownOpIsASchemaErrorNamingTheField) {
  const auto graph = graph_from_json(json::parse(R"({"builder": "nodes", "nodes": [
      {"op": "conv2d", "out_channels": 8, "kernel": 3}, {"op": "softmax"}]})"),
                                     "m.json: graph");
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error().code, Errc::schema_error);
  EXPECT_NE(graph.error().message.find("m.json: graph.nodes[1].op: unknown op 'softmax'"),
            std::string::npos)
      << graph.error().message;
}

TEST(Graph, InputNamingNoEarlierNodeIsASchemaError) {
  const auto graph = graph_from_json(json::parse(R"({"builder": "nodes", "nodes": [
      {"name": "conv1", "op": "conv2d", "out_channels": 8, "kernel": 3, "padding": 1},
      {"op": "relu"},
      {"name": "skip", "op": "add", "inputs": ["conv1", "relu9"]}]})"),
                                     "m.json: graph");
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error().code, Errc::schema_error);
  EXPECT_NE(graph.error().message.find(
                "graph.nodes[2].inputs: \"relu9\" is not the name of an earlier node"),
            std::string::npos)
      << graph.error().message;
}

TEST(Graph, NamedSkipConnectionAddsTwoEarlierNodes) {
  // relu_2 is the auto name of the second node; the add reads conv1 and relu_2 (8x8x8 each).
  const auto costs = analyze_json(R"({"builder": "nodes", "nodes": [
      {"name": "conv1", "op": "conv2d", "out_channels": 8, "kernel": 3, "padding": 1},
      {"op": "relu"},
      {"name": "skip", "op": "add", "inputs": ["conv1", "relu_2"]}]})",
                                  8, 8);
  ASSERT_TRUE(costs.ok()) << costs.error().message;
  EXPECT_EQ(costs.value().nodes.back().out.c, 8);
  EXPECT_DOUBLE_EQ(costs.value().nodes.back().forward_flops_other, 8 * 8 * 8);
}

TEST(Graph, FieldThatDoesNotApplyToTheOpIsASchemaError) {
  const auto graph = graph_from_json(json::parse(R"({"builder": "nodes", "nodes": [
      {"op": "relu", "kernel": 3}]})"),
                                     "m.json: graph");
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.error().message.find("graph.nodes[0].kernel: unknown field for op 'relu'"),
            std::string::npos)
      << graph.error().message;
}

TEST(Graph, UnsupportedResnetDepthAndUnknownFieldAreSchemaErrors) {
  const auto depth =
      graph_from_json(json::parse(R"({"builder": "resnet", "depth": 42})"), "r.json: graph");
  ASSERT_FALSE(depth.ok());
  EXPECT_EQ(depth.error().code, Errc::schema_error);
  EXPECT_NE(depth.error().message.find(
                "r.json: graph.depth: ResNet depth must be 18, 34, 50, 101 or 152, got 42"),
            std::string::npos)
      << depth.error().message;
  const auto field = graph_from_json(
      json::parse(R"({"builder": "resnet", "depth": 50, "width": 2})"), "r.json: graph");
  ASSERT_FALSE(field.ok());
  EXPECT_NE(field.error().message.find("r.json: graph.width: unknown field"), std::string::npos)
      << field.error().message;
}

}  // namespace
}  // namespace gpuplan
