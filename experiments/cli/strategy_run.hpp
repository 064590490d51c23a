// One gradient-sync simulation: resolve the topology, apply what-ifs, generate the
// strategy's op graph, simulate it, summarize. Runs inside a child process (one SimGrid
// engine per process); the result travels back as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "experiments/cli/what_if.hpp"

namespace opsim {

struct StrategyRunRequest {
  std::string topology = "pcie-switch-4gpu";  ///< preset, family ("nvlink-ring:8") or file
  std::string strategy = "tree";
  double bytes = 160e6;    ///< gradient bytes per GPU
  int gpus = 0;            ///< use the first N GPUs; 0: all
  bool comm_only = false;  ///< leave the reductions' compute out
  WhatIf what_if;
  std::string trace_path;  ///< Chrome trace to write; empty: none
  std::string csv_path;    ///< per-op CSV to write; empty: none
};

struct StrategyRunResult {
  std::string strategy;
  double makespan_s = 0;
  double lower_bound_s = 0;  ///< NaN when no closed form is known
  double bytes_moved = 0;
  std::string busiest_link;
  double busiest_link_utilization = 0;
  double peak_memory_bytes = 0;
  std::size_t ops = 0;
  std::size_t transfers = 0;
  int gpus = 0;
  std::string trace_file;
  double wall_s = 0;  ///< host seconds the simulation took
};

nlohmann::json to_json(const StrategyRunResult& result);
StrategyRunResult strategy_result_from_json(const nlohmann::json& json);

/// Runs in this process (creates the one SimGrid engine this process may have).
StrategyRunResult run_strategy(const StrategyRunRequest& request);

/// Refuses, before any simulation starts, a request whose strategy cannot run on its
/// machine (check_sync_plan): throws InputError naming the strategy and why.
void check_strategy_requests(const std::vector<StrategyRunRequest>& requests);

}  // namespace opsim
