// One entry point for "which machine?": a preset name, a family spec or a file path.
//
//   Machine m = resolve_topology("dgx1-v100");        // embedded preset
//   Machine r = resolve_topology("nvlink-ring:64");   // parametric family
//   Machine f = resolve_topology("lab/my-box.yaml");  // a topology file
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hw_models/machine.hpp"

namespace opsim {

struct TopologyInfo {
  std::string name;  ///< preset name, or family syntax such as "nvlink-ring:N"
  std::string description;
  std::optional<int> gpus;  ///< GPU count of a preset; nullopt for a family
  bool family = false;      ///< true: `name` is a syntax taking parameters
  std::string example;      ///< a valid argument for resolve_topology, e.g. "nvlink-ring:8"
};

/// Returns the sealed machine named by `name_or_path`:
///  - a preset: desktop-1gpu, pcie-switch-4gpu, dgx1-v100, cluster-2x4gpu, cluster-2x4gpu-100gbe;
///  - a family: nvlink-ring:N (2 <= N <= 16384), pcie-switch:N (1 <= N <= 16384),
///    cluster:MxG or cluster:MxG@GBITS (1 <= M <= 4096, 1 <= G <= 256, Ethernet speed in
///    Gbit/s, default 100);
///  - otherwise a YAML file path (anything with '/' or ending in .yaml/.yml, or an existing
///    file).
/// Throws opsim::InputError (one line) for an unknown name, a bad family argument or a
/// bad file; the unknown-name message lists the valid names.
Machine resolve_topology(std::string_view name_or_path);

/// Presets (sorted by name) then families.
std::vector<TopologyInfo> list_topologies();

/// The YAML text of a preset, or nullopt for an unknown name.
std::optional<std::string_view> preset_topology_yaml(std::string_view name);

}  // namespace opsim
