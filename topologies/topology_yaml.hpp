// Machine description files: a human-editable YAML format (see topologies/README.md) read
// into a sealed Machine, and written back so that parse(dump(m)) gives the same machine.
//
//   Machine m = load_topology_file("my-server.yaml");   // throws opsim::InputError
//   std::string text = dump_topology_yaml(m);           // every field explicit, exact
#pragma once

#include <string>
#include <string_view>

#include "hw_models/machine.hpp"

namespace opsim {

/// Parses a topology from YAML `text`; `source_name` (usually the path) starts every error
/// message. Returns a sealed machine in which every GPU has a route to a CPU. Throws
/// opsim::InputError with one line "SOURCE:LINE:COL: what is wrong" on any bad input.
Machine parse_topology_yaml(std::string_view text, std::string_view source_name);

/// Reads and parses a topology file. An unreadable file is an InputError too.
Machine load_topology_file(const std::string& path);

/// Writes `machine` as YAML with every model field explicit (no presets), quantities in
/// unit strings chosen so that they parse back to the identical double.
std::string dump_topology_yaml(const Machine& machine);

/// Writes dump_topology_yaml(machine) to `path` atomically (a temporary file beside it,
/// then rename). Throws opsim::InputError naming the path when it cannot be written.
void save_topology_file(const Machine& machine, const std::string& path);

/// Describes the first difference between two machines (devices, models, links, nodes,
/// and unless `ignore_names` also the machine name and description); empty when equal.
std::string machine_difference(const Machine& a, const Machine& b, bool ignore_names = false);

}  // namespace opsim
