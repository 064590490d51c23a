#include "gui/json_fields.hpp"

#include "common/input_error.hpp"

namespace opsim::gui {

double json_number_or(const nlohmann::json& j, const char* key, double fallback, const char* what) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number()) {
    throw InputError(std::string(what) + ": \"" + key + "\" is not a number");
  }
  return it->get<double>();
}

std::string json_string_or_empty(const nlohmann::json& j, const char* key, const char* what) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (!it->is_string()) {
    throw InputError(std::string(what) + ": \"" + key + "\" is not a string");
  }
  return it->get<std::string>();
}

}  // namespace opsim::gui
