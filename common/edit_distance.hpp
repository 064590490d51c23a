// Levenshtein distance, for "did you mean ...?" hints in input errors.
#pragma once

#include <cstddef>
#include <string_view>

namespace opsim {

/// Insertions, deletions and substitutions that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace opsim
