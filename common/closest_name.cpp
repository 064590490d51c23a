#include "common/closest_name.hpp"

#include <algorithm>
#include <cstdint>

#include "common/edit_distance.hpp"

namespace opsim {

std::optional<std::string_view> closest_name(std::string_view got,
                                             std::span<const std::string_view> valid) {
  std::string_view best;
  std::size_t best_distance = SIZE_MAX;
  for (std::string_view v : valid) {
    const std::size_t d = edit_distance(got, v);
    if (d < best_distance) best_distance = d, best = v;
  }
  if (best_distance <= std::max<std::size_t>(2, got.size() / 3)) return best;
  // A prefix of a longer key ("launch" of "launch_latency") is as clear a hint.
  if (got.size() >= 3)
    for (std::string_view v : valid)
      if (v.starts_with(got)) return v;
  return std::nullopt;
}

std::string name_suggestion(std::string_view got, std::span<const std::string_view> valid) {
  if (auto best = closest_name(got, valid)) return "(did you mean '" + std::string(*best) + "'?)";
  return "(valid: " + join_names(valid) + ")";
}

std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace opsim
