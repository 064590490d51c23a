#include "experiments/cli/topology_commands.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "experiments/cli/text_table.hpp"
#include "hw_models/units.hpp"
#include "topologies/topology_catalog.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim {

int run_list_topologies() {
  TextTable table({"name", "GPUs", "description"}, {false, true, false});
  for (const TopologyInfo& info : list_topologies())
    table.add_row({info.name, info.gpus ? std::to_string(*info.gpus) : "N", info.description});
  std::cout << table.render()
            << "\nUse a name with --topology, or a YAML file (see topologies/README.md).\n";
  return 0;
}

int run_topology_check(const std::string& path) {
  const Machine machine = load_topology_file(path);
  std::size_t gpus = 0, cpus = 0, disks = 0;
  for (const Device& d : machine.devices()) {
    gpus += d.kind == DeviceKind::kGpu;
    cpus += d.kind == DeviceKind::kCpu;
    disks += d.kind == DeviceKind::kDisk;
  }
  std::cout << path << ": ok: '" << machine.name() << "', " << machine.node_names().size()
            << " server(s), " << cpus << " CPU(s), " << gpus << " GPU(s), " << disks << " disk(s), "
            << machine.links().size() << " link(s)\n";
  return 0;
}

int run_topology_show(const std::string& name) {
  std::cout << dump_topology_yaml(resolve_topology(name));
  return 0;
}

Command register_topologies_command(CLI::App& opsim) {
  CLI::App* topologies =
      opsim.add_subcommand("topologies", "List the preset machines and parametric families");
  return {topologies, [] { return run_list_topologies(); }};
}

Command register_topology_command(CLI::App& opsim) {
  CLI::App* topology = opsim.add_subcommand("topology", "Check or show a machine description");
  topology->require_subcommand(1);
  auto check_path = std::make_shared<std::string>();
  auto show_name = std::make_shared<std::string>();
  topology->add_subcommand("check", "Validate a topology YAML file")
      ->add_option("file", *check_path, "Topology file")
      ->required()
      ->check(CLI::ExistingFile);
  topology->add_subcommand("show", "Print a preset, family or file as YAML")
      ->add_option("name", *show_name, "Preset, family or file")
      ->required();
  return {topology, [check_path, show_name] {
            if (!check_path->empty()) return run_topology_check(*check_path);
            return run_topology_show(*show_name);
          }};
}

}  // namespace opsim
