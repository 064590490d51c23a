// Rates measured at a few increasing sizes, read at any size: linear in log size between the
// measured points (rates change by factors, not steps, as a size doubles), the end points'
// rates beyond them.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace opsim {

/// The rate at `size` from `points` at increasing sizes (`size_of(p)`, `rate_of(p)`); 0 when
/// `points` is empty.
template <class Point, class SizeOf, class RateOf>
double rate_interpolated_in_log_size(const std::vector<Point>& points, double size, SizeOf size_of,
                                     RateOf rate_of) {
  if (points.empty()) return 0;
  if (size <= size_of(points.front())) return rate_of(points.front());
  if (size >= size_of(points.back())) return rate_of(points.back());
  std::size_t i = 1;
  while (size_of(points[i]) < size) ++i;
  const Point& lo = points[i - 1];
  const Point& hi = points[i];
  const double t = std::log(size / size_of(lo)) / std::log(size_of(hi) / size_of(lo));
  return rate_of(lo) + t * (rate_of(hi) - rate_of(lo));
}

}  // namespace opsim
