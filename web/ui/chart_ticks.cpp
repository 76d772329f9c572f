// Tick values for the charts' axes (charts.h): no ImGui here, so web_test checks them.
#include <cmath>

#include "ui/charts.h"

namespace gpuplan::web {

std::vector<double> linear_ticks(double lo, double hi) {
  std::vector<double> out;
  if (!(hi > lo)) return out;
  // A fifth of the range rounded up to 2, 5 or 10 times a power of ten: 3 to 6 ticks, at least
  // two of them inside [lo, hi] (the step is at most 0.4 of the range).
  const double raw = (hi - lo) / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back(v);
  return out;
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> out;
  auto decades = [&](std::initializer_list<double> mantissas) {
    out.clear();
    for (int d = static_cast<int>(std::floor(lo)); d <= static_cast<int>(std::ceil(hi)); ++d) {
      for (double m : mantissas) {
        const double v = m * std::pow(10.0, d);
        if (std::log10(v) >= lo && std::log10(v) <= hi) out.push_back(v);
      }
    }
  };
  decades({1.0, 2.0, 5.0});
  if (out.size() < 2) decades({1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0});
  if (out.size() >= 2) return out;
  // A range narrower than the step between mantissas: the linear axes' round steps.
  return linear_ticks(std::pow(10.0, lo), std::pow(10.0, hi));
}

}  // namespace gpuplan::web
