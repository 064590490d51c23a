// `opsim experiment NAME --backend real|sim`: the book's experiments (async, cpu-gpu,
// compute-copy, mlp-memory, data-parallel), one program run for real or simulated.
#pragma once

#include <string>

#include "experiments/cli/command.hpp"

namespace opsim {

struct ExperimentCommandOptions {
  std::string name;
  std::string backend = "real";
  std::string topology;  ///< sim: preset, family or file; empty: a default per experiment
  std::string format = "table";
  std::string trace_dir;
  unsigned window = 0;
  int repeats = 1;
};

int run_experiment_command(const ExperimentCommandOptions& options);

/// Adds `opsim experiment` and its options to `opsim`.
Command register_experiment_command(CLI::App& opsim);

}  // namespace opsim
