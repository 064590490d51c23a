#include "topologies/value_text.hpp"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "hw_models/units.hpp"
#include "topologies/yaml_fields.hpp"

namespace opsim::topology_yaml {

std::string shortest(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  (void)ec;
  return std::string(buffer, end);
}

namespace {

struct Unit {
  double scale;
  const char* suffix;
};

/// The shortest text, with a unit where possible, that parses back to exactly `value`.
/// Unit parsers multiply (100 * 1e-9 is not the double 100e-9), so a plain number wins
/// when no unit spelling is exact.
std::string exact(double value, std::initializer_list<Unit> units,
                  std::optional<double> (*parse)(std::string_view)) {
  if (value == 0) return "0";
  std::string best = shortest(value);
  char plain[64];
  std::snprintf(plain, sizeof plain, "%.15g", value);
  if (auto back = parse(plain); back && *back == value && std::strlen(plain) <= best.size())
    best = plain;
  for (const Unit& unit : units) {
    if (value < unit.scale) continue;
    char rounded[64];
    std::snprintf(rounded, sizeof rounded, "%.15g", value / unit.scale);
    for (const std::string& number : {std::string(rounded), shortest(value / unit.scale)}) {
      const std::string s = number + unit.suffix;
      auto back = parse(s);
      if (back && *back == value && s.size() <= best.size() + 3) {
        best = s;
        return best;
      }
    }
  }
  return best;
}

}  // namespace

std::string bandwidth_text(double v) {
  return exact(v, {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}}, parse_bytes_per_s);
}
std::string size_text(double v) {
  return exact(v, {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}}, parse_bytes);
}
std::string duration_text(double v) {
  return exact(v, {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}}, parse_seconds);
}
std::string rate_text(double v) {
  return exact(v, {{1e12, "TFLOPS"}, {1e9, "GFLOPS"}}, parse_flops_per_s);
}
namespace {
std::string clock_text(double v) {
  return exact(v, {{1e9, "GHz"}, {1e6, "MHz"}}, parse_hz);
}
}  // namespace

std::string number_text(double v) {
  return exact(v, {{1e6, "M"}, {1e3, "k"}}, parse_plain);
}

std::string value_text(ParameterUnit unit, double value) {
  switch (unit) {
    case ParameterUnit::kBandwidth:
      return bandwidth_text(value);
    case ParameterUnit::kDuration:
      return duration_text(value);
    case ParameterUnit::kSize:
      return size_text(value);
    case ParameterUnit::kComputeRate:
      return rate_text(value);
    case ParameterUnit::kClock:
      return clock_text(value);
    case ParameterUnit::kCount:
      return std::to_string(static_cast<long>(value));
    case ParameterUnit::kFlag:
      return value != 0 ? "true" : "false";
    default:
      return number_text(value);
  }
}

}  // namespace opsim::topology_yaml
