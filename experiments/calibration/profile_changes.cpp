#include "experiments/calibration/profile_changes.hpp"

#include <stdexcept>

#include "hw_models/model_parameters.hpp"

namespace opsim::calibration {
namespace {

std::string unit_of(ParameterUnit unit) {
  switch (unit) {
    case ParameterUnit::kBandwidth:
    case ParameterUnit::kSizeRates:
      return "bytes/s";
    case ParameterUnit::kDuration:
      return "s";
    case ParameterUnit::kSize:
      return "bytes";
    case ParameterUnit::kComputeRate:
    case ParameterUnit::kGemmRates:
      return "flop/s";
    case ParameterUnit::kClock:
      return "Hz";
    default:
      return "";
  }
}

// Appends the changes of every calibrated row of `rows` between `a` and `b`, named
// "<owner>.<key>" as `--set` names them; a list's entries where both have the size or core.
template <typename Model>
void add_rows(std::vector<ParameterChange>& changes, const std::string& owner,
              std::span<const ParameterRow<Model>> rows, const Model& a, const Model& b) {
  for (const ParameterRow<Model>& row : rows) {
    if (row.measured_by == MeasurementId::kNone) continue;
    const std::string name = owner + "." + std::string(row.key);
    const std::string unit = unit_of(row.unit);
    std::visit(
        [&](auto member) {
          using Member = decltype(member);
          if constexpr (std::is_same_v<Member, std::vector<MemoryPassRate> Model::*>) {
            for (const MemoryPassRate& x : a.*member)
              for (const MemoryPassRate& y : b.*member)
                if (x.working_set_bytes == y.working_set_bytes)
                  changes.push_back(
                      {name + " " +
                           std::to_string(static_cast<long long>(x.working_set_bytes) >> 20) +
                           " MiB",
                       unit, x.bytes_per_s, y.bytes_per_s});
          } else if constexpr (std::is_same_v<Member, std::vector<GemmRate> Model::*>) {
            for (const GemmRate& x : a.*member)
              for (const GemmRate& y : b.*member)
                if (x.n == y.n)
                  changes.push_back({name + " " + std::to_string(static_cast<long>(x.n)), unit,
                                     x.flops_per_s, y.flops_per_s});
          } else if constexpr (std::is_same_v<Member, std::vector<double> Model::*>) {
            const auto &x = a.*member, &y = b.*member;
            for (std::size_t core = 0; core < std::min(x.size(), y.size()); ++core)
              changes.push_back({name + " " + std::to_string(core), unit, x[core], y[core]});
          } else {
            const double x = scalar_value(row, a), y = scalar_value(row, b);
            // A figure that is 0 (off) in one profile was not measured there: older profiles.
            if (x != 0 && y != 0) changes.push_back({name, unit, x, y});
          }
        },
        row.member);
  }
}

}  // namespace

std::vector<ParameterChange> profile_changes(const Machine& previous, const Machine& now) {
  for (const Machine* m : {&previous, &now})
    if (!m->find_device("cpu0") || !m->find_device("disk0"))
      throw std::invalid_argument("profile '" + m->name() + "' has no cpu0 and disk0");
  std::vector<ParameterChange> changes;
  for (const Device& a : previous.devices()) {
    const auto id = now.find_device(a.name);
    if (!id || now.device(*id).kind != a.kind) continue;
    const Device& b = now.device(*id);
    if (a.kind == DeviceKind::kCpu) {
      add_rows(changes, a.name, cpu_parameters(), a.cpu, b.cpu);
      add_rows(changes, a.name + ".dram", dram_parameters(), a.cpu.dram, b.cpu.dram);
    } else if (a.kind == DeviceKind::kGpu) {
      add_rows(changes, a.name, gpu_parameters(), a.gpu, b.gpu);
    } else if (a.kind == DeviceKind::kDisk) {
      add_rows(changes, a.name, disk_parameters(), a.disk, b.disk);
    }
  }
  for (const Link& a : previous.links())
    if (const auto id = now.find_link(a.name))
      add_rows(changes, a.name, link_parameters(), a.model, now.link(*id).model);
  return changes;
}

}  // namespace opsim::calibration
