// A one-line progress bar on stderr ("[#####     ] 12/40 sims, 3.1 s"), redrawn in place
// when stderr is a terminal. Otherwise it draws nothing: a script reading stderr finds only
// errors there, one line each.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace opsim {

class ProgressBar {
 public:
  ProgressBar(std::size_t total, std::string unit);
  void advance(std::size_t by = 1);
  void finish();

 private:
  void draw();
  std::size_t total_;
  std::size_t done_ = 0;
  std::string unit_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace opsim
