// The time <-> pixel mapping of the timeline: a plain value type, no Qt, tested without a
// window (Hotspot style). x is measured in pixels from the left edge of the plot area.
#pragma once

#include <string>

namespace opsim::gui {

/// Maps trace time (nanoseconds, double so sub-ns zoom works) to plot x (pixels).
struct TimeAxis {
  static constexpr double kMinNsPerPx = 1e-3;  ///< deepest zoom: 1 ps per pixel
  static constexpr double kMaxNsPerPx = 1e12;  ///< widest zoom: 1000 s per pixel

  double start_ns = 0;      ///< time at x = 0
  double ns_per_px = 1000;  ///< nanoseconds per pixel (> 0)

  double x_of(double t_ns) const { return (t_ns - start_ns) / ns_per_px; }
  double ns_at(double x_px) const { return start_ns + x_px * ns_per_px; }
  double end_ns(double width_px) const { return ns_at(width_px); }

  /// Zooms by `factor` (> 1 zooms in) keeping the time under `x_px` fixed; ns_per_px is
  /// clamped to [kMinNsPerPx, kMaxNsPerPx].
  void zoom_around(double x_px, double factor);
  /// Moves the content right by `dx_px` pixels (dragging right shows earlier times).
  void pan_px(double dx_px) { start_ns -= dx_px * ns_per_px; }
  /// Shows [begin_ns, end_ns] across `width_px` with `margin_fraction` of the span blank on
  /// each side. An empty range shows 1 us around begin_ns.
  void fit(double begin_ns, double end_ns, double width_px, double margin_fraction = 0.02);

  bool operator==(const TimeAxis&) const = default;
};

/// The tick spacing in ns for a ruler: the smallest 1, 2 or 5 x 10^k ns such that ticks are
/// at least `min_spacing_px` apart.
double tick_step_ns(double ns_per_px, double min_spacing_px);

/// A tick label for time `t_ns` when ticks are `step_ns` apart: unit (ns, us, ms, s) chosen
/// from the larger of the time and the step, with just enough decimals to tell neighbouring
/// ticks apart, e.g. "12.5 ms".
std::string format_tick(double t_ns, double step_ns);

/// A duration for tooltips and tables with 4 significant digits: "60.00 ms", "812.5 us".
std::string format_duration_ns(double duration_ns);

}  // namespace opsim::gui
