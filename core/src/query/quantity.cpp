#include "gpuplan/quantity.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

namespace gpuplan {
namespace {

Error not_a_number(std::string_view text, const std::string& why) {
  return make_error(Errc::parse_error, "'" + std::string(text) + "' is not a number: " + why +
                                           " (examples: 50M, 2e9, 1.5k, 2,000,000)");
}

double multiplier(char suffix) {
  switch (suffix) {
    case 'k':
    case 'K':
      return 1e3;
    case 'm':
    case 'M':
      return 1e6;
    case 'b':
    case 'B':
    case 'g':
    case 'G':
      return 1e9;
    case 't':
    case 'T':
      return 1e12;
    default:
      return 0;
  }
}

// Chinese numeral multipliers written after a number ("2亿" = 2e8, "5千万" = 5e7), longest first
// so "百万" is not read as a bare "万". Counting units of the language, not SI prefixes.
struct WordMultiplier {
  std::string_view word;
  double value;
};
constexpr WordMultiplier kChineseMultipliers[] = {
    {"万亿", 1e12}, {"千万", 1e7}, {"百万", 1e6}, {"亿", 1e8}, {"万", 1e4}, {"千", 1e3},
};

// Strips a trailing multiplier (an ASCII suffix or a Chinese word) from `s`; its value, or 1.
double take_multiplier(std::string& s) {
  for (const auto& m : kChineseMultipliers) {
    if (s.size() > m.word.size() &&
        s.compare(s.size() - m.word.size(), m.word.size(), m.word.data(), m.word.size()) == 0) {
      s.resize(s.size() - m.word.size());
      return m.value;
    }
  }
  const double m = s.size() > 1 ? multiplier(s.back()) : 0;
  if (m == 0) return 1;
  s.pop_back();
  return m;
}

// Removes thousands separators from the whole-number part; false when they are misplaced
// (every group after the first must have exactly three digits).
bool strip_separators(std::string& s) {
  const size_t end = s.find_first_of(".eE");
  const std::string whole = s.substr(0, end), rest = end == std::string::npos ? "" : s.substr(end);
  if (whole.find_first_of(", _") == std::string::npos) return true;
  std::string digits;
  size_t group = 0;
  bool first = true;
  for (size_t i = 0; i < whole.size(); ++i) {
    const char c = whole[i];
    if (c == ',' || c == ' ' || c == '_') {
      if ((first && (group == 0 || group > 3)) || (!first && group != 3)) return false;
      first = false;
      group = 0;
    } else {
      digits += c;
      if (c != '-' && c != '+') ++group;
    }
  }
  if (group != 3) return false;
  s = digits + rest;
  return true;
}

}  // namespace

Result<double> parse_quantity(std::string_view text) {
  std::string s(text);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t lead = 0;
  while (lead < s.size() && std::isspace(static_cast<unsigned char>(s[lead]))) ++lead;
  s.erase(0, lead);
  if (s.empty()) return not_a_number(text, "it is empty");
  const double scale = take_multiplier(s);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (!strip_separators(s))
    return not_a_number(text, "thousands separators must split groups of three digits");
  if (s.empty() || s.find_first_not_of("0123456789.eE+-") != std::string::npos) {
    return not_a_number(text, "unexpected characters");
  }
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return not_a_number(text, "unexpected characters");
  if (!std::isfinite(x * scale)) return not_a_number(text, "it is too large");
  return x * scale;
}

}  // namespace gpuplan
