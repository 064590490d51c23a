#include "topologies/yaml_fields.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "common/closest_name.hpp"
#include "common/input_error.hpp"
#include "common/utf8.hpp"
#include "hw_models/units.hpp"

namespace opsim::topology_yaml {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const Quantity& quantity_of(ParameterUnit unit) {
  switch (unit) {
    case ParameterUnit::kBandwidth:
      return kBandwidth;
    case ParameterUnit::kDuration:
      return kDuration;
    case ParameterUnit::kSize:
      return kSize;
    case ParameterUnit::kComputeRate:
      return kComputeRate;
    case ParameterUnit::kClock:
      return kClock;
    default:
      return kNumber;
  }
}

}  // namespace

namespace {
constexpr double kUnbounded = std::numeric_limits<double>::infinity();
}  // namespace

const Quantity kBandwidth{parse_bytes_per_s, "a bandwidth",
                          "'16GB/s', '10Gbit/s' or bytes per second",
                          unit_upper_bound(ParameterUnit::kBandwidth), "1PB/s"};
const Quantity kDuration{parse_seconds, "a duration", "'100ns', '1.5us', '8ms' or seconds",
                         unit_upper_bound(ParameterUnit::kDuration), ""};
const Quantity kSize{parse_bytes, "a size", "'16GB', '512MiB' or bytes",
                     unit_upper_bound(ParameterUnit::kSize), "9007199254740992 bytes (2^53)"};
const Quantity kComputeRate{parse_flops_per_s, "a compute rate", "'15.7TFLOPS' or flops per second",
                            unit_upper_bound(ParameterUnit::kComputeRate), "1000PFLOPS"};
const Quantity kClock{parse_hz, "a clock", "'3.0GHz' or Hz",
                      unit_upper_bound(ParameterUnit::kClock), "100GHz"};
const Quantity kNumber{parse_plain, "a number", "'7200', '500k' or '1.5e5'", kUnbounded, ""};

bool contains(Keys keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string node_type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "'" + node.Scalar() + "'";
  }
}

std::optional<double> parse_hz(std::string_view text) {
  std::string s(text);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s.size() >= 2 && s.compare(s.size() - 2, 2, "Hz") == 0) s.resize(s.size() - 2);
  return parse_count(s);
}

std::optional<double> parse_plain(std::string_view text) {
  return parse_count(text);
}

void FieldReader::fail(const YAML::Mark& mark, const std::string& what) const {
  std::string message = source_;
  if (with_place_ && !mark.is_null())
    message += ':' + std::to_string(mark.line + 1) + ':' + std::to_string(mark.column + 1);
  message += ": " + what;
  std::replace(message.begin(), message.end(), '\n', ' ');
  throw InputError(message);
}

void FieldReader::check_map(const YAML::Node& node, Keys allowed, const std::string& what) const {
  if (!node.IsMap()) fail(node.Mark(), what + " must be a map, got " + node_type_name(node));
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;  // a copy: it-> returns a temporary proxy
    if (!key.IsScalar()) fail(key.Mark(), "keys of " + what + " must be plain words");
    const std::string& k = key.Scalar();
    if (!contains(allowed, k))
      fail(key.Mark(), "unknown key '" + k + "' in " + what + " " + name_suggestion(k, allowed));
    if (!seen.insert(k).second) fail(key.Mark(), "duplicate key '" + k + "' in " + what);
  }
}

YAML::Node FieldReader::required(const YAML::Node& map, const char* key,
                                 const std::string& what) const {
  YAML::Node value = map[key];
  if (!value) fail(map.Mark(), what + " is missing required key '" + key + "'");
  return value;
}

std::string FieldReader::text(const YAML::Node& value, std::string_view key) const {
  if (!value.IsScalar() || value.Scalar().empty())
    fail(value.Mark(),
         "'" + std::string(key) + "' must be a word or text, got " + node_type_name(value));
  // Names are written back to traces and files: they must read back the same.
  if (!is_valid_utf8(value.Scalar()))
    fail(value.Mark(), "'" + std::string(key) + "' is not valid UTF-8");
  if (has_control_characters(value.Scalar(), key == "description"))
    fail(value.Mark(), "'" + std::string(key) + "' holds a control character");
  return value.Scalar();
}

long FieldReader::integer(const YAML::Node& value, std::string_view key, long min, long max) const {
  if (!value.IsScalar())
    fail(value.Mark(),
         "'" + std::string(key) + "' must be an integer, got " + node_type_name(value));
  const std::string& s = value.Scalar();
  long result = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), result);
  if (ec != std::errc() || end != s.data() + s.size())
    fail(value.Mark(), "'" + std::string(key) + "' must be an integer, got '" + s + "'");
  if (result < min || result > max)
    fail(value.Mark(), "'" + std::string(key) + "' must be from " + std::to_string(min) + " to " +
                           std::to_string(max) + ", got " + s);
  return result;
}

bool FieldReader::boolean(const YAML::Node& value, std::string_view key) const {
  const std::string s = value.IsScalar() ? lower(value.Scalar()) : std::string();
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail(value.Mark(),
       "'" + std::string(key) + "' must be true or false, got " + node_type_name(value));
}

double FieldReader::fraction(const YAML::Node& value, std::string_view key) const {
  const double v = quantity(value, key, kNumber, Bound::kPositive);
  if (v > 1.0)
    fail(value.Mark(), "'" + std::string(key) + "' must be in (0, 1], got " + value.Scalar());
  return v;
}

