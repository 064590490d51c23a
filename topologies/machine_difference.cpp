#include <sstream>

#include "hw_models/model_parameters.hpp"
#include "topologies/topology_yaml.hpp"
#include "topologies/value_text.hpp"

namespace opsim {
namespace {

using namespace topology_yaml;

/// The first row of `rows` whose value differs between `a` and `b`: "KEY A vs B" for a
/// scalar, "KEY" for a list; empty when all are equal. `prefix` goes before the key.
template <typename Model>
std::string first_parameter_difference(std::span<const ParameterRow<Model>> rows, const Model& a,
                                       const Model& b, const std::string& prefix = {}) {
  for (const ParameterRow<Model>& row : rows) {
    if (same_value(row, a, b)) continue;
    std::string what = prefix + std::string(row.key);
    if (!is_list(row.unit))
      what += " " + value_text(row.unit, scalar_value(row, a)) + " vs " +
              value_text(row.unit, scalar_value(row, b));
    return what;
  }
  return {};
}

std::string model_difference(const Device& x, const Device& y) {
  switch (x.kind) {
    case DeviceKind::kCpu: {
      std::string d = first_parameter_difference(cpu_parameters(), x.cpu, y.cpu);
      if (d.empty())
        d = first_parameter_difference(dram_parameters(), x.cpu.dram, y.cpu.dram, "dram.");
      return d;
    }
    case DeviceKind::kGpu:
      return first_parameter_difference(gpu_parameters(), x.gpu, y.gpu);
    case DeviceKind::kDisk:
      if (x.disk.kind != y.disk.kind) return "disk type";
      return first_parameter_difference(disk_parameters(), x.disk, y.disk);
    default:
      return {};
  }
}

}  // namespace

std::string machine_difference(const Machine& a, const Machine& b, bool ignore_names) {
  std::ostringstream diff;
  auto differ = [&](bool different, const std::string& what) {
    if (different && diff.tellp() == 0) diff << what;
  };
  if (!ignore_names) {
    differ(a.name() != b.name(), "name '" + a.name() + "' vs '" + b.name() + "'");
    differ(a.description() != b.description(), "description differs");
  }
  // A single server named after its machine is the implicit default node.
  auto nodes_of = [&](const Machine& m) {
    std::vector<std::string> names(m.node_names().begin(), m.node_names().end());
    if (ignore_names && names.size() == 1 && names[0] == m.name()) names[0].clear();
    return names;
  };
  differ(nodes_of(a) != nodes_of(b), "node names differ");
  const std::string collectives =
      first_parameter_difference(collective_parameters(), a.collectives(), b.collectives());
  differ(!collectives.empty(), "collectives: " + collectives);
  differ(a.devices().size() != b.devices().size(), "device counts differ");
  differ(a.links().size() != b.links().size(), "link counts differ");
  if (diff.tellp() != 0) return diff.str();
  for (std::size_t i = 0; i < a.devices().size(); ++i) {
    const Device& x = a.devices()[i];
    const Device& y = b.devices()[i];
    const std::string at = "device " + std::to_string(i) + " ('" + x.name + "'): ";
    differ(x.name != y.name, at + "name vs '" + y.name + "'");
    differ(x.kind != y.kind, at + "kind");
    differ(x.node != y.node, at + "node");
    differ(x.reduces_in_switch != y.reduces_in_switch, at + "in_switch_reduction");
    if (x.kind != y.kind) continue;
    const std::string model = model_difference(x, y);
    differ(!model.empty(), at + model);
  }
  for (std::size_t i = 0; i < a.links().size(); ++i) {
    const Link& x = a.links()[i];
    const Link& y = b.links()[i];
    const std::string at = "link " + std::to_string(i) + " ('" + x.name + "'): ";
    differ(x.name != y.name, at + "name vs '" + y.name + "'");
    differ(x.a != y.a || x.b != y.b, at + "ends");
    differ(x.model.kind != y.model.kind, at + "type");
    const std::string model = first_parameter_difference(link_parameters(), x.model, y.model);
    differ(!model.empty(), at + model);
  }
  return diff.str();
}

}  // namespace opsim
