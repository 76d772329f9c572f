#pragma once
// Machine-readable results: the JSON the CLI prints with --json and the page mirrors into the
// DOM. Field names are stable; docs/cli.md documents each one.

#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/request.h"

namespace gpuplan {

// One estimate as a JSON object (pretty-printed when indent >= 0).
std::string estimate_to_json(const Model& model, const Request& request, const Estimate& e,
                             int indent = 2);

// The same estimate as aligned human-readable lines.
std::string estimate_to_text(const Model& model, const Estimate& e);

// "1.23 GB", "456 MB": decimal units for display.
std::string format_bytes(double bytes);
// "3.14e+23" style for FLOPs, with three significant digits.
std::string format_flops(double flops);

}  // namespace gpuplan
