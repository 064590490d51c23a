#include "experiments/calibration/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opsim::calibration {

double relative_error(double measured, double predicted) {
  if (measured == 0) return predicted == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return (predicted - measured) / measured;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double worst_abs(const std::vector<double>& values) {
  double worst = 0;
  for (double v : values) worst = std::max(worst, std::abs(v));
  return worst;
}

double median_abs(const std::vector<double>& values) {
  std::vector<double> a;
  a.reserve(values.size());
  for (double v : values) a.push_back(std::abs(v));
  return median(std::move(a));
}

double spread(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  const double mid = median(samples);
  return mid == 0 ? 0 : (*hi - *lo) / std::abs(mid);
}

double interquartile_spread(std::vector<double> samples) {
  if (samples.size() < 2) return 0;
  std::sort(samples.begin(), samples.end());
  auto percentile = [&](double p) {
    const double at = p * static_cast<double>(samples.size() - 1);
    const auto lo = static_cast<std::size_t>(at);
    const std::size_t hi = std::min(lo + 1, samples.size() - 1);
    return samples[lo] + (at - static_cast<double>(lo)) * (samples[hi] - samples[lo]);
  };
  const double mid = percentile(0.5);
  return mid == 0 ? 0 : (percentile(0.75) - percentile(0.25)) / std::abs(mid);
}

double reduce(const std::vector<double>& samples, Statistic statistic, bool higher_is_better) {
  if (samples.empty()) return 0;
  if (statistic == Statistic::kMedian) return median(samples);
  return higher_is_better ? *std::max_element(samples.begin(), samples.end())
                          : *std::min_element(samples.begin(), samples.end());
}

std::optional<Statistic> parse_statistic(std::string_view text) {
  if (text == "median") return Statistic::kMedian;
  if (text == "best") return Statistic::kBest;
  return std::nullopt;
}

bool agree(double a, double b, double tolerance) {
  const double mean = 0.5 * (std::abs(a) + std::abs(b));
  if (mean == 0) return true;
  return std::abs(a - b) <= tolerance * mean;
}

}  // namespace opsim::calibration
