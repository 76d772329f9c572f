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
  double x = 0;  // hours
  double y = 0;  // USD
  bool highlight = false;  // on the Pareto front
  std::string label;
};

// A log-log scatter of time (x) against cost (y) with axis labels; returns the index of a
// clicked point, or -1.
int scatter(const char* id, const std::vector<ScatterPoint>& points, float height);

// The colour of series i, shared by the bar, legends and tables.
unsigned int series_color(int i);

}  // namespace gpuplan::web
