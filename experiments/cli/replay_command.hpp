// `opsim replay TRACE... [--topology T | --profile FILE] [--kernels recorded|modelled]
// [--steps K..M] [--format json] [--trace-dir DIR]`:
// replay recorded PyTorch profiler traces (one per rank of one job) and compare each
// profiler step's replayed length with its recorded one.
#pragma once

#include <string>
#include <vector>

#include "experiments/cli/command.hpp"
#include "experiments/cli/what_if.hpp"

namespace opsim {

struct ReplayCommandOptions {
  std::vector<std::string> trace_paths;
  std::string topology;  ///< empty: pcie-switch:N for the GPUs the traces use
  std::string profile;   ///< a calibrated profile, instead of topology
  std::string kernels = "recorded";
  std::string collectives = "recorded";
  std::string algorithm = "ring";  ///< --collectives modelled: the collective algorithm
  std::uint32_t ranks = 0;         ///< 0: one per trace
  std::string steps = "all";       ///< "all", "K" or "K..M"
  std::string format = "table";
  std::string trace_dir;
  WhatIf what_if;
};

int run_replay_command(const ReplayCommandOptions& options);

/// Adds `opsim replay` and its options to `opsim`.
Command register_replay_command(CLI::App& opsim);

}  // namespace opsim
