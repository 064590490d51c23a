#include "experiments/cli/what_if.hpp"

#include <cmath>
#include <functional>
#include <optional>
#include <string_view>

#include "common/closest_name.hpp"
#include "common/input_error.hpp"
#include "hw_models/model_parameters.hpp"
#include "topologies/parameter_text.hpp"

namespace opsim {
namespace {

// The machine's collective model: "collectives.ring_ll_nvlink_step=1us".
constexpr std::string_view kCollectivesName = "collectives";

// The DRAM's keys under a CPU: "dram.first_access".
constexpr std::string_view kDramPrefix = "dram.";

template <typename Model>
std::vector<std::string> keys_of(std::span<const ParameterRow<Model>> rows,
                                 std::string_view prefix = {}) {
  std::vector<std::string> keys;
  for (const ParameterRow<Model>& row : rows)
    keys.push_back(std::string(prefix) + std::string(row.key));
  return keys;
}

std::vector<std::string> keys_of(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kCpu: {
      std::vector<std::string> keys = keys_of(cpu_parameters());
      for (std::string& key : keys_of(dram_parameters(), kDramPrefix)) keys.push_back(key);
      return keys;
    }
    case DeviceKind::kGpu:
      return keys_of(gpu_parameters());
    case DeviceKind::kDisk:
      return keys_of(disk_parameters());
    default:
      return {};
  }
}

std::string joined(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& key : keys) out += (out.empty() ? "" : ", ") + key;
  return out;
}

// "(did you mean 'x'?)" among `keys`.
std::string suggestion(const std::string& got, const std::vector<std::string>& keys) {
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  return name_suggestion(got, views);
}

// One "NAME.KEY=VALUE" split at the first dot after which NAME names a device or link.
struct Assignment {
  std::string name, key, value;
};

Assignment split(const std::string& assignment, const Machine& machine,
                 const std::function<void(const std::string&)>& fail) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || assignment.find('.') > equals)
    fail("expected NAME.KEY=VALUE, e.g. gpu0-sw0.bandwidth=8GB/s");
  const std::string target = assignment.substr(0, equals);
  std::size_t dot = target.find('.');
  for (std::size_t at = dot; at != std::string::npos; at = target.find('.', at + 1)) {
    const std::string name = target.substr(0, at);
    if (machine.find_device(name) || machine.find_link(name)) {
      dot = at;
      break;
    }
  }
  return {target.substr(0, dot), target.substr(dot + 1), assignment.substr(equals + 1)};
}

template <typename Model>
const ParameterRow<Model>* row_of(std::span<const ParameterRow<Model>> rows,
                                  const std::string& key) {
  return find_parameter(rows, key);
}

// A GPU's fp32 peak: a calibrated profile's rates by GEMM size keep their shape under it.
void set_gpu(const GpuParameter& row, const Assignment& a, GpuModel& gpu,
             const std::string& context) {
  const double before = gpu.fp32_flops_per_s;
  set_parameter_from_text(row, a.value, gpu, context);
  if (row.key != "fp32_peak") return;
  for (GemmRate& r : gpu.sgemm_rates) {
    r.flops_per_s *= gpu.fp32_flops_per_s / before;
    if (r.flops_per_s > kMaxFlopsPerS)
      throw InputError(context + ": the GPU's sgemm_rates, scaled with it, would exceed " +
                       "1000PFLOPS at n = " + std::to_string(static_cast<long>(r.n)));
  }
}

// Sets `a.key` of `device`; false when it has no such key.
bool set_device(Device& device, const Assignment& a, const std::string& context) {
  switch (device.kind) {
    case DeviceKind::kCpu:
      if (a.key.starts_with(kDramPrefix)) {
        const auto* row = row_of(dram_parameters(), a.key.substr(kDramPrefix.size()));
        if (row) set_parameter_from_text(*row, a.value, device.cpu.dram, context);
        return row != nullptr;
      }
      if (const auto* row = row_of(cpu_parameters(), a.key)) {
        set_parameter_from_text(*row, a.value, device.cpu, context);
        return true;
      }
      return false;
    case DeviceKind::kGpu:
      if (const auto* row = row_of(gpu_parameters(), a.key)) {
        set_gpu(*row, a, device.gpu, context);
        return true;
      }
      return false;
    case DeviceKind::kDisk:
      if (const auto* row = row_of(disk_parameters(), a.key)) {
        set_parameter_from_text(*row, a.value, device.disk, context);
        return true;
      }
      return false;
    default:
      return false;
  }
}

void apply_assignment(Machine& machine, const std::string& assignment) {
  const std::string context = "--set " + assignment;
  auto fail = [&](const std::string& what) { throw InputError(context + ": " + what); };
  const Assignment a = split(assignment, machine, fail);
  if (a.name == kCollectivesName && !machine.find_device(a.name) && !machine.find_link(a.name)) {
    const auto* row = row_of(collective_parameters(), a.key);
    if (row == nullptr)
      fail("the collectives have no key '" + a.key + "' " +
           suggestion(a.key, keys_of(collective_parameters())));
    set_parameter_from_text(*row, a.value, machine.mutable_collectives(), context);
  } else if (auto id = machine.find_device(a.name)) {
    Device& device = machine.mutable_device(*id);
    const std::vector<std::string> keys = keys_of(device.kind);
    const std::string kind(to_string(device.kind));
    if (keys.empty()) fail("a " + kind + " has no settable parameters");
    if (!set_device(device, a, context))
      fail("a " + kind + " has no key '" + a.key + "' " + suggestion(a.key, keys));
  } else if (auto link = machine.find_link(a.name)) {
    const auto* row = row_of(link_parameters(), a.key);
    if (row == nullptr)
      fail("a link has no key '" + a.key + "' " + suggestion(a.key, keys_of(link_parameters())));
    set_parameter_from_text(*row, a.value, machine.mutable_link(*link).model, context);
  } else {
    fail("no device or link named '" + a.name + "' in topology '" + machine.name() + "'");
  }
}

}  // namespace

std::string what_if_fields_help() {
  return "cpu: " + joined(keys_of(DeviceKind::kCpu)) +
         "; gpu: " + joined(keys_of(DeviceKind::kGpu)) +
         "; disk: " + joined(keys_of(DeviceKind::kDisk)) +
         "; link: " + joined(keys_of(link_parameters())) +
         "; collectives (NAME = collectives): " + joined(keys_of(collective_parameters()));
}

Machine apply_what_if(const Machine& original, const WhatIf& what_if) {
  Machine machine = original;
  if (!(what_if.link_bandwidth_scale > 0) || !std::isfinite(what_if.link_bandwidth_scale))
    throw InputError("--link-bandwidth-scale: must be a number > 0");
  for (LinkId id = 0; id < machine.links().size(); ++id) {
    LinkModel& model = machine.mutable_link(id).model;
    model.bytes_per_s *= what_if.link_bandwidth_scale;
    model.duplex_bytes_per_s *= what_if.link_bandwidth_scale;
    // The same bound as a link's bandwidth in a file (kMaxBytesPerS, parameter_table.hpp).
    if (model.bytes_per_s > kMaxBytesPerS || model.duplex_bytes_per_s > kMaxBytesPerS)
      throw InputError("--link-bandwidth-scale: link '" + machine.link(id).name +
                       "' would carry more than 1PB/s, the most a link may");
  }
  for (const std::string& assignment : what_if.assignments) apply_assignment(machine, assignment);
  return machine;
}

}  // namespace opsim
