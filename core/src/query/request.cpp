// Key/value pairs as a URL query string and back (percent-encoding); the keys themselves are
// the key table's (keys.cpp).
#include "gpuplan/request.h"

#include <algorithm>
#include <cstdio>

namespace gpuplan {

std::string args_to_query(const Args& args) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const auto& [k, v] : args) {
    if (!out.empty()) out += '&';
    out += k;
    out += '=';
    for (unsigned char c : v) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~' ||
                         c == '/' || c == ',';
      if (plain) {
        out += static_cast<char>(c);
      } else {
        out += '%';
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
  }
  return out;
}

Result<Args> query_to_args(std::string_view q) {
  if (q.size() > 8192) return make_error(Errc::too_large, Msg::link_too_long, {"8192"});
  if (!q.empty() && (q[0] == '#' || q[0] == '?')) q.remove_prefix(1);
  Args out;
  auto unhex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  size_t start = 0;
  while (start < q.size()) {
    const size_t amp = std::min(q.find('&', start), q.size());
    std::string_view part = q.substr(start, amp - start);
    start = amp + 1;
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    std::string key(part.substr(0, eq));
    std::string raw(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1));
    std::string value;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '%') {
        if (i + 2 >= raw.size()) {
          return make_error(Errc::parse_error, Msg::link_truncated_escape, {key});
        }
        const int hi = unhex(raw[i + 1]);
        const int lo = unhex(raw[i + 2]);
        if (hi < 0 || lo < 0) return make_error(Errc::parse_error, Msg::link_bad_escape, {key});
        value += static_cast<char>(hi * 16 + lo);
        i += 2;
      } else {
        value += raw[i] == '+' ? ' ' : raw[i];
      }
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

}  // namespace gpuplan
