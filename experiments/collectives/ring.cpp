// Ring allreduce, reduce-scatter and all-gather over NCCL-style channels: each channel runs
// its share of S around its ring in steps of share*S/n per GPU. Reductions are fused into
// the copies. Allreduce: 2(n-1) steps, each directed hop carries 2(n-1)/n of its share.
// Across servers a step moves in NCCL's slices, and each NIC carries as many of NCCL's
// ring channels as it would (ring_network_stretch); a channel alone on its NIC pays each
// step's latency in turn, two channels on a NIC hide part of each other's
// (two_channel_wait_s).
#include <algorithm>
#include <utility>

#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

namespace {

// A gate of one op, in place: a ring sets n of them per step.
void gate_on(std::vector<OpId>& gate, OpId op) {
  if (gate.size() == 1)
    gate[0] = op;
  else
    gate.assign(1, op);
}

}  // namespace

Gates add_ring_steps(StepBuilder& builder, std::span<const DeviceId> order, double bytes,
                     int stream, std::size_t first_step, std::size_t end_step, Gates gates,
                     bool starts) {
  const std::size_t n = order.size();
  const double chunk_bytes = bytes / static_cast<double>(n);
  // A step across servers longer than one of NCCL's slices is forwarded slice by slice: its
  // head (one slice) waits for the previous hop's head, and after the first step spends its
  // whole latency while it waits behind the previous step's tail (queued_head); its tail
  // follows on the wire and waits for the previous hop's tail.
  // The copy carries the steps of every channel on its NIC; each channel slices its own.
  const double head_bytes = std::min(chunk_bytes, builder.slice_bytes());
  const double tail_bytes = chunk_bytes - head_bytes;
  const double channels =
      static_cast<double>(std::max<std::size_t>(1, builder.ring_channels_per_nic()));
  std::vector<bool> sliced(n, false);
  for (std::size_t i = 0; i < n; ++i)
    sliced[i] = chunk_bytes / channels > builder.slice_bytes() &&
                link_class(builder.machine(), order[i], order[(i + 1) % n]) == LinkClass::kNetwork;
  gates.resize(n);
  Gates heads = gates;
  Gates next_heads(n);
  Gates next(n);
  sync::NameBuffer name;
  sync::NameBuffer tail_name;
  for (std::size_t step = first_step; step < end_step; ++step) {
    const bool scatter = step < n - 1;
    name.clear().text(scatter ? "rs c" : "ag c").number(static_cast<std::uint64_t>(stream));
    name.text(" s").number(step);
    tail_name.clear().text(name.view()).text(" tail");
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = i + 1 == n ? 0 : i + 1;
      const bool first = starts && step == first_step;
      if (!sliced[i]) {
        const OpId send =
            builder.shared_nic_step(order[i], order[to], chunk_bytes, name.view(), stream, first);
        for (OpId before : gates[i]) builder.after(before, send);
        gate_on(next[to], send);
        gate_on(next_heads[to], send);
        continue;
      }
      const OpId head =
          step == first_step
              ? builder.copy(order[i], order[to], head_bytes, name.view(), stream, first)
              : builder.queued_head(order[i], order[to], head_bytes, name.view(), stream);
      for (OpId before : heads[i]) builder.after(before, head);
      const OpId tail =
          builder.continue_copy(order[i], order[to], tail_bytes, tail_name.view(), stream);
      builder.after(head, tail);
      for (OpId before : gates[i]) builder.after(before, tail);
      gate_on(next_heads[to], head);
      gate_on(next[to], tail);
    }
    // Every position of next and next_heads is set each step: swap rather than copy.
    std::swap(heads, next_heads);
    std::swap(gates, next);
  }
  return gates;
}

std::vector<DeviceId> add_ring(StepBuilder& builder, std::string_view op,
                               std::span<const DeviceId> gpus, double bytes) {
  const std::size_t n = gpus.size();
  const std::size_t first = op == "all_gather" ? n - 1 : 0;
  const std::size_t end = op == "reduce_scatter" ? n - 1 : 2 * (n - 1);
  const std::vector<Channel> channels = ring_channels(builder.machine(), gpus);
  builder.stretch_network_payload(
      ring_network_stretch(builder.machine(), gpus, builder.protocol()));
  builder.set_ring_channels_per_nic(ring_channels_per_nic_of(builder.machine(), gpus));
  for (std::size_t c = 0; c < channels.size(); ++c)
    add_ring_steps(builder, channels[c].order, bytes * channels[c].share, static_cast<int>(c),
                   first, end, {}, true);
  return channels.front().order;
}

std::size_t ring_channels_per_nic(std::size_t nics) {
  return nics <= 4 ? 2 : 1;
}

double ring_network_stretch(const Machine& machine, std::span<const DeviceId> gpus,
                            Protocol protocol) {
  const CollectiveModel& model = machine.collectives();
  const auto nodes = gpus_by_node(machine, gpus);
  if (protocol == Protocol::kWire || model.ring_network_channel_bytes_per_s <= 0 ||
      nodes.size() < 2)
    return 1.0;
  // A ring per rail, each through its own NIC.
  const std::size_t rails = nodes.front().size();
  const double channels_per_nic = static_cast<double>(ring_channels_per_nic(rails));
  const DeviceId from = nodes[0].front();
  const DeviceId to = nodes[1][rails > 1 ? rails - 1 : 0];
  if (link_class(machine, from, to) != LinkClass::kNetwork) return 1.0;
  const double links_bytes_per_s =
      machine.route_bytes_per_s(from, to) * efficiency(model, protocol, LinkClass::kNetwork);
  const double channels_bytes_per_s = channels_per_nic * model.ring_network_channel_bytes_per_s *
                                      protocol_efficiency(model, protocol);
  return std::max(1.0, links_bytes_per_s / channels_bytes_per_s);
}

std::size_t ring_channels_per_nic_of(const Machine& machine, std::span<const DeviceId> gpus) {
  const auto nodes = gpus_by_node(machine, gpus);
  return nodes.size() > 1 ? ring_channels_per_nic(nodes.front().size()) : 0;
}

double two_channel_wait_s(double latency_s, double channel_wire_s) {
  const double l = latency_s;
  const double t = channel_wire_s;
  if (l <= 0) return 0;
  if (t <= 0) return l;
  // Offset d of the other channel's step: the period is 2t + l - d while the transfers
  // overlap (d < min(t, l)); beyond, l + t where l > t (the NIC idles between them), else 2t.
  if (l < t) return l * l / (2 * t);  // mean over d in [0, t] of the period less 2t
  const double half_period = (l + t) / 2;
  const double overlapping = t * (1.5 * t + l);  // integral over [0, t] of 2t + l - d
  const double apart = (half_period - t) * (l + t);
  return (overlapping + apart) / half_period - 2 * t;
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
