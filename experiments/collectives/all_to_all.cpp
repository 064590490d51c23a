// All-to-all: every GPU sends S/n to each other GPU directly, all at once (NCCL's
// grouped send/recv). Each GPU sends and receives (n-1)/n * S.
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_direct_all_to_all(const Machine& machine, std::span<const DeviceId> order, double bytes,
                           OpGraph& graph) {
  FusedBuilder fused(machine, "all_to_all", order, bytes, graph);
  const double piece = bytes / static_cast<double>(order.size());
  sync::NameBuffer name;
  // In rounds of peer offset k, as NCCL posts them: each round is a permutation, so when a
  // GPU's copy engines take its sends one after another no GPU receives two at once.
  const std::size_t n = order.size();
  for (std::size_t k = 1; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = (i + k) % n;
      name.clear().text("a2a ").number(i).text("→").number(j);
      fused.builder.copy(order[i], order[j], piece, name.view());
    }
}

}  // namespace opsim::collectives
