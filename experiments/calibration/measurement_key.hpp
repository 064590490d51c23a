// A calibration measurement by typed id (hw_models/measurement_id.hpp) and the size or the
// core it is taken at; its display and JSON name ("gemm 512 x1 thread"), unit and group are
// derived from the id, never looked up as text.
//
//   MeasurementKey key{MeasurementId::kGemmOneThread, 512};
//   measurement_name(key);  // "gemm 512 x1 thread"
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "hw_models/measurement_id.hpp"

namespace opsim::calibration {

struct MeasurementKey {
  MeasurementId id = MeasurementId::kNone;
  std::size_t size = 0;  ///< a GEMM's side n or a pass's or copy's bytes, where the kind has one
  int count = 0;         ///< threads (kGemmAllThreads) or the core (kCoreSpeed*)

  bool operator==(const MeasurementKey&) const = default;
};

/// "gemm 512 x1 thread", "memcpy 96 MiB", "disk random 4KiB read", ...
std::string measurement_name(const MeasurementKey& key);
/// "flop/s", "bytes/s", "s", "fraction" or "cores".
std::string_view measurement_unit(MeasurementId id);
/// The group CalibrationOptions::only selects it by: "gemm", "elementwise", "memcpy",
/// "dram", "disk", "host dispatch" or "gpu".
std::string_view measurement_group(MeasurementId id);

}  // namespace opsim::calibration
