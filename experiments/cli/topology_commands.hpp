// `opsim topologies` lists presets and families; `opsim topology check FILE` validates a
// machine description; `opsim topology show NAME` prints one as YAML.
#pragma once

#include <string>

namespace opsim {

int run_list_topologies();
int run_topology_check(const std::string& path);
int run_topology_show(const std::string& name);

}  // namespace opsim
