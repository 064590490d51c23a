// Ring all-gather: the allreduce's last n-1 steps. Each GPU starts with S/n and ends with
// the gathered S; each hop carries (n-1)/n * S: (n-1)/n * S/B.
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_ring_all_gather(const Machine& machine, std::span<const DeviceId> order, double bytes,
                         OpGraph& graph) {
  FusedBuilder fused(machine, "all_gather", order, bytes, graph);
  const std::size_t n = order.size();
  sync::add_ring_steps(fused.builder, order, bytes, -1, n - 1, 2 * (n - 1));
}

}  // namespace opsim::collectives
