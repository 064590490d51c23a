#include "gui/plot_axis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace opsim::gui {
namespace {

struct NamedScale {
  double factor;
  const char* name;
};

// Largest first: the first whose factor is at most the value names it.
constexpr NamedScale kByteScales[] = {
    {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}, {1, "B"}};
constexpr NamedScale kSecondScales[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}, {1e-9, "ns"}};

template <std::size_t N>
NamedScale scale_for(double magnitude, const NamedScale (&scales)[N]) {
  for (const NamedScale& s : scales)
    if (magnitude >= s.factor) return s;
  return scales[N - 1];
}

NamedScale named_scale(double magnitude, PlotUnit unit) {
  if (unit == PlotUnit::kBytes) return scale_for(magnitude, kByteScales);
  if (unit == PlotUnit::kSeconds) return scale_for(magnitude, kSecondScales);
  if (unit == PlotUnit::kGBps) return {1, "GB/s"};
  return {1, ""};
}

// Significant digits, but whole numbers up to a million in full ("2000 s", not "2e+03 s").
std::string number_text(double value, int significant) {
  char text[48];
  if (std::abs(value) >= 1000 && std::abs(value) < 1e6)
    std::snprintf(text, sizeof text, "%.0f", value);
  else
    std::snprintf(text, sizeof text, "%.*g", significant, value);
  return text;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "makespan_s" -> "makespan", "bytes_moved" -> "bytes moved".
std::string base_title(const std::string& column, PlotUnit unit) {
  std::string base = column;
  if (unit == PlotUnit::kSeconds) base.resize(base.size() - 2);
  if (unit == PlotUnit::kGBps) base.resize(base.size() - 5);
  if (base.empty()) base = column;
  std::replace(base.begin(), base.end(), '_', ' ');
  return base;
}

// 1, 2 or 5 times a power of ten, about a fifth of `span`.
double nice_step(double span) {
  const double raw = span / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalized = raw / magnitude;
  const double factor = normalized < 1.5 ? 1 : normalized < 3 ? 2 : normalized < 7 ? 5 : 10;
  return factor * magnitude;
}

void make_linear(PlotAxis& axis, double low, double high) {
  if (high <= low) {
    // One value: a range around it that stays on its side of zero.
    const double pad = low != 0 ? std::abs(low) * 0.1 : 1;
    low = low >= 0 ? std::max(0.0, low - pad) : low - pad;
    high += pad;
  }
  const double step = nice_step(high - low);
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  axis.min = std::floor(low / step + 1e-9) * step;
  axis.max = std::ceil(high / step - 1e-9) * step;
  const long count = std::lround((axis.max - axis.min) / step);
  for (long i = 0; i <= count; ++i) {
    const double position = axis.min + static_cast<double>(i) * step;
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals,
                  std::abs(position) < step / 2 ? 0 : position);
    axis.ticks.push_back({position, text});
  }
}

// Ticks at 1, 2 and 5 times each power of ten over up to three decades, at the powers of ten
// (at most about ten of them) beyond; the range runs from the tick at or below the smallest
// value to the one at or above the largest.
void make_log(PlotAxis& axis, double low, double high) {
  const int first = static_cast<int>(std::floor(std::log10(low) + 1e-9));
  const int last = static_cast<int>(std::ceil(std::log10(high) - 1e-9));
  const int decades = last - first;
  const int every = std::max(1, (decades + 9) / 10);
  std::vector<double> candidates;
  for (int k = first; k <= last; k += every) {
    candidates.push_back(std::pow(10.0, k));
    if (decades > 3) continue;
    for (double m : {2.0, 5.0}) candidates.push_back(m * std::pow(10.0, k));
  }
  if (candidates.back() < high * (1 - 1e-9)) candidates.push_back(std::pow(10.0, last));
  std::size_t begin = 0, end = candidates.size();
  while (begin + 1 < end && candidates[begin + 1] <= low * (1 + 1e-9)) ++begin;
  while (end - 1 > begin + 1 && candidates[end - 2] >= high * (1 - 1e-9)) --end;
  for (std::size_t i = begin; i < end; ++i)
    axis.ticks.push_back({std::log10(candidates[i]), format_value(candidates[i], axis.unit)});
  axis.min = axis.ticks.front().position;
  axis.max = axis.ticks.back().position;
}

}  // namespace

double PlotAxis::position(double value) const {
  return log ? std::log10(value) : value / scale;
}

PlotUnit unit_of_column(const std::string& column) {
  if (column == "bytes" || ends_with(column, "_bytes") || column.rfind("bytes_", 0) == 0)
    return PlotUnit::kBytes;
  if (ends_with(column, "_s") && column.size() > 2) return PlotUnit::kSeconds;
  if (ends_with(column, "_GBps") && column.size() > 5) return PlotUnit::kGBps;
  return PlotUnit::kPlain;
}

std::string format_value(double value, PlotUnit unit) {
  if (unit == PlotUnit::kPlain) return number_text(value, 6);
  if (value == 0) return std::string("0 ") + named_scale(1, unit).name;
  const NamedScale s = named_scale(std::abs(value), unit);
  return number_text(value / s.factor, 3) + " " + s.name;
}

PlotAxis plot_axis(const std::string& column, const std::vector<double>& values, bool from_zero) {
  PlotAxis axis;
  axis.column = column;
  axis.unit = unit_of_column(column);
  const auto [low_it, high_it] = std::minmax_element(values.begin(), values.end());
  double low = *low_it, high = *high_it;
  axis.log = low > 0 && high / low >= kLogSpanRatio;
  const std::string base = base_title(column, axis.unit);
  if (axis.log) {
    axis.title = base + " (log scale)";
    make_log(axis, low, high);
    return axis;
  }
  const NamedScale s = named_scale(std::max(std::abs(low), std::abs(high)), axis.unit);
  axis.scale = s.factor;
  axis.title = *s.name != 0 ? base + " (" + s.name + ")" : base;
  if (from_zero && low > 0) low = 0;
  make_linear(axis, low / s.factor, high / s.factor);
  return axis;
}

}  // namespace opsim::gui
