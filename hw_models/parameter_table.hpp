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

// Upper bounds of the quantities, one per unit: every row of that unit, every entry of a list
// of rates, and the device types' own keys (an HDD's or an Ethernet link's `bandwidth`) are
// refused beyond them. Each lies about 100x beyond the fastest hardware built today, so no real
// machine is refused, while a typo such as 1e30 is; and a simulation's times stay far from
// what SimGrid's solver and int64 nanoseconds can represent.

/// 1 PB/s: an HBM3e GPU's memory moves 8e12 B/s, NVLink 5 1.8e12 B/s per GPU.
inline constexpr double kMaxBytesPerS = 1e15;
/// 1e18 flop/s on one device: an H100's dense fp16 tensor-core peak is about 1e15.
inline constexpr double kMaxFlopsPerS = 1e18;
/// 100 GHz: CPU clocks are 2 to 6 GHz.
inline constexpr double kMaxHz = 1e11;
/// 1e9 requests per second: an NVMe SSD serves 1e6 to 1e7 random reads per second.
inline constexpr double kMaxIops = 1e9;
/// 2^53 bytes (9 PB), the largest byte count a double holds exactly, as in a workload.
inline constexpr double kMaxBytes = 9007199254740992.0;
/// A core's speed factor (core_pass_speeds, ...) at most 100 times the mean core's: cores of
/// one CPU differ by a few times at most.
inline constexpr double kMaxCoreSpeed = 100;

/// The upper bound of `unit` above; infinity for units without one (durations, plain
/// numbers: a row sets its own `max`).
constexpr double unit_upper_bound(ParameterUnit unit) {
  switch (unit) {
    case ParameterUnit::kBandwidth:
      return kMaxBytesPerS;
    case ParameterUnit::kComputeRate:
      return kMaxFlopsPerS;
    case ParameterUnit::kClock:
      return kMaxHz;
    case ParameterUnit::kSize:
      return kMaxBytes;
    default:
      return std::numeric_limits<double>::infinity();
  }
}

template <typename Model>
struct ParameterRow {
  std::string_view key;  ///< YAML key, and the FIELD of `--set NAME.FIELD=VALUE`
  ParameterMember<Model> member;
  ParameterUnit unit;
  /// Smallest and largest valid value (a count's range; a quantity's upper bound, at most
  /// its unit's unit_upper_bound() whatever `max` says). A quantity must be positive unless
  /// zero_allowed (then zero or positive; zero then means "off" or "none").
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
