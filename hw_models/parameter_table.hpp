// One row per measured hardware parameter: where it lives in its model, the key that names
// it in topology files and `opsim compare --set`, its unit and valid range, what it means,
// and which calibration measurement sets it. Reading, writing, comparing, editing and
// calibrating a model all iterate its table (cpu_parameters.hpp and its siblings), so adding
// a parameter is one row.
//
//   for (const CpuParameter& row : cpu_parameters())
//     std::cout << row.key << ": " << row.doc << '\n';
#pragma once

#include <limits>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "hw_models/cpu_model.hpp"
#include "hw_models/gpu_model.hpp"
#include "hw_models/measurement_id.hpp"

namespace opsim {

/// How a parameter's value is written and read back.
enum class ParameterUnit {
  kBandwidth,    ///< bytes per second: "16GB/s", "10Gbit/s"
  kDuration,     ///< seconds: "100ns", "8ms"
  kSize,         ///< bytes: "16GB", "512MiB"
  kComputeRate,  ///< flops per second: "15.7TFLOPS"
  kClock,        ///< Hz: "3.0GHz"
  kCount,        ///< an integer
  kFraction,     ///< a number in (0, 1]
  kNumber,       ///< a plain number: "7200", "500k"
  kFlag,         ///< true or false
  kSizeRates,    ///< a list [{SIZE_KEY: 8MB, bandwidth: 30GB/s}], increasing sizes
  kGemmRates,    ///< a list [{n: 1024, rate: 35TFLOPS}], increasing n
  kCoreSpeeds,   ///< a list of one speed factor per core: [1.1, 0.9]
};

/// Where a row's value lives in `Model`; the unit says which alternative a row holds.
template <typename Model>
using ParameterMember =
    std::variant<double Model::*, int Model::*, bool Model::*, std::vector<MemoryPassRate> Model::*,
                 std::vector<GemmRate> Model::*, std::vector<double> Model::*>;

inline constexpr double kNoWrittenDefault = std::numeric_limits<double>::quiet_NaN();

template <typename Model>
struct ParameterRow {
  std::string_view key;  ///< YAML key, and the FIELD of `--set NAME.FIELD=VALUE`
  ParameterMember<Model> member;
  ParameterUnit unit;
  /// Smallest and largest valid value (a count's range; a quantity's upper bound). A
  /// quantity must be positive unless zero_allowed (then zero or positive).
  double min = 0;
  double max = std::numeric_limits<double>::infinity();
  bool zero_allowed = false;
  std::string_view doc;  ///< one line: what the figure is
  MeasurementId measured_by = MeasurementId::kNone;
  /// Written to a topology file only when the value differs from this (the model's default,
  /// which then means "off"); NaN: always written. Lists are written when not empty.
  double written_unless = kNoWrittenDefault;
  /// kSizeRates: the key of each entry's size ("working_set" or "bytes").
  std::string_view item_size_key = {};
  /// At most the CPU's cores: the value, or a list's entries (CpuModel rows only).
  bool bounded_by_cores = false;
  /// The key of a kFlag row of the same model that must be true for this one to be set, and
  /// what the models with it true are called ("full-duplex links").
  std::string_view requires_flag = {};
  std::string_view flag_holders = {};
};

/// The row whose key is `key` in `rows`; nullptr when none.
template <typename Model>
const ParameterRow<Model>* find_parameter(std::span<const ParameterRow<Model>> rows,
                                          std::string_view key) {
  for (const ParameterRow<Model>& row : rows)
    if (row.key == key) return &row;
  return nullptr;
}

/// A scalar row's value as a double (a flag: 0 or 1); lists have none.
template <typename Model>
double scalar_value(const ParameterRow<Model>& row, const Model& model) {
  if (auto m = std::get_if<double Model::*>(&row.member)) return model.**m;
  if (auto m = std::get_if<int Model::*>(&row.member)) return model.**m;
  if (auto m = std::get_if<bool Model::*>(&row.member)) return model.**m ? 1.0 : 0.0;
  return 0;
}

/// Sets a scalar row's value (a count is a whole number already checked in range).
template <typename Model>
void set_scalar_value(const ParameterRow<Model>& row, Model& model, double value) {
  if (auto m = std::get_if<double Model::*>(&row.member)) model.** m = value;
  if (auto m = std::get_if<int Model::*>(&row.member)) model.** m = static_cast<int>(value);
  if (auto m = std::get_if<bool Model::*>(&row.member)) model.** m = value != 0;
}

/// Whether `row` holds the same value in `a` and `b` (lists entry by entry).
template <typename Model>
bool same_value(const ParameterRow<Model>& row, const Model& a, const Model& b) {
  return std::visit(
      [&](auto member) {
        if constexpr (std::is_same_v<decltype(member), std::vector<MemoryPassRate> Model::*>) {
          const auto &x = a.*member, &y = b.*member;
          if (x.size() != y.size()) return false;
          for (std::size_t i = 0; i < x.size(); ++i)
            if (x[i].working_set_bytes != y[i].working_set_bytes ||
                x[i].bytes_per_s != y[i].bytes_per_s)
              return false;
          return true;
        } else if constexpr (std::is_same_v<decltype(member), std::vector<GemmRate> Model::*>) {
          const auto &x = a.*member, &y = b.*member;
          if (x.size() != y.size()) return false;
          for (std::size_t i = 0; i < x.size(); ++i)
            if (x[i].n != y[i].n || x[i].flops_per_s != y[i].flops_per_s) return false;
          return true;
        } else {
          return a.*member == b.*member;
        }
      },
      row.member);
}

/// Whether a row holds a list (kSizeRates, kGemmRates, kCoreSpeeds).
inline bool is_list(ParameterUnit unit) {
  return unit == ParameterUnit::kSizeRates || unit == ParameterUnit::kGemmRates ||
         unit == ParameterUnit::kCoreSpeeds;
}

}  // namespace opsim
