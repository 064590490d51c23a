// Reading one field of a topology file: the checks and the one-line errors every key shares
// ("SOURCE:LINE:COL: 'key' must be ..."), and a model's parameters read by its table. Used by
// the topology reader and by `--set` (parameter_text.hpp), which reads a value as YAML too.
#pragma once

#include <yaml-cpp/yaml.h>

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "hw_models/model_parameters.hpp"

namespace opsim::topology_yaml {

using Keys = std::span<const std::string_view>;

bool contains(Keys keys, std::string_view key);
std::string node_type_name(const YAML::Node& node);

/// What a quantity field holds: its parser, its upper bound, and how an error describes them.
struct Quantity {
  std::optional<double> (*parse)(std::string_view);
  const char* noun;      // "a bandwidth"
  const char* example;   // "'16GB/s', '10Gbit/s' or bytes per second"
  double max;            // the unit's upper bound (unit_upper_bound in parameter_table.hpp)
  const char* max_text;  // max as a file writes it: "1PB/s"
};
extern const Quantity kBandwidth, kDuration, kSize, kComputeRate, kClock, kNumber;
std::optional<double> parse_hz(std::string_view text);
std::optional<double> parse_plain(std::string_view text);

enum class Bound { kPositive, kNonNegative };

class FieldReader {
 public:
  /// `source` starts every message; without `with_place` marks are left out (a `--set`).
  explicit FieldReader(std::string source, bool with_place = true)
      : source_(std::move(source)), with_place_(with_place) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what) const;
  /// Checks `node` is a map whose keys are unique and all in `allowed`.
  void check_map(const YAML::Node& node, Keys allowed, const std::string& what) const;
  YAML::Node required(const YAML::Node& map, const char* key, const std::string& what) const;
  std::string text(const YAML::Node& value, std::string_view key) const;
  long integer(const YAML::Node& value, std::string_view key, long min, long max) const;
  bool boolean(const YAML::Node& value, std::string_view key) const;
  double fraction(const YAML::Node& value, std::string_view key) const;
  /// A finite number of `q`'s unit, positive (or zero), at most `q.max` and at most `max`.
  double quantity(const YAML::Node& value, std::string_view key, const Quantity& q, Bound bound,
                  double max = std::numeric_limits<double>::infinity()) const;
  /// Calls `set` with map[key] when present.
  template <typename Setter>
  void optional(const YAML::Node& map, std::string_view key, Setter&& set) const {
    if (YAML::Node value = map[std::string(key)]) set(value);
  }

  /// Reads `value` into `row` of `model`; `what` names the owner ("device 'cpu0'") and
  /// `cores` bounds rows bounded_by_cores.
  template <typename Model>
  void read(std::span<const ParameterRow<Model>> rows, const ParameterRow<Model>& row,
            const YAML::Node& value, Model& model, const std::string& what, int cores = 0) const;

  /// Reads every row of `rows` present in `map`, in table order.
  template <typename Model>
  void read_all(std::span<const ParameterRow<Model>> rows, const YAML::Node& map, Model& model,
                const std::string& what, int cores = 0) const {
    for (const ParameterRow<Model>& row : rows)
      optional(map, row.key, [&](const YAML::Node& v) { read(rows, row, v, model, what, cores); });
  }

 private:
  double scalar(ParameterUnit unit, const YAML::Node& value, std::string_view key, double min,
                double max, bool zero_allowed) const;
  std::vector<MemoryPassRate> size_rates(const YAML::Node& list, std::string_view key,
                                         std::string_view size_key, const std::string& what) const;
  std::vector<GemmRate> gemm_rates(const YAML::Node& list, const std::string& what) const;
  std::vector<double> core_speeds(const YAML::Node& list, std::string_view key,
                                  const std::string& what, int cores) const;

  std::string source_;
  bool with_place_ = true;
};

template <typename Model>
void FieldReader::read(std::span<const ParameterRow<Model>> rows, const ParameterRow<Model>& row,
                       const YAML::Node& value, Model& model, const std::string& what,
                       int cores) const {
  const std::string key(row.key);
  if (!row.requires_flag.empty()) {
    const ParameterRow<Model>* flag = find_parameter(rows, row.requires_flag);
    if (flag != nullptr && scalar_value(*flag, model) == 0)
      fail(value.Mark(), "key '" + key + "' applies only to " + std::string(row.flag_holders));
  }
  std::visit(
      [&](auto member) {
        using Member = decltype(member);
        if constexpr (std::is_same_v<Member, std::vector<MemoryPassRate> Model::*>) {
          model.*member = size_rates(value, key, row.item_size_key, what);
        } else if constexpr (std::is_same_v<Member, std::vector<GemmRate> Model::*>) {
          model.*member = gemm_rates(value, what);
        } else if constexpr (std::is_same_v<Member, std::vector<double> Model::*>) {
          model.*member = core_speeds(value, key, what, cores);
        } else {
          const double v = scalar(row.unit, value, key, row.min, row.max, row.zero_allowed);
          if (row.bounded_by_cores && v > cores)
            fail(value.Mark(), "'" + key + "' must be at most the CPU's cores (" +
                                   std::to_string(cores) + "), got " + value.Scalar());
          model.*member = static_cast<std::remove_reference_t<decltype(model.*member)>>(v);
        }
      },
      row.member);
}

}  // namespace opsim::topology_yaml
