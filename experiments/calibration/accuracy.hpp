// Error arithmetic shared by calibrate and validate: relative error of a prediction, the
// median and worst of a set of errors, and the spread of repeated measurements (a parameter
// whose spread exceeds kNoisySpread is reported as noisy).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace opsim::calibration {

/// How repeated measurements become one number: the median, or the best sample (the
/// highest rate, the shortest time). On a machine shared with other work, interference only
/// slows a run down, so the best sample is the least disturbed one.
enum class Statistic { kMedian, kBest };

/// Spread above which a repeated measurement is called noisy: 5%.
inline constexpr double kNoisySpread = 0.05;

/// Signed relative error of `predicted` against `measured`: (predicted - measured) / measured.
/// 0 when both are 0; +inf when only `measured` is 0.
double relative_error(double measured, double predicted);
/// Median of `values` (mean of the middle two for an even count); 0 when empty.
double median(std::vector<double> values);
/// Largest absolute value in `values`; 0 when empty.
double worst_abs(const std::vector<double>& values);
/// Median of the absolute values.
double median_abs(const std::vector<double>& values);
/// Spread of repeated samples: (max - min) / median; 0 for fewer than two samples.
double spread(const std::vector<double>& samples);
/// (75th - 25th percentile) / median, percentiles interpolated; 0 for fewer than two
/// samples. Unlike spread(), one disturbed sample in many does not move it.
double interquartile_spread(std::vector<double> samples);
/// Reduces samples by `statistic`; `higher_is_better` for rates (best = max), else best = min.
double reduce(const std::vector<double>& samples, Statistic statistic, bool higher_is_better);
/// Parses "median" or "best"; std::nullopt otherwise.
std::optional<Statistic> parse_statistic(std::string_view text);

/// True when two measurements of one quantity agree within kNoisySpread of their mean.
bool agree(double a, double b, double tolerance = kNoisySpread);

}  // namespace opsim::calibration
