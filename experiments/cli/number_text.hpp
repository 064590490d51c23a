// Numbers as the commands print them: fixed decimals in tables, non-finite values as JSON null.
#pragma once

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace opsim {

/// `value` with `digits` decimals ("%.*f").
inline std::string fixed_text(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

/// `value` as a JSON number, or null when it is not finite (JSON has no NaN or infinity).
inline nlohmann::json json_finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace opsim
