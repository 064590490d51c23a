// Ring reduce-scatter: the allreduce's first n-1 steps. Of an input of S on every GPU each
// ends with its reduced S/n; each hop carries (n-1)/n * S: (n-1)/n * S/B.
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_ring_reduce_scatter(const Machine& machine, std::span<const DeviceId> order, double bytes,
                             OpGraph& graph) {
  FusedBuilder fused(machine, "reduce_scatter", order, bytes, graph);
  sync::add_ring_steps(fused.builder, order, bytes, -1, 0, order.size() - 1);
}

}  // namespace opsim::collectives
