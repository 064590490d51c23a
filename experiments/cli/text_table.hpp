// Plain-text tables for the terminal: columns sized to their widest cell, numbers right-aligned.
#pragma once

#include <string>
#include <vector>

namespace opsim {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::vector<bool> right_aligned = {});
  void add_row(std::vector<std::string> cells);
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

/// A number for CSV output: 10 significant digits, no trailing noise ("0.06", "1.6e+08").
std::string number(double value);

/// Display width of UTF-8 text (counts code points, not bytes).
std::size_t display_width(const std::string& text);

}  // namespace opsim