double FieldReader::quantity(const YAML::Node& value, std::string_view key, const Quantity& q,
                             Bound bound, double max) const {
  const std::string k = "'" + std::string(key) + "'";
  const char* sign = bound == Bound::kPositive ? "positive" : "zero or positive";
  if (!value.IsScalar())
    fail(value.Mark(),
         k + " must be " + q.noun + " such as " + q.example + ", got " + node_type_name(value));
  const std::string& s = value.Scalar();
  const std::string l = lower(s);
  if (l.find("nan") != std::string::npos || l.find("inf") != std::string::npos)
    fail(value.Mark(), k + " must be a finite " + sign + " number, got '" + s + "'");
  // The unit parsers refuse negatives; say so rather than "bad unit".
  const char* begin = s.c_str();
  char* end = nullptr;
  const double leading = std::strtod(begin, &end);
  if (end != begin && leading < 0) fail(value.Mark(), k + " must be " + sign + ", got '" + s + "'");
  const std::optional<double> parsed = q.parse(s);
  if (!parsed)
    fail(value.Mark(), k + " must be " + q.noun + " such as " + q.example + ", got '" + s + "'");
  if (!std::isfinite(*parsed))
    fail(value.Mark(), k + " must be a finite " + sign + " number, got '" + s + "'");
  if (bound == Bound::kPositive && !(*parsed > 0))
    fail(value.Mark(), k + " must be positive, got '" + s + "'");
  if (*parsed > q.max)
    fail(value.Mark(), k + " must be at most " + q.max_text + ", got '" + s + "'");
  if (*parsed > max) {
    char most[32];
    std::snprintf(most, sizeof most, "%.15g", max);
    fail(value.Mark(), k + " must be at most " + most + ", got '" + s + "'");
  }
  return *parsed;
}

double FieldReader::scalar(ParameterUnit unit, const YAML::Node& value, std::string_view key,
                           double min, double max, bool zero_allowed) const {
  switch (unit) {
    case ParameterUnit::kCount:
      return static_cast<double>(
          integer(value, key, static_cast<long>(min), static_cast<long>(max)));
    case ParameterUnit::kFraction:
      return fraction(value, key);
    case ParameterUnit::kFlag:
      return boolean(value, key) ? 1.0 : 0.0;
    default:
      return quantity(value, key, quantity_of(unit),
                      zero_allowed ? Bound::kNonNegative : Bound::kPositive, max);
  }
}

std::vector<MemoryPassRate> FieldReader::size_rates(const YAML::Node& list, std::string_view key,
                                                    std::string_view size_key,
                                                    const std::string& what) const {
  const std::string k(key), size(size_key);
  if (!list.IsSequence())
    fail(list.Mark(), "'" + k + "' must be a list such as [{" + size +
                          ": 8MB, bandwidth: 30GB/s}], got " + node_type_name(list));
  const std::string_view item_keys[] = {size_key, "bandwidth"};
  std::vector<MemoryPassRate> rates;
  for (const YAML::Node& item : list) {
    check_map(item, item_keys, "an entry of " + k + " of " + what);
    MemoryPassRate rate;
    rate.working_set_bytes =
        quantity(required(item, size.c_str(), k + " entry"), size, kSize, Bound::kPositive);
    rate.bytes_per_s = quantity(required(item, "bandwidth", k + " entry"), "bandwidth", kBandwidth,
                                Bound::kPositive);
    if (!rates.empty() && rate.working_set_bytes <= rates.back().working_set_bytes)
      fail(item.Mark(),
           k + " of " + what + " must list increasing " + size + " values, one rate each");
    rates.push_back(rate);
  }
  return rates;
}

std::vector<GemmRate> FieldReader::gemm_rates(const YAML::Node& list,
                                              const std::string& what) const {
  if (!list.IsSequence())
    fail(list.Mark(), "'sgemm_rates' must be a list such as [{n: 1024, rate: 35TFLOPS}], got " +
                          node_type_name(list));
  constexpr std::string_view kItemKeys[] = {"n", "rate"};
  std::vector<GemmRate> rates;
  for (const YAML::Node& item : list) {
    check_map(item, kItemKeys, "an entry of sgemm_rates of " + what);
    GemmRate rate;
    rate.n =
        static_cast<double>(integer(required(item, "n", "sgemm_rates entry"), "n", 1, 1 << 20));
    rate.flops_per_s = quantity(required(item, "rate", "sgemm_rates entry"), "rate", kComputeRate,
                                Bound::kPositive);
    if (!rates.empty() && rate.n <= rates.back().n)
      fail(item.Mark(), "sgemm_rates of " + what + " must list increasing n values, one rate each");
    rates.push_back(rate);
  }
  return rates;
}

std::vector<double> FieldReader::core_speeds(const YAML::Node& list, std::string_view key,
                                             const std::string& what, int cores) const {
  const std::string k(key);
  if (!list.IsSequence())
    fail(list.Mark(), "'" + k + "' must be a list of one speed factor per core such as " +
                          "[1.1, 0.9], got " + node_type_name(list));
  std::vector<double> speeds;
  for (const YAML::Node& item : list)
    speeds.push_back(quantity(item, key, kNumber, Bound::kPositive, kMaxCoreSpeed));
  if (speeds.size() > static_cast<std::size_t>(cores))
    fail(list.Mark(), "'" + k + "' of " + what + " lists " + std::to_string(speeds.size()) +
                          " speeds for " + std::to_string(cores) + " cores");
  return speeds;
}

}  // namespace opsim::topology_yaml
