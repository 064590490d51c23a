// Optional fields of the JSON the CLI prints, read with the one-line errors of every JSON
// input: "WHAT: "KEY" is not a number".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace opsim::gui {

/// The number under `key`, or `fallback` when it is absent or null; throws opsim::InputError
/// ("WHAT: \"KEY\" is not a number") when it is something else.
double json_number_or(const nlohmann::json& object, const char* key, double fallback,
                      const char* what);
/// The string under `key`, or empty when it is absent or null; throws opsim::InputError when
/// it is something else.
std::string json_string_or_empty(const nlohmann::json& object, const char* key, const char* what);

}  // namespace opsim::gui
