// `opsim collective`: the nccl-tests table of one collective on a topology. Each size is
// one simulation in its own process; prints size, count (float elements), time, algbw and
// busbw with nccl-tests' definitions, per algorithm (with what auto chose per size), as a
// table, JSON or CSV.
#pragma once

#include <string>
#include <vector>

#include "experiments/cli/command.hpp"
#include "experiments/cli/what_if.hpp"

namespace opsim {

struct CollectiveCommandOptions {
  std::string op = "allreduce";
  std::string topology = "pcie-switch-4gpu";
  int gpus = 0;                         ///< the first N GPUs; 0: all
  int gpus_per_server = 0;              ///< the first G GPUs of every server; 0: all
  std::string sizes = "8B:128MB";       ///< MIN:MAX, or one size
  double factor = 2;                    ///< each size is the one before times this
  std::vector<std::string> algorithms;  ///< empty: auto (NCCL's tuner, by size)
  std::string protocol = "auto";        ///< LL | LL128 | Simple | wire | auto
  int gpus_per_thread = 1;              ///< nccl-tests' -g
  std::string dtype = "float";          ///< nccl-tests' -d: sizes in whole elements of it
  std::string format = "table";         ///< table | json | csv
  std::string trace_dir;                ///< write <op>-<algorithm>-<bytes>.json here
  WhatIf what_if;
  unsigned parallel = 2;
};

/// The sizes from `range` ("8B:8GB", units as --bytes; one size alone is a range of one):
/// min, then each size the one before times `factor` rounded down to whole bytes (at least
/// one more), up to max. Throws InputError naming --sizes or --factor; at most 1000 sizes.
std::vector<double> collective_sizes(const std::string& range, double factor);

/// Runs the command and prints to stdout. Returns the process exit code.
int run_collective(const CollectiveCommandOptions& options);

/// Adds `opsim collective` and its options to `opsim`.
Command register_collective_command(CLI::App& opsim);

}  // namespace opsim
