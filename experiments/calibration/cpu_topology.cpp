#include "experiments/calibration/cpu_topology.hpp"

#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace opsim::calibration {
namespace {

std::optional<long> read_number(const std::filesystem::path& file) {
  std::ifstream in(file);
  long value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int> physical_cores(const std::vector<int>& cpus,
                                  const std::filesystem::path& cpu_root) {
  if (cpus.empty()) return std::nullopt;
  std::set<std::pair<long, long>> cores;
  for (const int cpu : cpus) {
    const std::filesystem::path topology = cpu_root / ("cpu" + std::to_string(cpu)) / "topology";
    const std::optional<long> package = read_number(topology / "physical_package_id");
    const std::optional<long> core = read_number(topology / "core_id");
    if (!package || !core) return std::nullopt;
    cores.emplace(*package, *core);
  }
  return static_cast<int>(cores.size());
}

}  // namespace opsim::calibration
