// All-to-all: every GPU sends S/n to each other GPU directly (NCCL's grouped send/recv) and,
// out of place, copies its own S/n into its output (a send to itself, before the others),
// posted in rounds of peer offset k: each round is a permutation, so when a GPU's channel
// lane takes its sends one after another no GPU receives two at once. Each GPU sends and
// receives (n-1)/n * S. (One round at a time follows the published 8 x H100 table's ramp:
// several rounds at once put opsim 30 % above its busbw at 64 MiB, one 15 %.) Send/recv
// (nccl-tests' sendrecv_perf): GPU i sends S to GPU i+1. A send to another server whose GPU sits on
// another rail goes as NCCL's PXN sends it: over NVLink to the local GPU of the receiver's rail,
// then out through that GPU's NIC (its forwards on a lane of their own), never through a CPU's PCIe
// root. A lone send (sendrecv) reaches its relay in pieces that the relay forwards as they land;
// in an all-to-all the relay's forwards already overlap the next rounds. Inside a server a send
// runs on the channels NCCL gives its size (p2p_channels_for), each at most p2p_channel_bandwidth
// and all at most p2p_peak_bandwidth: a smaller send has fewer channels, so a slower rate. Across
// servers it runs on p2p_network_channels, each at most p2p_network_channel_bandwidth, and then a
// stage they share (p2p_network_shared_bandwidth).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>

#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

namespace {

constexpr int kOwnLane = 0;    // a GPU's own sends, one round after another
constexpr int kRelayLane = 1;  // forwards of PXN relays
constexpr int kSelfLane = 2;   // a GPU's copy of its own part, beside its sends

// For each GPU, its server's GPUs in order and its index among them (its rail).
class Rails {
 public:
  Rails(const Machine& machine, std::span<const DeviceId> gpus)
      : nodes_(gpus_by_node(machine, gpus)) {
    for (std::size_t s = 0; s < nodes_.size(); ++s)
      for (std::size_t i = 0; i < nodes_[s].size(); ++i) place_[nodes_[s][i]] = {s, i};
  }
  // The GPU beside `from` on the rail of `to`, if `to` is on another server and rail and the
  // two GPUs share NVLink; else kNoDevice (the send goes straight).
  DeviceId relay(const Machine& machine, DeviceId from, DeviceId to) const {
    const auto [from_node, from_rail] = place_.at(from);
    const auto [to_node, to_rail] = place_.at(to);
    if (from_node == to_node || from_rail == to_rail) return kNoDevice;
    if (to_rail >= nodes_[from_node].size()) return kNoDevice;
    const DeviceId relay = nodes_[from_node][to_rail];
    return link_class(machine, from, relay) == LinkClass::kNvlink ? relay : kNoDevice;
  }

 private:
  std::vector<std::vector<DeviceId>> nodes_;
  std::map<DeviceId, std::pair<std::size_t, std::size_t>> place_;
};

// A PXN relay's pieces: NCCL_P2P_NET_CHUNKSIZE's default (128 KiB) each, at most
// kMostRelayPieces (a few pieces already hide all but a small share of the shorter hop).
constexpr double kP2pNetChunkBytes = 128.0 * 1024;
constexpr double kMostRelayPieces = 8;

std::size_t relay_pieces(double bytes) {
  return static_cast<std::size_t>(
      std::clamp(std::ceil(bytes / kP2pNetChunkBytes), 1.0, kMostRelayPieces));
}

// `stretch`: how many times its bytes the send's last hop moves (p2p_stretch).
void send(StepBuilder& builder, const Rails& rails, DeviceId from, DeviceId to, double bytes,
          std::string_view name, bool first, double stretch = 1.0, std::size_t pieces = 1) {
  const DeviceId relay = rails.relay(builder.machine(), from, to);
  if (relay == kNoDevice) {
    builder.copy(from, to, bytes * stretch, name, kOwnLane, first);
    return;
  }
  // The relay forwards each piece as it lands, so the two hops overlap but for one piece.
  const double piece = bytes / static_cast<double>(pieces);
  for (std::size_t p = 0; p < pieces; ++p) {
    const OpId to_relay = p == 0 ? builder.copy(from, relay, piece, name, kOwnLane, first)
                                 : builder.continue_copy(from, relay, piece, name, kOwnLane);
    const OpId forward = p == 0
                             ? builder.copy(relay, to, piece * stretch, name, kRelayLane, false)
                             : builder.continue_copy(relay, to, piece * stretch, name, kRelayLane);
    builder.after(to_relay, forward);
  }
}

// NCCL_P2P_NVL_CHUNKSIZE's default: a part passes 32 of them, or is below 1/8 of one.
constexpr double kP2pNvlinkChunkBytes = 512.0 * 1024;

}  // namespace

