#pragma once
// Numbers as people type them into a field or a flag: "50M", "2e9", "1.5k", "2,000,000", "2亿".
// One reader for the page's number fields and, when it wants, the CLI.

#include <string_view>

#include "gpuplan/result.h"

namespace gpuplan {

// Reads a non-negative or negative decimal number with optional exponent ("2e9"), thousands
// separators in groups of three ("2,000,000"; "2 000 000" and "2_000_000" too) and one
// decimal multiplier suffix: k = 1e3, M (or m) = 1e6, B or G (or b, g) = 1e9, T (or t) = 1e12.
// Lower-case m means million, not milli: no quantity gpuplan reads is a fraction of a unit
// that people write with an SI prefix. Surrounding spaces and a space before the suffix are
// allowed. Chinese counting words work as suffixes too: 千 = 1e3, 万 = 1e4, 百万 = 1e6,
// 千万 = 1e7, 亿 = 1e8, 万亿 = 1e12 ("2亿" is 2e8). An Error (parse_error) says what was wrong with
// the text, quoting it.
Result<double> parse_quantity(std::string_view text);

}  // namespace gpuplan
