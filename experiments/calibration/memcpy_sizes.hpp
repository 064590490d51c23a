// The copy sizes calibrate measures memcpy at, and the one size where glibc's memcpy changes
// regime on x86: above `glibc.cpu.x86_non_temporal_threshold` it writes with non-temporal
// stores, below it through the cache, and a copy that misses the cache runs at a different
// rate on each side (7.3 GB/s at 96 MiB against 11.7 at 128 MiB on one host whose threshold
// was 99 MiB). Interpolating across the step mispredicts the copies between grid points, so
// the grid gets a point just below and one just above the threshold.
//
//   std::optional<std::uint64_t> t = memcpy_non_temporal_threshold_bytes();  // 127 MiB here
//   std::vector<std::size_t> sizes = memcpy_calibration_sizes(128u << 20, t);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsim::calibration {

/// How far below and above the threshold the two extra sizes lie: past any rounding of the
/// comparison (glibc compares the length with the threshold itself), well inside a regime.
inline constexpr std::uint64_t kThresholdMarginBytes = 64u << 10;

/// The threshold's value in the output of `ld.so --list-tunables` (glibc 2.33 and later),
/// e.g. "glibc.cpu.x86_non_temporal_threshold: 0x7f00000 (min: 0x4040, max: ...)"; nullopt
/// where the line is absent or unreadable.
std::optional<std::uint64_t> parse_non_temporal_threshold(std::string_view list_tunables);

/// This process's threshold, asked of its own dynamic loader (which applies GLIBC_TUNABLES
/// from the environment as this process did); nullopt off glibc, off x86, or before 2.33.
std::optional<std::uint64_t> memcpy_non_temporal_threshold_bytes();

/// One-stream memcpy sizes below `largest_bytes` (which calibrate measures on its own):
/// 8, 32, 64 and 96 MiB where smaller, and with a threshold strictly between the smallest
/// of those and `largest_bytes`, the threshold minus and plus kThresholdMarginBytes in place
/// of any grid size within 1 MiB of it. Increasing.
std::vector<std::size_t> memcpy_calibration_sizes(std::size_t largest_bytes,
                                                  std::optional<std::uint64_t> threshold_bytes);

/// "memcpy 96 MiB", or with two decimals where the size is not whole MiB ("memcpy 126.94 MiB");
/// for several streams copying at once "memcpy 2 streams 96 MiB".
std::string memcpy_measurement_name(std::size_t bytes, int streams = 1);

}  // namespace opsim::calibration
