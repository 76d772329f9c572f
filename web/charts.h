#pragma once
// Charts drawn with ImGui's ImDrawList (ImPlot is not packaged in Debian): a stacked bar of
// memory terms against the GPU's capacity, a time-vs-cost scatter with its Pareto front, and
// (charts_lines.cpp) the Serving tab's linear charts and bar groups.

#include <string>
#include <vector>

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
  double y = 0;            // USD
  bool highlight = false;  // on the Pareto front
  bool assumed = false;    // the price is assumed (drawn hollow, in the "assumed" colour)
  std::string label;
};

// A log-log scatter of time (x, hours, ticks written as durations) against cost (y, USD) with
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

// Groups of horizontal bars (one bar per series in each group), values in USD, with a legend.
struct BarGroup {
  std::string label;
  std::vector<double> values;  // one per series
};
void bar_groups(const char* id, const std::vector<BarGroup>& groups,
                const std::vector<std::string>& series, float bar_height);

// Round ticks (1, 2 or 5 times a power of ten apart) from lo to hi.
std::vector<double> linear_ticks(double lo, double hi);

// The colour of series i, shared by the bar, legends and tables.
unsigned int series_color(int i);

}  // namespace gpuplan::web
