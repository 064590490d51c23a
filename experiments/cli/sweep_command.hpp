// `opsim sweep SPEC`: a grid of strategies x sizes x GPU counts x topologies, one process
// per simulation, to CSV. The spec is YAML:
//
//   topologies: [pcie-switch-4gpu, nvlink-ring:8]
//   strategies: [tree, cpu, split, ring]
//   bytes: [16MB, 160MB]
//   gpus: [2, 4]          # optional; default: all GPUs of each topology
//   comm_only: true       # optional; default false
#pragma once

#include <string>

#include "experiments/cli/command.hpp"

namespace opsim {

struct SweepOptions {
  std::string spec_path;
  std::string out_path;  ///< empty: stdout
  unsigned parallel = 2;
};

int run_sweep(const SweepOptions& options);

/// Adds `opsim sweep` and its options to `opsim`.
Command register_sweep_command(CLI::App& opsim);

}  // namespace opsim
