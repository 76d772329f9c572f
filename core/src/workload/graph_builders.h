#pragma once
// Layer graphs from a model file's "graph" object.
//
// Either a family builder expanded here, exactly as the reference implementation lays it out:
//   {"builder": "resnet", "depth": 18|34|50|101|152, "num_classes": 1000}     torchvision
//   {"builder": "ssd300", "depth": 50, "num_classes": 81}     NVIDIA DeepLearningExamples SSD300
//   v1.1
//   {"builder": "vgg", "depth": 11|13|16|19, "batch_norm": false, "num_classes": 1000}  torchvision
//   {"builder": "mobilenet_v2", "width_mult": 1.0, "num_classes": 1000}        torchvision
//   {"builder": "yolov5", "depth_multiple": 0.33, "width_multiple": 0.50, "num_classes": 80,
//    "anchors_per_scale": 3}                                                    ultralytics v6.x
// or an explicit node list for a custom model:
//   {"builder": "nodes", "in_channels": 1, "nodes": [{"name": "conv1", "op": "conv2d",
//    "out_channels": 32, "kernel": 3}, {"op": "relu"}, ...]}
// In a node list "inputs" names earlier nodes ("input" is the image); without it a node reads the
// one before. A node without a name is called "<op>_<n>", n its 1-based position in the list.
// Unset fields take PyTorch's defaults (conv2d/linear bias true, pool stride = kernel, dropout
// p 0.5); upsample's scale defaults to 2.

#include <string>

#include <nlohmann/json.hpp>

#include "gpuplan/graph.h"
#include "gpuplan/result.h"

namespace gpuplan {

// Builds the graph a "graph" object describes. `where` prefixes every message, e.g.
// "data/models/resnet50.json: graph"; unknown fields and ops are schema errors naming the field.
Result<Graph> graph_from_json(const nlohmann::json& spec, const std::string& where);

}  // namespace gpuplan
