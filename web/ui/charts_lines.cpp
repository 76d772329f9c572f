// The Serving tab's charts: linear axes from zero (load per hour, replicas per hour, latency
// against request rate with the targets) and groups of horizontal bars (monthly cost).
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "ui/charts.h"
#include "model/i18n.h"

namespace gpuplan::web {

namespace {

struct Axes {
  ImVec2 a, b;  // top-left and bottom-right of the plotting area
  double x1 = 1, y1 = 1;
  float px(double x) const { return a.x + static_cast<float>(x / x1) * (b.x - a.x); }
  float py(double y) const { return b.y - static_cast<float>(y / y1) * (b.y - a.y); }
};

void fit(const LineChart& c, Axes& f) {
  double xmax = c.x_max, ymax = 0;
  for (const auto& s : c.series) {
    for (double x : s.x) xmax = c.x_max > 0 ? xmax : std::max(xmax, x);
    for (double y : s.y) ymax = std::max(ymax, y);
  }
  for (const auto& r : c.refs) ymax = std::max(ymax, r.y);
  f.x1 = xmax > 0 ? xmax : 1;
  f.y1 = ymax > 0 ? ymax * 1.1 : 1;
}

void axes(ImDrawList* dl, const Axes& f, const LineChart& c, const ImVec2& p0) {
  const auto number = [](double v) { return format_number(v, 3); };
  draw_ticks(
      dl, f.a, f.b, Axis::x, linear_ticks(0, f.x1), [&f](double v) { return f.px(v); }, number);
  draw_ticks(
      dl, f.a, f.b, Axis::y, linear_ticks(0, f.y1), [&f](double v) { return f.py(v); }, number);
  draw_axis_titles(dl, f.a, f.b, p0, c.x_title.c_str(), c.y_title.c_str());
}

void draw_series(ImDrawList* dl, const Axes& f, const Series& s) {
  const unsigned int col = series_color(s.color);
  const size_t n = std::min(s.x.size(), s.y.size());
  std::vector<ImVec2> pts;
  for (size_t i = 0; i < n; ++i) {
    const double x_next = i + 1 < n ? s.x[i + 1] : f.x1;
    if (s.kind == Series::Kind::bars) {
      const float w = (f.px(x_next) - f.px(s.x[i])) * 0.8f;
      dl->AddRectFilled(ImVec2(f.px(s.x[i]), f.py(s.y[i])), ImVec2(f.px(s.x[i]) + w, f.py(0)), col);
    } else if (s.kind == Series::Kind::step) {
      pts.push_back(ImVec2(f.px(s.x[i]), f.py(s.y[i])));
      pts.push_back(ImVec2(f.px(x_next), f.py(s.y[i])));
    } else {
      pts.push_back(ImVec2(f.px(s.x[i]), f.py(s.y[i])));
      dl->AddCircleFilled(pts.back(), 3.0f, col);
    }
  }
  if (pts.size() > 1) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), col, 0, 2.0f);
}

void legend(ImDrawList* dl, const LineChart& c, float right, float y) {
  const float s = ImGui::GetTextLineHeight();
  float x = right;
  auto item = [&](const std::string& label, unsigned int col) {
    x -= ImGui::CalcTextSize(label.c_str()).x + s + 12;
    dl->AddRectFilled(ImVec2(x, y + s * 0.3f), ImVec2(x + s * 0.8f, y + s * 0.7f), col);
    dl->AddText(ImVec2(x + s, y), IM_COL32(220, 220, 220, 255), label.c_str());
  };
  for (auto it = c.refs.rbegin(); it != c.refs.rend(); ++it)
    item(it->label, series_color(it->color));
  for (auto it = c.series.rbegin(); it != c.series.rend(); ++it)
    item(it->label, series_color(it->color));
}

// The values of every series at the mouse's x (the nearest point at or left of it).
void tooltip(const Axes& f, const LineChart& c) {
  const float mx = ImGui::GetIO().MousePos.x;
  std::string tip;
  for (const auto& s : c.series) {
    size_t best = s.x.size();
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (f.px(s.x[i]) <= mx + 4) best = i;
    }
    if (best == s.x.size()) continue;
    tip += (tip.empty() ? "" : "\n") + s.label + ": " + format_number(s.x[best], 3) + " -> " +
           format_number(s.y[best], 3);
  }
  if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
}

}  // namespace

void line_chart(const char* id, const LineChart& c, float height) {
  ImGui::PushID(id);
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float line = ImGui::GetTextLineHeight();
  Axes f;
  f.a = ImVec2(p0.x + ImGui::CalcTextSize("10,000").x + 12, p0.y + line + 6);
  f.b = ImVec2(p0.x + width - 8, p0.y + height - line * 2 - 6);
  fit(c, f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(f.a, f.b, IM_COL32(30, 33, 40, 255));
  axes(dl, f, c, p0);
  dl->PushClipRect(f.a, f.b, true);
  for (const auto& s : c.series) draw_series(dl, f, s);
  for (const auto& r : c.refs) {
    dl->AddLine(ImVec2(f.a.x, f.py(r.y)), ImVec2(f.b.x, f.py(r.y)), series_color(r.color), 2.0f);
  }
  dl->PopClipRect();
  legend(dl, c, p0.x + width - 8, p0.y);
  ImGui::InvisibleButton("plot", ImVec2(width, height));
  if (ImGui::IsItemHovered()) tooltip(f, c);
  ImGui::PopID();
}

void bar_groups(const char* id, const std::vector<BarGroup>& groups,
                const std::vector<std::string>& series, float bar_height) {
  ImGui::PushID(id);
  double vmax = 0;
  for (const auto& g : groups) {
    for (double v : g.values) vmax = std::max(vmax, v);
  }
  const float width = ImGui::GetContentRegionAvail().x;
  float label_w = 0;
  for (const auto& g : groups) label_w = std::max(label_w, ImGui::CalcTextSize(g.label.c_str()).x);
  const float value_w = ImGui::CalcTextSize("1,000,000 USD").x;
  const float bar_w = std::max(40.0f, width - label_w - value_w - 24);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (const auto& g : groups) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddText(ImVec2(p.x, p.y), IM_COL32(220, 220, 220, 255), g.label.c_str());
    for (size_t i = 0; i < g.values.size(); ++i) {
      const float y = p.y + static_cast<float>(i) * (bar_height + 2);
      const float x0 = p.x + label_w + 8;
      const float w = vmax > 0 ? static_cast<float>(g.values[i] / vmax) * bar_w : 0;
      dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + w, y + bar_height),
                        series_color(static_cast<int>(i)));
      const std::string t = format_shown(g.values[i]);
      dl->AddText(ImVec2(x0 + w + 6, y + (bar_height - ImGui::GetTextLineHeight()) / 2),
                  IM_COL32(220, 220, 220, 255), t.c_str());
    }
    ImGui::Dummy(ImVec2(width, static_cast<float>(g.values.size()) * (bar_height + 2) + 6));
  }
  const float s = ImGui::GetTextLineHeight();
  for (size_t i = 0; i < series.size(); ++i) {
    if (i > 0) ImGui::SameLine(0, 16);
    const ImVec2 q = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(q, ImVec2(q.x + s, q.y + s), series_color(static_cast<int>(i)));
    ImGui::Dummy(ImVec2(s, s));
    ImGui::SameLine();
    ImGui::TextUnformatted(series[i].c_str());
  }
  ImGui::PopID();
}

}  // namespace gpuplan::web
