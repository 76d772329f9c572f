#include "gpuplan/messages.h"

#include <algorithm>

namespace gpuplan {

const std::vector<MessageSpec>& message_specs() {
  static const std::vector<MessageSpec> specs = {
#define GPUPLAN_MSG_SPEC(name, id, english) {Msg::name, id, english},
      GPUPLAN_MESSAGES(GPUPLAN_MSG_SPEC)
#undef GPUPLAN_MSG_SPEC
  };
  return specs;
}

const char* message_id(Msg msg) {
  const auto& specs = message_specs();
  const auto i = static_cast<size_t>(msg);
  return i < specs.size() ? specs[i].id : "";
}

const char* message_english(Msg msg) {
  const auto& specs = message_specs();
  const auto i = static_cast<size_t>(msg);
  return i < specs.size() ? specs[i].english : "{0}";
}

namespace {
// The placeholder "{N}" at `pos`: N and the position after it, or -1.
int placeholder_at(const std::string& t, size_t pos, size_t& end) {
  if (t[pos] != '{') return -1;
  size_t i = pos + 1;
  int n = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9' && i - pos <= 2) n = n * 10 + (t[i++] - '0');
  if (i == pos + 1 || i >= t.size() || t[i] != '}') return -1;
  end = i + 1;
  return n;
}
}  // namespace

std::string render_message(const std::string& templ, const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < templ.size();) {
    size_t end = 0;
    const int n = placeholder_at(templ, i, end);
    if (n >= 0 && static_cast<size_t>(n) < args.size()) {
      out += args[static_cast<size_t>(n)];
      i = end;
    } else {
      out += templ[i++];
    }
  }
  return out;
}

std::vector<int> message_placeholders(const std::string& templ) {
  std::vector<int> out;
  for (size_t i = 0; i < templ.size(); ++i) {
    size_t end = 0;
    const int n = placeholder_at(templ, i, end);
    if (n >= 0) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace gpuplan
