// `opsim compare`: the main job. Simulates each gradient-sync strategy on a topology, each
// in its own process, and prints a table, JSON or CSV; optionally writes traces.
#pragma once

#include <string>
#include <vector>

#include "experiments/cli/command.hpp"
#include "experiments/cli/strategy_run.hpp"

namespace opsim {

struct CompareOptions {
  std::string topology = "pcie-switch-4gpu";
  std::vector<std::string> strategies = {"tree", "cpu", "split", "ring"};
  double bytes = 160e6;
  int gpus = 0;
  bool comm_only = false;
  std::string format = "table";  ///< table | json | csv
  std::string trace_dir;         ///< write <strategy>.json (and .csv) here
  std::string png_path;          ///< render the timelines to a PNG (needs the GUI library)
  WhatIf what_if;
  unsigned parallel = 2;
};

/// Runs the comparison and prints it to stdout. Returns the process exit code.
int run_compare(const CompareOptions& options);

/// Adds `opsim compare` and its options to `opsim`.
Command register_compare_command(CLI::App& opsim);

}  // namespace opsim
