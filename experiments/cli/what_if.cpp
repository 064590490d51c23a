#include "experiments/cli/what_if.hpp"

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "common/input_error.hpp"
#include "hw_models/units.hpp"

namespace opsim {
namespace {

using Parser = std::optional<double> (*)(std::string_view);

std::optional<double> parse_plain(std::string_view text) {
  return parse_count(text);
}

struct Field {
  Parser parse;
  std::function<void(Device&, double)> set_device;
  std::function<void(LinkModel&, double)> set_link;
};

using Fields = std::map<std::string, std::map<std::string, Field>>;

Fields listed_fields() {
  Fields fields = {
      {"link",
       {{"bandwidth",
         {parse_bytes_per_s, nullptr, [](LinkModel& l, double v) { l.bytes_per_s = v; }}},
        {"latency", {parse_seconds, nullptr, [](LinkModel& l, double v) { l.latency_s = v; }}},
        {"duplex_bandwidth",
         {parse_bytes_per_s, nullptr, [](LinkModel& l, double v) { l.duplex_bytes_per_s = v; }}}}},
      {"gpu",
       {{"flops",
         {parse_flops_per_s,
          [](Device& d, double v) {
            // A calibrated profile's rates by GEMM size keep their shape under the new peak.
            for (GemmRate& r : d.gpu.sgemm_rates) r.flops_per_s *= v / d.gpu.fp32_flops_per_s;
            d.gpu.fp32_flops_per_s = v;
          },
          nullptr}},
        {"fp16_flops",
         {parse_flops_per_s, [](Device& d, double v) { d.gpu.fp16_flops_per_s = v; }, nullptr}},
        {"memory_bandwidth",
         {parse_bytes_per_s, [](Device& d, double v) { d.gpu.memory_bytes_per_s = v; }, nullptr}},
        {"launch", {parse_seconds, [](Device& d, double v) { d.gpu.launch_s = v; }, nullptr}},
        {"copy_launch",
         {parse_seconds, [](Device& d, double v) { d.gpu.copy_launch_s = v; }, nullptr}},
        {"min_dependent_op",
         {parse_seconds, [](Device& d, double v) { d.gpu.dependent_op_min_s = v; }, nullptr}},
        {"min_queued_op",
         {parse_seconds, [](Device& d, double v) { d.gpu.queued_op_min_s = v; }, nullptr}},
        {"efficiency", {parse_plain, [](Device& d, double v) { d.gpu.efficiency = v; }, nullptr}}}},
      {"cpu",
       {{"cores",
         {parse_plain, [](Device& d, double v) { d.cpu.cores = static_cast<int>(v); }, nullptr}},
        {"clock", {parse_plain, [](Device& d, double v) { d.cpu.clock_hz = v; }, nullptr}},
        {"dram_bandwidth",
         {parse_bytes_per_s,
          [](Device& d, double v) { d.cpu.dram.bytes_per_s_per_channel = v / d.cpu.dram.channels; },
          nullptr}},
        {"dispatch", {parse_seconds, [](Device& d, double v) { d.cpu.dispatch_s = v; }, nullptr}},
        {"all_streams_busy_speed",
         {parse_plain, [](Device& d, double v) { d.cpu.all_streams_busy_speed = v; }, nullptr}},
        {"beside_dispatch_speed",
         {parse_plain, [](Device& d, double v) { d.cpu.beside_dispatch_speed = v; }, nullptr}},
        {"disk_io_cores",
         {parse_plain, [](Device& d, double v) { d.cpu.disk_io_cores = v; }, nullptr}},
        {"efficiency", {parse_plain, [](Device& d, double v) { d.cpu.efficiency = v; }, nullptr}}}},
      {"disk",
       {{"read_bandwidth",
         {parse_bytes_per_s, [](Device& d, double v) { d.disk.read_bytes_per_s = v; }, nullptr}},
        {"write_bandwidth",
         {parse_bytes_per_s, [](Device& d, double v) { d.disk.write_bytes_per_s = v; }, nullptr}},
        {"access", {parse_seconds, [](Device& d, double v) { d.disk.access_s = v; }, nullptr}},
        {"read_iops", {parse_plain, [](Device& d, double v) { d.disk.read_iops = v; }, nullptr}}}},
  };
  for (auto [key, member] : kDiskSpeedBesideComputeFields)
    fields["cpu"][key] = {parse_plain, [member](Device& d, double v) { d.cpu.*member = v; },
                          nullptr};
  return fields;
}

const Fields& fields() {
  static const Fields kFields = listed_fields();
  return kFields;
}

// A CPU's per-core speed factors: a comma-separated list ("1.1,0.9"), one per core.
const std::map<std::string, std::vector<double> CpuModel::*> kCoreSpeedFields = {
    {"core_copy_speeds", &CpuModel::core_copy_speeds},
    {"core_gemm_speeds", &CpuModel::core_gemm_speeds},
    {"core_pass_speeds", &CpuModel::core_pass_speeds}};

std::string field_names(const std::string& group) {
  std::set<std::string> names;
  for (const auto& [name, field] : fields().at(group)) names.insert(name);
  if (group == "cpu")
    for (const auto& [name, member] : kCoreSpeedFields) names.insert(name);
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// Positive finite factors, at most one per core; fail() names what is wrong.
std::vector<double> parse_core_speeds(const std::string& text, int cores,
                                      const std::function<void(const std::string&)>& fail) {
  std::vector<double> speeds;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = text.find(',', from);
    const std::string item = text.substr(from, comma - from);
    const auto value = parse_count(item);
    if (!value || !(*value > 0) || !std::isfinite(*value))
      fail("cannot read '" + item + "' as a positive speed factor (a list: 1.1,0.9)");
    speeds.push_back(*value);
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (static_cast<int>(speeds.size()) > cores)
    fail(std::to_string(speeds.size()) + " factors for a CPU of " + std::to_string(cores) +
         " cores");
  return speeds;
}

}  // namespace

std::string what_if_fields_help() {
  std::string out;
  for (const auto& [group, members] : fields()) out += group + ": " + field_names(group) + "; ";
  return out.substr(0, out.size() - 2);
}

Machine apply_what_if(const Machine& original, const WhatIf& what_if) {
  Machine machine = original;
  if (!(what_if.link_bandwidth_scale > 0) || !std::isfinite(what_if.link_bandwidth_scale))
    throw InputError("--link-bandwidth-scale: must be a number > 0");
  for (LinkId id = 0; id < machine.links().size(); ++id) {
    LinkModel& model = machine.mutable_link(id).model;
    model.bytes_per_s *= what_if.link_bandwidth_scale;
    model.duplex_bytes_per_s *= what_if.link_bandwidth_scale;
  }
  for (const std::string& assignment : what_if.assignments) {
    auto fail = [&](const std::string& what) {
      throw InputError("--set " + assignment + ": " + what);
    };
    const auto equals = assignment.find('=');
    const auto dot = assignment.rfind('.', equals);
    if (equals == std::string::npos || dot == std::string::npos || dot == 0)
      fail("expected NAME.FIELD=VALUE, e.g. gpu0-sw0.bandwidth=8GB/s");
    const std::string name = assignment.substr(0, dot);
    const std::string field_name = assignment.substr(dot + 1, equals - dot - 1);
    const std::string value_text = assignment.substr(equals + 1);
    std::string group;
    Device* device = nullptr;
    LinkModel* link = nullptr;
    if (auto d = machine.find_device(name)) {
      device = &machine.mutable_device(*d);
      if (device->kind == DeviceKind::kGpu)
        group = "gpu";
      else if (device->kind == DeviceKind::kCpu)
        group = "cpu";
      else if (device->kind == DeviceKind::kDisk)
        group = "disk";
      else
        fail("a " + std::string(to_string(device->kind)) + " has no settable fields");
    } else if (auto l = machine.find_link(name)) {
      link = &machine.mutable_link(*l).model;
      group = "link";
    } else {
      fail("no device or link named '" + name + "' in topology '" + machine.name() + "'");
    }
    if (const auto list = kCoreSpeedFields.find(field_name);
        group == "cpu" && list != kCoreSpeedFields.end()) {
      device->cpu.*(list->second) = parse_core_speeds(value_text, device->cpu.cores, fail);
      continue;
    }
    const auto& members = fields().at(group);
    auto it = members.find(field_name);
    if (it == members.end())
      fail("a " + group + " has no field '" + field_name + "' (" + field_names(group) + ")");
    auto value = it->second.parse(value_text);
    // Zero: no latency, or (duplex_bandwidth) no bound on both directions together.
    const bool zero_allowed = field_name == "latency" || field_name == "launch" ||
                              field_name == "copy_launch" || field_name == "access" ||
                              field_name.starts_with("min_") || field_name == "duplex_bandwidth" ||
                              field_name == "disk_io_cores";
    if (!value || *value < 0 || (*value == 0 && !zero_allowed))
      fail("cannot read '" + value_text + "' as a " +
           (zero_allowed ? "non-negative " : "positive ") + field_name);
    if ((field_name == "efficiency" || field_name == "all_streams_busy_speed" ||
         field_name == "beside_dispatch_speed" || field_name.starts_with("disk_read_speed") ||
         field_name.starts_with("disk_write_speed")) &&
        *value > 1)
      fail("'" + value_text + "' is not in (0, 1]");
    if (field_name == "disk_io_cores" && *value > device->cpu.cores)
      fail("'" + value_text + "' is more than the CPU's " + std::to_string(device->cpu.cores) +
           " cores");
    if (field_name == "duplex_bandwidth" && *value > 0 && !link->full_duplex)
      fail("a half-duplex link has one bandwidth for both directions; set its bandwidth");
    if (device)
      it->second.set_device(*device, *value);
    else
      it->second.set_link(*link, *value);
  }
  return machine;
}

}  // namespace opsim
