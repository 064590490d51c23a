// The one exception type for bad user input. Its message is a single line naming the
// file, the place in it and what is wrong; the CLI prints it and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace opsim {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& one_line_message) : std::runtime_error(one_line_message) {}
};

}  // namespace opsim
