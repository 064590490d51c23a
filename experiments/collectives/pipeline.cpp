// Pipelined broadcast and reduce over the ring channels: the root (gpus[0]) cuts its share
// of S into k pieces that travel along the channel's ring, each GPU forwarding a piece as
// soon as it has it (reduce: the reverse, ending on the root, each GPU adding its part in
// the copy). With equal hops of B the last piece arrives after (k + n - 2) piece times.
// Only the first piece pays each step's latency: the pieces behind it are in flight.
#include <algorithm>

#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

namespace {

void add_chain(StepBuilder& builder, std::string_view op, std::span<const DeviceId> chain,
               double bytes, std::size_t chunks, int stream) {
  const std::size_t hops = chain.size() - 1;
  const double piece = bytes / static_cast<double>(chunks);
  std::vector<OpId> previous_piece(hops, 0);  // per hop: the copy of the piece before
  sync::NameBuffer name;
  for (std::size_t c = 0; c < chunks; ++c) {
    OpId arrived = 0;  // this piece's copy into chain[h]
    for (std::size_t h = 0; h < hops; ++h) {
      name.clear().text(op == "reduce" ? "red h" : "bc h").number(h).text(" c").number(c);
      const OpId copy =
          builder.copy(chain[h], chain[h + 1], piece, name.view(), stream, c == 0, c == 0);
      if (h > 0) builder.after(arrived, copy);
      if (c > 0) builder.after(previous_piece[h], copy);
      previous_piece[h] = copy;
      arrived = copy;
    }
  }
}

}  // namespace

std::vector<DeviceId> add_pipeline(StepBuilder& builder, std::string_view op,
                                   std::span<const DeviceId> gpus, double bytes,
                                   std::size_t chunks) {
  const std::vector<Channel> channels = ring_channels(builder.machine(), gpus);
  for (std::size_t c = 0; c < channels.size(); ++c) {
    std::vector<DeviceId> chain = channels[c].order;
    // The root first (broadcast) or last (reduce).
    const auto root = std::find(chain.begin(), chain.end(), gpus.front());
    std::rotate(chain.begin(), root, chain.end());
    if (op == "reduce") std::rotate(chain.begin(), chain.begin() + 1, chain.end());
    add_chain(builder, op, chain, bytes * channels[c].share, chunks, static_cast<int>(c));
  }
  return channels.front().order;
}

}  // namespace opsim::collectives
