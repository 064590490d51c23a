#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "common/atomic_file.hpp"
#include "common/input_error.hpp"
#include "hw_models/model_parameters.hpp"
#include "topologies/topology_yaml.hpp"
#include "topologies/value_text.hpp"

namespace opsim {
namespace {

using namespace topology_yaml;

template <typename Model>
void emit_row(YAML::Emitter& out, const ParameterRow<Model>& row, const Model& model) {
  std::visit(
      [&](auto member) {
        using Member = decltype(member);
        if constexpr (std::is_same_v<Member, std::vector<MemoryPassRate> Model::*>) {
          if ((model.*member).empty()) return;
          out << YAML::Key << std::string(row.key) << YAML::Value << YAML::BeginSeq;
          for (const MemoryPassRate& r : model.*member)
            out << YAML::BeginMap << YAML::Key << std::string(row.item_size_key) << YAML::Value
                << size_text(r.working_set_bytes) << YAML::Key << "bandwidth" << YAML::Value
                << bandwidth_text(r.bytes_per_s) << YAML::EndMap;
          out << YAML::EndSeq;
        } else if constexpr (std::is_same_v<Member, std::vector<GemmRate> Model::*>) {
          if ((model.*member).empty()) return;
          out << YAML::Key << std::string(row.key) << YAML::Value << YAML::BeginSeq;
          for (const GemmRate& r : model.*member)
            out << YAML::BeginMap << YAML::Key << "n" << YAML::Value << static_cast<long>(r.n)
                << YAML::Key << "rate" << YAML::Value << rate_text(r.flops_per_s) << YAML::EndMap;
          out << YAML::EndSeq;
        } else if constexpr (std::is_same_v<Member, std::vector<double> Model::*>) {
          if ((model.*member).empty()) return;
          out << YAML::Key << std::string(row.key) << YAML::Value << YAML::Flow << YAML::BeginSeq;
          for (const double speed : model.*member) out << number_text(speed);
          out << YAML::EndSeq;
        } else {
          const double value = scalar_value(row, model);
          if (!std::isnan(row.written_unless) && value == row.written_unless) return;
          out << YAML::Key << std::string(row.key) << YAML::Value;
          if (row.unit == ParameterUnit::kFlag)
            out << (value != 0);
          else if (row.unit == ParameterUnit::kCount)
            out << static_cast<long>(value);
          else
            out << value_text(row.unit, value);
        }
      },
      row.member);
}

/// The scalar rows of `rows` (lists: false) or the list rows (true), in table order.
template <typename Model>
void emit_rows(YAML::Emitter& out, std::span<const ParameterRow<Model>> rows, const Model& model,
               bool lists) {
  for (const ParameterRow<Model>& row : rows)
    if (is_list(row.unit) == lists) emit_row(out, row, model);
}

template <typename Model>
void emit_all_rows(YAML::Emitter& out, std::span<const ParameterRow<Model>> rows,
                   const Model& model) {
  emit_rows(out, rows, model, false);
  emit_rows(out, rows, model, true);
}

void emit_device(YAML::Emitter& out, const Device& d) {
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << d.name;
  out << YAML::Key << "kind" << YAML::Value << std::string(to_string(d.kind));
  switch (d.kind) {
    case DeviceKind::kCpu:
      emit_rows(out, cpu_parameters(), d.cpu, false);
      out << YAML::Key << "dram" << YAML::Value << YAML::BeginMap;
      emit_all_rows(out, dram_parameters(), d.cpu.dram);
      out << YAML::EndMap;
      emit_rows(out, cpu_parameters(), d.cpu, true);
      break;
    case DeviceKind::kGpu:
      emit_all_rows(out, gpu_parameters(), d.gpu);
      break;
    case DeviceKind::kDisk:
      out << YAML::Key << "type" << YAML::Value << std::string(to_string(d.disk.kind));
      emit_all_rows(out, disk_parameters(), d.disk);
      break;
    case DeviceKind::kSwitch:
      if (d.reduces_in_switch) out << YAML::Key << "in_switch_reduction" << YAML::Value << true;
      break;
    case DeviceKind::kNic:
      break;
  }
  out << YAML::EndMap;
}

void emit_link(YAML::Emitter& out, const Machine& machine, const Link& link) {
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << link.name;
  out << YAML::Key << "between" << YAML::Value << YAML::Flow << YAML::BeginSeq
      << machine.device(link.a).name << machine.device(link.b).name << YAML::EndSeq;
  out << YAML::Key << "type" << YAML::Value << std::string(to_string(link.model.kind));
  emit_all_rows(out, link_parameters(), link.model);
  out << YAML::EndMap;
}

// The collective model's values that differ from its defaults; nothing when none does.
void emit_collectives(YAML::Emitter& out, const CollectiveModel& model) {
  static const CollectiveModel kDefaults{};
  bool any = false;
  for (const CollectiveParameter& row : collective_parameters()) {
    if (scalar_value(row, model) == scalar_value(row, kDefaults)) continue;
    if (!any) out << YAML::Key << "collectives" << YAML::Value << YAML::Flow << YAML::BeginMap;
    any = true;
    emit_row(out, row, model);
  }
  if (any) out << YAML::EndMap;
}

}  // namespace

std::string dump_topology_yaml(const Machine& machine) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << machine.name();
  if (!machine.description().empty())
    out << YAML::Key << "description" << YAML::Value << machine.description();
  const auto nodes = machine.node_names();
  const bool single = nodes.size() == 1 && nodes[0] == machine.name();
  if (single) {
    out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
    for (const Device& d : machine.devices()) emit_device(out, d);
    out << YAML::EndSeq;
  } else {
    out << YAML::Key << "nodes" << YAML::Value << YAML::BeginSeq;
    for (std::uint32_t n = 0; n < nodes.size(); ++n) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << nodes[n];
      out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
      for (const Device& d : machine.devices())
        if (d.node == n) emit_device(out, d);
      out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
  for (const Link& link : machine.links()) emit_link(out, machine, link);
  out << YAML::EndSeq;
  emit_collectives(out, machine.collectives());
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

void save_topology_file(const Machine& machine, const std::string& path) {
  // A unique temporary beside the target, synced and renamed; a symlink writes its target.
  write_file_atomically(path, dump_topology_yaml(machine));
}

}  // namespace opsim
