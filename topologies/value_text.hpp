// A parameter's value as a topology file writes it: the shortest text, with a unit where one
// is exact, that parses back to the identical double.
#pragma once

#include <string>

#include "hw_models/parameter_table.hpp"

namespace opsim::topology_yaml {

/// "16000000000" style: the shortest decimal that reads back exactly.
std::string shortest(double value);

/// `value` in `unit` (a scalar unit; a flag: true or false, a count: the integer).
std::string value_text(ParameterUnit unit, double value);

std::string bandwidth_text(double v);
std::string size_text(double v);
std::string duration_text(double v);
std::string rate_text(double v);
std::string number_text(double v);

}  // namespace opsim::topology_yaml
