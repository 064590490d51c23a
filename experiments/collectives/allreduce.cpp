// Ring allreduce: n-1 reduce-scatter steps then n-1 all-gather steps of S/n each; every
// directed hop carries 2(n-1)/n * S, so it takes 2(n-1)/n * S/B on the narrowest hop B.
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_ring_allreduce(const Machine& machine, std::span<const DeviceId> order, double bytes,
                        OpGraph& graph) {
  FusedBuilder fused(machine, "allreduce", order, bytes, graph);
  sync::add_ring_allreduce(fused.builder, order, bytes, -1);
}

}  // namespace opsim::collectives
