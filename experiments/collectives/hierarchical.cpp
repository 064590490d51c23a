// Hierarchical allreduce across servers: a ring reduce-scatter inside every server (its
// NVLink or NVSwitch channels), so local rank r holds shard r of S/g; then per local rank (a
// rail: NIC r of every server) a ring allreduce of that shard across the servers; then a
// ring all-gather inside every server. Each phase of a GPU waits for its own part of the
// phase before. S goes in `pieces` pieces, one after another: while one piece crosses the
// servers the next is reduced inside them (reduce-scatter, crossing and all-gather each run
// on channel lanes of their own). Op count per piece: 2(N-1)N copies per rail, 2(g-1)g per server.
#include <algorithm>

#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_hierarchical(StepBuilder& builder, std::span<const DeviceId> gpus, double total_bytes,
                      std::size_t pieces) {
  const std::vector<std::vector<DeviceId>> nodes = gpus_by_node(builder.machine(), gpus);
  const std::size_t g = nodes.front().size();
  const std::size_t servers = nodes.size();
  std::vector<std::vector<Channel>> channels;
  std::size_t most_channels = 1;
  for (const auto& node : nodes) {
    channels.push_back(ring_channels(builder.machine(), node));
    most_channels = std::max(most_channels, channels.back().size());
  }
  const double bytes = total_bytes / static_cast<double>(pieces);
  // Per server and local GPU (by its index in the server): what its next phase waits for.
  std::vector<std::vector<std::vector<OpId>>> ready;
  auto local_index = [&](std::size_t s, DeviceId gpu) {
    for (std::size_t i = 0; i < g; ++i)
      if (nodes[s][i] == gpu) return i;
    return std::size_t{0};
  };
  // Runs steps [first, end) of every server's ring channels after `ready`, then sets it; on
  // lanes from `first_stream` on, so that one piece's all-gather does not hold up the next
  // piece's reduce-scatter.
  auto intra = [&](std::size_t first, std::size_t end, bool starts, std::size_t first_stream) {
    if (g < 2) return;
    for (std::size_t s = 0; s < servers; ++s) {
      std::vector<std::vector<OpId>> next(g);
      for (std::size_t c = 0; c < channels[s].size(); ++c) {
        const Channel& channel = channels[s][c];
        Gates gates(g);
        for (std::size_t i = 0; i < g; ++i) gates[i] = ready[s][local_index(s, channel.order[i])];
        gates = add_ring_steps(builder, channel.order, bytes * channel.share,
                               static_cast<int>(first_stream + c), first, end, gates, starts);
        for (std::size_t i = 0; i < g; ++i)
          for (OpId op : gates[i]) next[local_index(s, channel.order[i])].push_back(op);
      }
      ready[s] = std::move(next);
    }
  };
  // What the last piece's reduce-scatter delivered to each GPU: the next piece's starts after
  // it. A lane runs ops in the order they become ready, so without this every piece's first
  // step would go before any second step and no piece would finish early to cross.
  std::vector<std::vector<std::vector<OpId>>> scattered(servers, std::vector<std::vector<OpId>>(g));
  for (std::size_t piece = 0; piece < pieces; ++piece) {
    ready = scattered;
    intra(0, g - 1, piece == 0, 0);
    scattered = ready;
    for (std::size_t r = 0; r < g; ++r) {
      std::vector<DeviceId> rail(servers);
      Gates gates(servers);
      for (std::size_t s = 0; s < servers; ++s) {
        rail[s] = nodes[s][r];
        gates[s] = ready[s][r];
      }
      gates = add_ring_steps(builder, rail, bytes / static_cast<double>(g),
                             static_cast<int>(most_channels), 0, 2 * (servers - 1), gates,
                             g < 2 && piece == 0);
      for (std::size_t s = 0; s < servers; ++s) ready[s][r] = gates[s];
    }
    intra(g - 1, 2 * (g - 1), false, most_channels + 1);
  }
}

}  // namespace opsim::collectives
