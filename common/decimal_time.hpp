// Chrome trace timestamps as written in the JSON text ("4458676522690.655", "1.5e3"):
// microseconds, converted to integer nanoseconds from the decimal text exactly (a double
// holds only about 0.25 µs of precision at today's epoch microseconds).
//
//   decimal_us_to_ns("1.0005") == 1001   // rounded half away from zero below 1 ns
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace opsim {

/// Magnitudes at or above this many nanoseconds (2^62, about 146 years) are refused.
inline constexpr std::int64_t kMostDecimalNs = std::int64_t{1} << 62;

/// `text`, a JSON number in microseconds, as integer nanoseconds, rounded half away from
/// zero at the first dropped digit. Nothing when it is not a number or its magnitude reaches
/// kMostDecimalNs.
std::optional<std::int64_t> decimal_us_to_ns(std::string_view text);

}  // namespace opsim