std::size_t p2p_channels_for(const CollectiveModel& model, double bytes, std::size_t ranks) {
  const std::size_t most = static_cast<std::size_t>(model.p2p_channels);
  std::size_t fewest = most;
  while (fewest * ranks > most && fewest > 1) fewest /= 2;
  const double smallest_part = kP2pNvlinkChunkBytes / 8;
  const double largest_part = kP2pNvlinkChunkBytes * 32;
  std::size_t channels =
      std::min(fewest, static_cast<std::size_t>(std::max(1.0, std::ceil(bytes / smallest_part))));
  while (bytes / static_cast<double>(channels) > largest_part && channels <= most / 2)
    channels *= 2;
  return channels;
}

namespace {

// The comm's p2p channels with servers of `gpus_per_server` GPUs: its ring channels, doubled
// by ncclTopoPostset, rounded up to a power of 2.
std::size_t comm_p2p_channels(std::size_t gpus_per_server) {
  const std::size_t comm_channels = 2 * gpus_per_server * ring_channels_per_nic(gpus_per_server);
  return std::bit_ceil(std::min<std::size_t>(comm_channels, 64));
}

// What `channels` of one send across servers move, wire bytes/s: each in parallel, then the
// stage they share.
double network_channels_bytes_per_s(const CollectiveModel& model, std::size_t channels) {
  const double parallel_bytes_per_s =
      static_cast<double>(channels) * model.p2p_network_channel_bytes_per_s;
  if (model.p2p_network_shared_bytes_per_s <= 0) return parallel_bytes_per_s;
  return 1 / (1 / parallel_bytes_per_s + 1 / model.p2p_network_shared_bytes_per_s);
}

// What `channels` of one send inside a server move, wire bytes/s: each at its rate, all of
// them at most the peak (infinite: neither is set).
double inside_channels_bytes_per_s(const CollectiveModel& model, std::size_t channels) {
  constexpr double kNoLimit = std::numeric_limits<double>::infinity();
  const double parallel_bytes_per_s =
      model.p2p_channel_bytes_per_s > 0
          ? static_cast<double>(channels) * model.p2p_channel_bytes_per_s
          : kNoLimit;
  return std::min(parallel_bytes_per_s,
                  model.p2p_peak_bytes_per_s > 0 ? model.p2p_peak_bytes_per_s : kNoLimit);
}

}  // namespace

std::size_t p2p_network_channels_for(const CollectiveModel& model, std::size_t ranks,
                                     std::size_t gpus_per_server) {
  constexpr std::size_t kPeersPerBatch = 8;  // NCCL_MAX_DEV_WORK_P2P_PER_BATCH
  const std::size_t rounds = (ranks + kPeersPerBatch - 1) / kPeersPerBatch;
  std::size_t channels = std::bit_ceil(static_cast<std::size_t>(model.p2p_network_channels));
  while (channels * rounds > comm_p2p_channels(gpus_per_server) && channels > 1) channels /= 2;
  return channels;
}

