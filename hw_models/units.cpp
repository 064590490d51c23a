#include "hw_models/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace opsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "160 MB" into 160 and "MB". Returns nullopt if there is no leading number.
std::optional<std::pair<double, std::string>> split_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  std::string buffer(text);
  char* end = nullptr;
  const double value = std::strtod(buffer.c_str(), &end);
  if (end == buffer.c_str()) return std::nullopt;
  if (!std::isfinite(value) || value < 0) return std::nullopt;
  std::string suffix(trim(std::string_view(end)));
  return std::make_pair(value, suffix);
}

std::optional<double> si_prefix(std::string_view prefix) {
  if (prefix.empty()) return 1.0;
  if (prefix == "k" || prefix == "K") return 1e3;
  if (prefix == "M") return 1e6;
  if (prefix == "G") return 1e9;
  if (prefix == "T") return 1e12;
  if (prefix == "P") return 1e15;
  if (prefix == "Ki") return 1024.0;
  if (prefix == "Mi") return 1024.0 * 1024.0;
  if (prefix == "Gi") return 1024.0 * 1024.0 * 1024.0;
  if (prefix == "Ti") return 1024.0 * 1024.0 * 1024.0 * 1024.0;
  return std::nullopt;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

TimeNs seconds_to_ns(double seconds) { return static_cast<TimeNs>(std::llround(seconds * kNsPerSecond)); }

std::optional<double> parse_bytes(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  auto [value, unit] = *parsed;
  if (unit.empty()) return value;
  std::string_view u = unit;
  if (ends_with(u, "B")) u.remove_suffix(1);
  else return std::nullopt;
  auto scale = si_prefix(u);
  if (!scale) return std::nullopt;
  return value * *scale;
}

std::optional<double> parse_bytes_per_s(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  auto [value, unit] = *parsed;
  if (unit.empty()) return value;
  std::string_view u = unit;
  double bits = 1.0;
  if (ends_with(u, "bit/s")) {
    u.remove_suffix(5);
    bits = 1.0 / 8.0;
  } else if (ends_with(u, "b/s")) {
    u.remove_suffix(3);
    bits = 1.0 / 8.0;
  } else if (ends_with(u, "bps")) {
    u.remove_suffix(3);
    bits = 1.0 / 8.0;
  } else if (ends_with(u, "B/s")) {
    u.remove_suffix(3);
  } else {
    return std::nullopt;
  }
  auto scale = si_prefix(u);
  if (!scale) return std::nullopt;
  return value * *scale * bits;
}

std::optional<double> parse_seconds(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  auto [value, unit] = *parsed;
  if (unit.empty() || unit == "s") return value;
  if (unit == "ms") return value * 1e-3;
  if (unit == "us" || unit == "µs") return value * 1e-6;
  if (unit == "ns") return value * 1e-9;
  if (unit == "min") return value * 60.0;
  return std::nullopt;
}

std::optional<double> parse_flops_per_s(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  auto [value, unit] = *parsed;
  if (unit.empty()) return value;
  std::string_view u = unit;
  if (ends_with(u, "FLOP/s")) u.remove_suffix(6);
  else if (ends_with(u, "FLOPS")) u.remove_suffix(5);
  else if (ends_with(u, "flop/s")) u.remove_suffix(6);
  else return std::nullopt;
  auto scale = si_prefix(u);
  if (!scale) return std::nullopt;
  return value * *scale;
}

std::optional<double> parse_count(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  auto [value, unit] = *parsed;
  auto scale = si_prefix(unit);
  if (!scale) return std::nullopt;
  return value * *scale;
}

namespace {
std::string format_scaled(double value, const char* const* units, int count, double step) {
  int i = 0;
  while (i + 1 < count && std::fabs(value) >= step) {
    value /= step;
    ++i;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g %s", value, units[i]);
  return buffer;
}
}  // namespace

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  return format_scaled(bytes, kUnits, 6, 1000.0);
}

std::string format_bytes_per_s(double bytes_per_s) {
  static const char* const kUnits[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  return format_scaled(bytes_per_s, kUnits, 5, 1000.0);
}

std::string format_seconds(double seconds) {
  char buffer[64];
  const double a = std::fabs(seconds);
  if (a >= 1.0 || a == 0.0) std::snprintf(buffer, sizeof buffer, "%.3f s", seconds);
  else if (a >= 1e-3) std::snprintf(buffer, sizeof buffer, "%.3f ms", seconds * 1e3);
  else if (a >= 1e-6) std::snprintf(buffer, sizeof buffer, "%.3f us", seconds * 1e6);
  else std::snprintf(buffer, sizeof buffer, "%.1f ns", seconds * 1e9);
  return buffer;
}

}  // namespace opsim
