// JSON from a user's file, checked as strictly as the rest of opsim's input: a syntax error
// or a number out of double's range names its line and column, a key given twice in one
// object names its place (e.g. "ops[3]"), and no nlohmann message reaches the user raw.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace opsim {

/// Parses `text`; on bad input throws InputError "SOURCE:LINE:COL: invalid JSON: ..." or
/// "SOURCE: <path>: key 'k' appears twice".
nlohmann::json parse_json_input(std::string_view text, std::string_view source);

/// "LINE:COL" of byte offset `byte` in `text` (1-based).
std::string line_and_column(std::string_view text, std::size_t byte);

}  // namespace opsim
