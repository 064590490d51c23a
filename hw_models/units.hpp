// Units used across opsim. Sizes are double bytes, rates are double bytes_per_s or
// flops_per_s, durations are double seconds in models and integer nanoseconds (TimeNs)
// in traces, so that the same input gives a byte-identical trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace opsim {

using TimeNs = std::int64_t;

inline constexpr double kNsPerSecond = 1e9;

/// Rounds seconds to the nearest integer nanosecond.
TimeNs seconds_to_ns(double seconds);
inline double ns_to_seconds(TimeNs ns) { return static_cast<double>(ns) / kNsPerSecond; }

/// Parses a size: "160MB", "1GiB", "4 KiB", "512" (plain bytes), "1.5e9". SI prefixes are
/// powers of 1000, binary ones (KiB, MiB, GiB, TiB) powers of 1024. Returns nullopt on
/// anything else, including negative or non-finite values.
std::optional<double> parse_bytes(std::string_view text);

/// Parses a bandwidth: "16GB/s", "25 GB/s", "10Gbit/s", "100Gb/s" (bits), "900e9" (bytes/s).
std::optional<double> parse_bytes_per_s(std::string_view text);

/// Parses a duration: "8ms", "100ns", "1.5us", "2 s", "0.001" (seconds).
std::optional<double> parse_seconds(std::string_view text);

/// Parses a compute rate: "15.7TFLOPS", "125 TFLOP/s", "3e12" (flops per second).
std::optional<double> parse_flops_per_s(std::string_view text);

/// Parses a plain count with optional SI suffix: "1e12", "2G", "5M" (used for flops amounts).
std::optional<double> parse_count(std::string_view text);

/// "160 MB", "1.5 GB": SI, three significant digits.
std::string format_bytes(double bytes);
/// "60.000 ms", "5.19 us": picks the unit.
std::string format_seconds(double seconds);
/// "16 GB/s".
std::string format_bytes_per_s(double bytes_per_s);

}  // namespace opsim
