// `opsim plot RESULTS.csv`: a sweep's results (or any CSV with a numeric column) as line
// charts in a PNG or SVG image, drawn with Qt Charts offscreen (gui/sweep_chart.hpp).
//
//   opsim plot rings.csv --x bytes --y makespan_s --series strategy --out rings.png
//   opsim plot rings.csv --x gpus                   # one chart per metric that varies
//
// `opsim sweep SPEC --plot FILE` calls run_plot() on its output once the sweep is done.
#pragma once

#include <string>
#include <vector>

#include "experiments/cli/command.hpp"

namespace opsim {

struct PlotOptions {
  std::string csv_path;
  std::string out_path;        ///< .png or .svg; empty: the CSV's path with .png
  std::string x;               ///< empty: the first of bytes, gpus, ... that is numeric and varies
  std::vector<std::string> y;  ///< empty: every metric that varies, one chart each
  std::string series;          ///< empty: strategy, algorithm, op or topology
  std::vector<std::string> where;  ///< "COLUMN=VALUE" filters
  std::string title;               ///< empty: "Y vs X — FILE"
  int width_px = 1600;
  int height_px = 1000;
  bool quiet = false;  ///< no "wrote ..." line
};

/// Throws InputError unless the options can work: the image type, the size, an output that
/// can be written. `sweep --plot` calls it before the sweep, so that a bad name is refused
/// before the work; run_plot() calls it too.
void check_plot_options(const PlotOptions& options);

/// Plots `options.csv_path` into `options.out_path`, written atomically. Throws InputError
/// (one line) for bad input: a missing column, a non-numeric x, an empty CSV, an output that
/// cannot be written or has an unknown extension, a build without the GUI. Returns 0.
int run_plot(const PlotOptions& options);

/// Adds `opsim plot` and its options to `opsim`.
Command register_plot_command(CLI::App& opsim);

}  // namespace opsim
