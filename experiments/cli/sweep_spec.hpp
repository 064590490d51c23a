// The spec that `opsim sweep SPEC` reads: which topologies, strategies, sizes and GPU counts
// to simulate. YAML:
//
//   topologies: [pcie-switch-4gpu, nvlink-ring:8]
//   strategies: [tree, cpu, split, ring]
//   bytes: [16MB, 160MB]
//   gpus: [2, 4]          # optional; default: all GPUs of each topology
//   comm_only: true       # optional; default false
//
//   SweepSpec spec = load_sweep_spec("rings.yaml");   // throws opsim::InputError
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opsim {

struct SweepSpec {
  std::vector<std::string> topologies;
  std::vector<std::string> strategies;
  std::vector<double> bytes;    ///< gradient sizes in bytes, each > 0
  std::vector<int> gpus = {0};  ///< GPU counts >= 2; {0}: all GPUs of each topology
  bool comm_only = false;
};

/// Parses a sweep spec from YAML `text`; `source_name` (usually the path) starts every error
/// message. Throws opsim::InputError with one line "SOURCE[:LINE:COL]: what is wrong".
SweepSpec parse_sweep_spec(std::string_view text, std::string_view source_name);

/// Reads and parses a sweep spec file. An unreadable file is an InputError too.
SweepSpec load_sweep_spec(const std::string& path);

}  // namespace opsim
