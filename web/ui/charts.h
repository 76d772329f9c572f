#pragma once
// Charts drawn with ImGui's ImDrawList (ImPlot is not packaged in Debian): a stacked bar of
// memory terms against the GPU's capacity, a time-vs-cost scatter with its Pareto front, and
// (charts_lines.cpp) the Serving tab's linear charts and bar groups.

#include <functional>
#include <string>
#include <vector>

struct ImDrawList;
struct ImVec2;

namespace gpuplan::web {

struct BarSegment {
  std::string label;
  double value = 0;
};

// A horizontal stacked bar (bytes) with a marker at `capacity` and a legend; `height` in pixels.
void stacked_bar(const char* id, const std::vector<BarSegment>& segments, double capacity,
                 const std::string& capacity_label, float height);

struct ScatterPoint {
  double x = 0;            // hours
  double y = 0;            // cost in the page's currency (usd_to_shown)
  bool highlight = false;  // on the Pareto front
  bool assumed = false;    // the price is assumed (drawn hollow, in the "assumed" colour)
  std::string label;
};

// A log-log scatter of time (x, hours, ticks written as durations) against cost (y, in the page's
// currency) with
// 1-2-5 ticks and axis titles; returns the index of a clicked point, or -1.
int scatter(const char* id, const std::vector<ScatterPoint>& points, float height);

// Tick values at 1, 2 and 5 times each power of ten between lo and hi (log10 units); when
// that gives fewer than two, the decades' 1-10 ticks in between are added.
std::vector<double> log_ticks(double log_lo, double log_hi);

// A chart with linear axes from zero: lines, steps (one value per interval [x_i, x_i+1)) or
// bars, horizontal reference lines (targets), a legend, and a tooltip at the mouse's x.
struct Series {
  enum class Kind { line, step, bars };
  std::string label;
  std::vector<double> x, y;
  Kind kind = Kind::line;
  int color = 0;  // series_color index
};
struct RefLine {
  std::string label;
  double y = 0;
  int color = 5;
};
struct LineChart {
  std::string x_title, y_title;
  std::vector<Series> series;
  std::vector<RefLine> refs;
  double x_max = 0;  // 0: the data's
};
void line_chart(const char* id, const LineChart& chart, float height);

// Groups of horizontal bars (one bar per series in each group), values in the page's currency
// (usd_to_shown), with a legend.
struct BarGroup {
  std::string label;
  std::vector<double> values;  // one per series
};
void bar_groups(const char* id, const std::vector<BarGroup>& groups,
                const std::vector<std::string>& series, float bar_height);

// Round ticks (1, 2 or 5 times a power of ten apart) from lo to hi: 3 to 6 of them, at least two
// inside the range (chart_ticks.cpp; also log_ticks' steps for a range under a mantissa's step).
std::vector<double> linear_ticks(double lo, double hi);

// One axis's ticks on the plotting area from `a` (top left) to `b` (bottom right): a grid line
// and a label each, under the area for x, left of it for y. `at` places a value on the screen
// (x or y pixel), `text` writes it. Both charts' axes, log and linear, draw through it.
enum class Axis { x, y };
void draw_ticks(ImDrawList* dl, const ImVec2& a, const ImVec2& b, Axis axis,
                const std::vector<double>& ticks, const std::function<float(double)>& at,
                const std::function<std::string(double)>& text);
// The axis titles: x centred under the tick labels, y at `p0` (the chart's top left).
void draw_axis_titles(ImDrawList* dl, const ImVec2& a, const ImVec2& b, const ImVec2& p0,
                      const char* x_title, const char* y_title);

// The colour of series i, shared by the bar, legends and tables.
unsigned int series_color(int i);

}  // namespace gpuplan::web
