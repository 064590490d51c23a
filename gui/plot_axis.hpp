// One axis of a sweep chart, decided from a column's name and values without any Qt: its
// unit (from the name: "bytes" and "*_bytes" are sizes, "*_s" seconds, "*_GBps" rates), its
// title, whether it is logarithmic (positive values spanning at least kLogSpanRatio), its
// range and its ticks with labels in readable units ("16 MB", "250 µs").
//
//   PlotAxis x = plot_axis("bytes", {1e3, 1e6, 1e9}, false);
//   // x.log == true, x.title == "bytes (log scale)",
//   // ticks at 3, 4, ..., 9 (log10 of the value) labelled "1 kB", "10 kB", ..., "1 GB"
#pragma once

#include <string>
#include <vector>

namespace opsim::gui {

enum class PlotUnit { kPlain, kBytes, kSeconds, kGBps };

/// A log axis is chosen when the largest value is at least this many times the smallest.
inline constexpr double kLogSpanRatio = 100;

struct AxisTick {
  double position = 0;  ///< where on the axis: the value, or its log10 on a log axis
  std::string label;
};

struct PlotAxis {
  std::string column;
  PlotUnit unit = PlotUnit::kPlain;
  std::string title;  ///< "makespan (ms)", "bytes (log scale)"
  bool log = false;
  double min = 0;  ///< range, in positions (log10 of values on a log axis)
  double max = 1;
  /// Values are divided by this on a linear axis whose labels carry no unit ("ms": 1e-3).
  double scale = 1;
  std::vector<AxisTick> ticks;  ///< from min to max, the first at min and the last at max

  /// Where `value` lies on this axis (log10 on a log axis).
  double position(double value) const;
};

PlotUnit unit_of_column(const std::string& column);

/// "16 MB", "1.5 GB", "250 µs", "2 ms", "12.5 GB/s", "8": one value in its unit.
std::string format_value(double value, PlotUnit unit);

/// The axis for `values` of `column` (at least one, all finite). `from_zero`: a linear axis
/// starts at 0 when all values are positive (a metric, where the distance to 0 matters).
PlotAxis plot_axis(const std::string& column, const std::vector<double>& values, bool from_zero);

}  // namespace opsim::gui
