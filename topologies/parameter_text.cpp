#include "topologies/parameter_text.hpp"

#include <yaml-cpp/yaml.h>

#include "topologies/value_text.hpp"
#include "topologies/yaml_fields.hpp"

namespace opsim {
namespace {

using namespace topology_yaml;

YAML::Node value_node(ParameterUnit unit, std::string_view text, const FieldReader& reader) {
  if (!is_list(unit)) return YAML::Node(std::string(text));
  const std::string list =
      text.starts_with('[') ? std::string(text) : "[" + std::string(text) + "]";
  try {
    return YAML::Load(list);
  } catch (const YAML::Exception& e) {
    reader.fail(YAML::Mark::null_mark(),
                "cannot read '" + std::string(text) + "' as a list (" + e.msg + ")");
  }
}

template <typename Model>
void set_from_text(std::span<const ParameterRow<Model>> rows, const ParameterRow<Model>& row,
                   std::string_view text, Model& model, const std::string& context,
                   const char* owner, int cores = 0) {
  const FieldReader reader(context, /*with_place=*/false);
  reader.read(rows, row, value_node(row.unit, text, reader), model, owner, cores);
}

template <typename Model>
std::string text_of(const ParameterRow<Model>& row, const Model& model) {
  return std::visit(
      [&](auto member) -> std::string {
        using Member = decltype(member);
        std::string out;
        if constexpr (std::is_same_v<Member, std::vector<MemoryPassRate> Model::*>) {
          for (const MemoryPassRate& r : model.*member)
            out += (out.empty() ? "" : ", ") + std::string("{") + std::string(row.item_size_key) +
                   ": " + size_text(r.working_set_bytes) +
                   ", bandwidth: " + bandwidth_text(r.bytes_per_s) + "}";
          return "[" + out + "]";
        } else if constexpr (std::is_same_v<Member, std::vector<GemmRate> Model::*>) {
          for (const GemmRate& r : model.*member)
            out += (out.empty() ? "" : ", ") + std::string("{n: ") +
                   std::to_string(static_cast<long>(r.n)) + ", rate: " + rate_text(r.flops_per_s) +
                   "}";
          return "[" + out + "]";
        } else if constexpr (std::is_same_v<Member, std::vector<double> Model::*>) {
          for (const double speed : model.*member)
            out += (out.empty() ? "" : ", ") + number_text(speed);
          return "[" + out + "]";
        } else {
          return value_text(row.unit, scalar_value(row, model));
        }
      },
      row.member);
}

}  // namespace

void set_parameter_from_text(const CpuParameter& row, std::string_view text, CpuModel& model,
                             const std::string& context) {
  set_from_text(cpu_parameters(), row, text, model, context, "the CPU", model.cores);
}
void set_parameter_from_text(const DramParameter& row, std::string_view text, DramModel& model,
                             const std::string& context) {
  set_from_text(dram_parameters(), row, text, model, context, "the DRAM");
}
void set_parameter_from_text(const GpuParameter& row, std::string_view text, GpuModel& model,
                             const std::string& context) {
  set_from_text(gpu_parameters(), row, text, model, context, "the GPU");
}
void set_parameter_from_text(const DiskParameter& row, std::string_view text, DiskModel& model,
                             const std::string& context) {
  set_from_text(disk_parameters(), row, text, model, context, "the disk");
}
void set_parameter_from_text(const LinkParameter& row, std::string_view text, LinkModel& model,
                             const std::string& context) {
  set_from_text(link_parameters(), row, text, model, context, "the link");
}
void set_parameter_from_text(const CollectiveParameter& row, std::string_view text,
                             CollectiveModel& model, const std::string& context) {
  set_from_text(collective_parameters(), row, text, model, context, "the collectives");
}

std::string parameter_text(const CpuParameter& row, const CpuModel& model) {
  return text_of(row, model);
}
std::string parameter_text(const DramParameter& row, const DramModel& model) {
  return text_of(row, model);
}
std::string parameter_text(const GpuParameter& row, const GpuModel& model) {
  return text_of(row, model);
}
std::string parameter_text(const DiskParameter& row, const DiskModel& model) {
  return text_of(row, model);
}
std::string parameter_text(const LinkParameter& row, const LinkModel& model) {
  return text_of(row, model);
}
std::string parameter_text(const CollectiveParameter& row, const CollectiveModel& model) {
  return text_of(row, model);
}

}  // namespace opsim
