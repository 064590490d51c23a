// `opsim sim WORKLOAD --topology X --trace FILE`: simulate a workload file.
#pragma once

#include <string>

#include "experiments/cli/command.hpp"
#include "experiments/cli/what_if.hpp"

namespace opsim {

struct SimCommandOptions {
  std::string workload_path;
  std::string topology;    ///< empty: the workload's own "topology"
  std::string trace_path;  ///< Chrome trace
  std::string csv_path;    ///< per-op CSV
  std::string dot_path;    ///< GraphViz of the op graph
  std::string format = "table";
  unsigned max_in_flight = 0;
  WhatIf what_if;
};

int run_sim_command(const SimCommandOptions& options);

/// Adds `opsim sim` and its options to `opsim`.
Command register_sim_command(CLI::App& opsim);

}  // namespace opsim