double p2p_stretch(const Machine& machine, Protocol protocol, DeviceId from, DeviceId to,
                   double bytes, std::size_t ranks, std::size_t gpus_per_server) {
  const CollectiveModel& model = machine.collectives();
  const LinkClass link = link_class(machine, from, to);
  const bool across = link == LinkClass::kNetwork;
  const bool limited = across ? model.p2p_network_channel_bytes_per_s > 0
                              : link == LinkClass::kNvlink && (model.p2p_channel_bytes_per_s > 0 ||
                                                               model.p2p_peak_bytes_per_s > 0);
  if (protocol == Protocol::kWire || !limited) return 1.0;
  const std::size_t channels = across ? p2p_network_channels_for(model, ranks, gpus_per_server)
                                      : p2p_channels_for(model, bytes, ranks);
  const double links_bytes_per_s =
      machine.route_bytes_per_s(from, to) * efficiency(model, protocol, link);
  const double channels_bytes_per_s = (across ? network_channels_bytes_per_s(model, channels)
                                              : inside_channels_bytes_per_s(model, channels)) *
                                      protocol_efficiency(model, protocol);
  return std::max(1.0, links_bytes_per_s / channels_bytes_per_s);
}

double all_to_all_network_stretch(const Machine& machine, Protocol protocol,
                                  std::span<const DeviceId> gpus) {
  const CollectiveModel& model = machine.collectives();
  const auto nodes = gpus_by_node(machine, gpus);
  if (protocol == Protocol::kWire || nodes.size() < 2 || model.p2p_network_channel_bytes_per_s <= 0)
    return 1.0;
  const std::size_t g = nodes.front().size();
  const std::size_t per_peer = p2p_network_channels_for(model, gpus.size(), g);
  const std::size_t peers_at_once =
      std::min(gpus.size() - g, std::max<std::size_t>(1, comm_p2p_channels(g) / per_peer));
  const DeviceId from = nodes[0].front();
  const DeviceId to = nodes[1].front();
  const double links_bytes_per_s =
      machine.route_bytes_per_s(from, to) * efficiency(model, protocol, LinkClass::kNetwork);
  const double channels_bytes_per_s = static_cast<double>(peers_at_once) *
                                      network_channels_bytes_per_s(model, per_peer) *
                                      protocol_efficiency(model, protocol);
  return std::max(1.0, links_bytes_per_s / channels_bytes_per_s);
}

void add_direct_all_to_all(StepBuilder& builder, std::span<const DeviceId> gpus, double bytes) {
  const std::size_t n = gpus.size();
  const double piece = bytes / static_cast<double>(n);
  const Rails rails(builder.machine(), gpus);
  const double across_stretch =
      all_to_all_network_stretch(builder.machine(), builder.protocol(), gpus);
  sync::NameBuffer name;
  // Out of place (nccl-tests' first columns) each GPU also copies its own part into its
  // output: NCCL's send to itself, its first round, on the channels its sends use. Where those
  // channels, not the NIC, bound the sends it holds them up; elsewhere it runs beside them.
  if (builder.protocol() != Protocol::kWire)
    for (std::size_t i = 0; i < n; ++i) {
      name.clear().text("a2a ").number(i).text("→").number(i);
      builder.self_copy(gpus[i], piece, name.view(), across_stretch > 1 ? kOwnLane : kSelfLane);
    }
  for (std::size_t k = 1; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = (i + k) % n;
      name.clear().text("a2a ").number(i).text("→").number(j);
      const bool across = link_class(builder.machine(), gpus[i], gpus[j]) == LinkClass::kNetwork;
      send(builder, rails, gpus[i], gpus[j], piece, name.view(), k == 1,
           across ? across_stretch : 1.0);
    }
}

void add_sendrecv(StepBuilder& builder, std::span<const DeviceId> gpus, double bytes) {
  const std::size_t n = gpus.size();
  const Rails rails(builder.machine(), gpus);
  const std::size_t per_server = gpus_by_node(builder.machine(), gpus).front().size();
  sync::NameBuffer name;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = (i + 1) % n;
    name.clear().text("send ").number(i).text("→").number(j);
    const double stretch =
        p2p_stretch(builder.machine(), builder.protocol(), gpus[i], gpus[j], bytes, n, per_server);
    send(builder, rails, gpus[i], gpus[j], bytes, name.view(), true, stretch, relay_pieces(bytes));
  }
}

}  // namespace opsim::collectives
