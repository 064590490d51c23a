// Pipelined ring reduce, the broadcast reversed: pieces start at the root's successor
// (order[1]) and travel the ring, each GPU adding its own part inside the copy, to end on
// the root (order[0]).
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_ring_reduce(const Machine& machine, std::span<const DeviceId> order, double bytes,
                     std::size_t chunks, OpGraph& graph) {
  std::vector<DeviceId> chain(order.begin() + 1, order.end());
  chain.push_back(order.front());
  add_pipeline(machine, "reduce", chain, bytes, chunks, graph);
}

}  // namespace opsim::collectives
