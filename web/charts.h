#pragma once
// Charts drawn with ImGui's ImDrawList (ImPlot is not packaged in Debian): a stacked bar of
// memory terms against the GPU's capacity, and a time-vs-cost scatter with its Pareto front.

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

// The colour of series i, shared by the bar, legends and tables.
unsigned int series_color(int i);

}  // namespace gpuplan::web
