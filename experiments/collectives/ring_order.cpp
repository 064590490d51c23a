#include "experiments/collectives/collective_common.hpp"
#include "experiments/sync/nvlink_cycles.hpp"

namespace opsim::collectives {

std::vector<DeviceId> ring_order(const Machine& machine, std::span<const DeviceId> gpus) {
  std::vector<DeviceId> order(gpus.begin(), gpus.end());
  const std::vector<DeviceId> given(gpus.begin(), gpus.end());
  const sync::Cycle cycle = sync::find_widest_hamiltonian_cycle(sync::GpuLinkGraph(machine, given));
  if (!cycle.empty())
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = given[cycle[i]];
  return order;
}

}  // namespace opsim::collectives
