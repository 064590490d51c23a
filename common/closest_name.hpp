// "Did you mean ...?" for a mistyped name: the closest of the valid names by edit distance,
// when it is close enough to be the likely intent.
//
//   name_suggestion("launch", {"launch_latency", "fp32_peak"})  // "(did you mean
//   'launch_latency'?)"
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace opsim {

/// The name in `valid` closest to `got`, when within max(2, |got| / 3) edits or when `got`
/// is the start of it (an old short name of a longer key); nullopt otherwise.
std::optional<std::string_view> closest_name(std::string_view got,
                                             std::span<const std::string_view> valid);

/// "(did you mean 'x'?)" for a close match, else "(valid: a, b, c)".
std::string name_suggestion(std::string_view got, std::span<const std::string_view> valid);

/// "a, b, c".
std::string join_names(std::span<const std::string_view> names);

}  // namespace opsim
