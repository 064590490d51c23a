// The one exception type for bad user input. Its message is a single line naming the
// file, the place in it and what is wrong; the CLI prints it and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace opsim {

class InputError : public std::runtime_error {
 public:
  /// Line breaks in the message (a name quoted from the file may hold one) become spaces:
  /// the message stays one line wherever it is printed.
  explicit InputError(const std::string& one_line_message)
      : std::runtime_error(on_one_line(one_line_message)) {}

 private:
  static std::string on_one_line(std::string text) {
    for (char& c : text)
      if (c == '\n' || c == '\r') c = ' ';
    return text;
  }
};

}  // namespace opsim
