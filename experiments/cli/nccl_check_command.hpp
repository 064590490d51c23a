// `opsim nccl-check`: opsim against published nccl-tests tables, size by size. Each table
// (experiments/nccl-reference/*.csv with its .yaml) is simulated at every size it prints, each
// size in its own process, and compared: time and busbw errors per size, and per table the
// accuracy goal of issue #27 (nccl_comparison.hpp). Exits 0 whether or not the goal is met:
// the goal is a report, not an exit code.
#pragma once

#include <string>
#include <vector>

#include "experiments/cli/command.hpp"
#include "experiments/cli/what_if.hpp"

namespace opsim {

struct NcclCheckOptions {
  std::vector<std::string> paths;  ///< tables or directories; empty: experiments/nccl-reference
  std::string format = "table";    ///< table | json | csv
  unsigned parallel = 2;
  WhatIf what_if;  ///< applied to every table's machine (e.g. a collectives.KEY to recalibrate)
};

/// Runs the check and prints to stdout. Returns the process exit code.
int run_nccl_check(const NcclCheckOptions& options);

/// Adds `opsim nccl-check` and its options to `opsim`.
Command register_nccl_check_command(CLI::App& opsim);

}  // namespace opsim
