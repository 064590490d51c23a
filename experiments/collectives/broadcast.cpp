// Pipelined ring broadcast: the root (order[0]) cuts S into pieces and sends them to its
// successor, which forwards each piece as it arrives, around the ring to order[n-1].
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_ring_broadcast(const Machine& machine, std::span<const DeviceId> order, double bytes,
                        std::size_t chunks, OpGraph& graph) {
  add_pipeline(machine, "broadcast", order, bytes, chunks, graph);
}

}  // namespace opsim::collectives
