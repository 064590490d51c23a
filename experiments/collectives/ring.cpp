// Ring allreduce, reduce-scatter and all-gather over NCCL-style channels: each channel runs
// its share of S around its ring in steps of share*S/n per GPU. Reductions are fused into
// the copies. Allreduce: 2(n-1) steps, each directed hop carries 2(n-1)/n of its share.
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

Gates add_ring_steps(StepBuilder& builder, std::span<const DeviceId> order, double bytes,
                     int stream, std::size_t first_step, std::size_t end_step, Gates gates,
                     bool starts) {
  const std::size_t n = order.size();
  const double chunk_bytes = bytes / static_cast<double>(n);
  gates.resize(n);
  Gates next(n);
  sync::NameBuffer name;
  for (std::size_t step = first_step; step < end_step; ++step) {
    const bool scatter = step < n - 1;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = i + 1 == n ? 0 : i + 1;
      name.clear().text(scatter ? "rs c" : "ag c").number(static_cast<std::uint64_t>(stream));
      name.text(" s").number(step);
      const OpId send = builder.copy(order[i], order[to], chunk_bytes, name.view(), stream,
                                     starts && step == first_step);
      for (OpId before : gates[i]) builder.after(before, send);
      next[to] = {send};
    }
    gates = next;
  }
  return gates;
}

std::vector<DeviceId> add_ring(StepBuilder& builder, std::string_view op,
                               std::span<const DeviceId> gpus, double bytes) {
  const std::size_t n = gpus.size();
  const std::size_t first = op == "all_gather" ? n - 1 : 0;
  const std::size_t end = op == "reduce_scatter" ? n - 1 : 2 * (n - 1);
  const std::vector<Channel> channels = ring_channels(builder.machine(), gpus);
  for (std::size_t c = 0; c < channels.size(); ++c)
    add_ring_steps(builder, channels[c].order, bytes * channels[c].share, static_cast<int>(c),
                   first, end, {}, true);
  return channels.front().order;
}

double ring_transfer_s(const Machine& machine, std::string_view op, std::span<const DeviceId> gpus,
                       double bytes, Protocol protocol) {
  const std::size_t n = gpus.size();
  const double steps = op == "allreduce"                              ? 2.0 * (n - 1)
                       : op == "reduce_scatter" || op == "all_gather" ? n - 1.0
                                                                      : n;  // pipelines
  sync::LinkLoad load(machine);
  for (const Channel& channel : ring_channels(machine, gpus))
    for (std::size_t i = 0; i < n; ++i) {
      const DeviceId from = channel.order[i];
      const DeviceId to = channel.order[(i + 1) % n];
      const double eff = efficiency(machine.collectives(), protocol, link_class(machine, from, to));
      load.add(from, to, steps / static_cast<double>(n) * bytes * channel.share / eff);
    }
  return load.seconds();
}

}  // namespace opsim::collectives
