// A chain of GPUs passing k pieces along, each hop in order: with equal hops of B the last
// piece arrives after (k + n - 2) piece times, (k + n - 2)/k * S/B.
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_pipeline(const Machine& machine, std::string_view op, std::span<const DeviceId> chain,
                  double bytes, std::size_t chunks, OpGraph& graph) {
  FusedBuilder fused(machine, op, chain, bytes, graph);
  const std::size_t hops = chain.size() - 1;
  const double piece = bytes / static_cast<double>(chunks);
  std::vector<OpId> previous_piece(hops, 0);  // per hop: the copy of the piece before
  sync::NameBuffer name;
  for (std::size_t c = 0; c < chunks; ++c) {
    OpId arrived = 0;  // this piece's copy into chain[h]
    for (std::size_t h = 0; h < hops; ++h) {
      name.clear().text(op == "reduce" ? "red h" : "bc h").number(h).text(" c").number(c);
      const OpId copy = fused.builder.copy(chain[h], chain[h + 1], piece, name.view());
      if (h > 0) fused.builder.after(arrived, copy);
      if (c > 0) fused.builder.after(previous_piece[h], copy);
      previous_piece[h] = copy;
      arrived = copy;
    }
  }
}

}  // namespace opsim::collectives
