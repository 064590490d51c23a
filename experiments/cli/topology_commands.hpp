// `opsim topologies` lists presets and families; `opsim topology check FILE` validates a
// machine description; `opsim topology show NAME` prints one as YAML.
#pragma once

#include <string>

#include "experiments/cli/command.hpp"

namespace opsim {

int run_list_topologies();
int run_topology_check(const std::string& path);
int run_topology_show(const std::string& name);

/// Adds `opsim topologies` to `opsim`.
Command register_topologies_command(CLI::App& opsim);

/// Adds `opsim topology check FILE` and `opsim topology show NAME` to `opsim`.
Command register_topology_command(CLI::App& opsim);

}  // namespace opsim
