#include "experiments/cli/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>

namespace opsim {

ProgressBar::ProgressBar(std::size_t total, std::string unit)
    : total_(total),
      unit_(std::move(unit)),
      terminal_(::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::advance(std::size_t by) {
  done_ += by;
  draw();
}

void ProgressBar::draw() {
  if (!terminal_) return;
  const double fraction =
      total_ == 0 ? 1.0 : static_cast<double>(done_) / static_cast<double>(total_);
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, ' ');
  std::fprintf(stderr, "\r[%s] %zu/%zu %s, %.1f s", bar.c_str(), done_, total_, unit_.c_str(),
               elapsed_s);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (terminal_) std::fputc('\n', stderr);
}

}  // namespace opsim
