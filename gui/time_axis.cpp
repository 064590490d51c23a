#include "gui/time_axis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace opsim::gui {

void TimeAxis::zoom_around(double x_px, double factor) {
  if (!(factor > 0) || !std::isfinite(factor)) return;
  const double anchor_ns = ns_at(x_px);
  ns_per_px = std::clamp(ns_per_px / factor, kMinNsPerPx, kMaxNsPerPx);
  start_ns = anchor_ns - x_px * ns_per_px;
}

void TimeAxis::fit(double begin_ns, double end_ns, double width_px, double margin_fraction) {
  if (end_ns <= begin_ns) end_ns = begin_ns + 1000;
  width_px = std::max(width_px, 1.0);
  const double margin_ns = (end_ns - begin_ns) * std::max(margin_fraction, 0.0);
  ns_per_px = std::clamp((end_ns - begin_ns + 2 * margin_ns) / width_px, kMinNsPerPx, kMaxNsPerPx);
  start_ns = begin_ns - margin_ns;
}

double tick_step_ns(double ns_per_px, double min_spacing_px) {
  const double min_step_ns = std::max(ns_per_px * min_spacing_px, 1e-6);
  double decade = std::pow(10.0, std::floor(std::log10(min_step_ns)));
  for (;;) {
    for (double mult : {1.0, 2.0, 5.0}) {
      // Tolerance: floating decade * mult may land a hair under the exact minimum.
      if (decade * mult >= min_step_ns * (1 - 1e-9)) return decade * mult;
    }
    decade *= 10;
  }
}

namespace {

struct Unit {
  double ns;
  const char* name;
};

Unit unit_for(double magnitude_ns) {
  if (magnitude_ns >= 1e9) return {1e9, "s"};
  if (magnitude_ns >= 1e6) return {1e6, "ms"};
  if (magnitude_ns >= 1e3) return {1e3, "us"};
  return {1, "ns"};
}

}  // namespace

std::string format_tick(double t_ns, double step_ns) {
  // The unit follows the time itself (12.5 ms, not 12500 us); decimals follow the step.
  const Unit unit = unit_for(std::max(std::fabs(t_ns), step_ns));
  const double step_units = step_ns / unit.ns;
  // Decimals needed so that consecutive ticks differ in print: 0 for steps >= 1 unit.
  int decimals = 0;
  while (decimals < 6 && step_units * std::pow(10.0, decimals) < 0.999) ++decimals;
  char buf[64];
  double value = t_ns / unit.ns;
  if (std::fabs(value) < 0.5 * std::pow(10.0, -decimals)) value = 0;  // no "-0"
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, unit.name);
  return buf;
}

std::string format_duration_ns(double duration_ns) {
  const Unit unit = unit_for(std::fabs(duration_ns));
  const double value = duration_ns / unit.ns;
  const double mag = std::fabs(value);
  const int decimals = mag >= 100 ? 1 : mag >= 10 ? 2 : 3;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, unit.name);
  return buf;
}

}  // namespace opsim::gui
