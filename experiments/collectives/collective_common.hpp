// Internal to the collectives: protocols and their costs, the builder that adds one
// protocol step as a copy, the ring channels, and one generator per algorithm (one file each).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "experiments/collectives/collective.hpp"
#include "experiments/sync/sync_common.hpp"

namespace opsim::collectives {

/// kWire: the links alone (their rate and latency, no protocol cost).
enum class Protocol { kWire, kLL, kLL128, kSimple };
/// The family whose step latencies a collective pays (NCCL's ring or tree rows; NVLS and the
/// NVLS tree have their own).
enum class Family { kRing, kTree, kNvls, kNvlsTree };
/// What a step crosses: NCCL's NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET.
enum class LinkClass { kNvlink, kPcie, kNetwork };

Protocol protocol_named(std::string_view name);
std::string_view protocol_name(Protocol protocol);

/// The class of the route src -> dst: network when it crosses InfiniBand or Ethernet, else
/// NVLink when it crosses only NVLinks (and switches), else PCIe.
LinkClass link_class(const Machine& machine, DeviceId src, DeviceId dst);
/// Payload per byte a protocol moves (LL's 4 data bytes of 8, ...); 1 for kWire.
double protocol_efficiency(const CollectiveModel& model, Protocol protocol);
/// Payload per byte on the wire: the protocol's efficiency times the link class's.
double efficiency(const CollectiveModel& model, Protocol protocol, LinkClass link);
/// The fixed cost of one step of `family` over `link`; 0 for kWire.
double step_latency_s(const CollectiveModel& model, Family family, Protocol protocol,
                      LinkClass link);
/// The launch latency once per collective; 0 for kWire.
double base_latency_s(const CollectiveModel& model, Family family, Protocol protocol);

/// Adds copies, each one protocol step: its bytes are the payload over the route's
/// efficiency, its fixed delay the step's latency less the route's own (never below 0), plus
/// the collective's launch latency on a step that starts it.
class StepBuilder {
 public:
  StepBuilder(const Machine& machine, OpGraph& graph, Family family, Protocol protocol)
      : machine_(machine), graph_(graph), family_(family), protocol_(protocol) {}

  /// `pays_latency`: false for a pipelined piece behind the first (the pipeline hides its
  /// step latency); `first`: the step starts the collective (pays the launch latency).
  OpId copy(DeviceId src, DeviceId dst, double bytes, std::string_view name, int stream, bool first,
            bool pays_latency = true);
  /// The first slice of a step queued behind the previous step's on a connection that NCCL
  /// keeps busy: its whole latency, the route's included, is a delay its wait for the lane
  /// hides (the wire carries the previous step meanwhile).
  OpId queued_head(DeviceId src, DeviceId dst, double bytes, std::string_view name, int stream);
  /// The rest of a transfer whose first part went before it on the same lane: its bytes
  /// follow that part's on the wire, with neither a step latency nor a route latency.
  OpId continue_copy(DeviceId src, DeviceId dst, double bytes, std::string_view name, int stream);
  /// A copy inside `gpu`'s memory by the collective's thread blocks (no step latency), at
  /// most p2p_self_copy_bandwidth (its bytes stretched to keep within it).
  OpId self_copy(DeviceId gpu, double bytes, std::string_view name, int stream);
  void after(OpId before, OpId op) { graph_.add_dependency(before, op); }
  const Machine& machine() const { return machine_; }
  Protocol protocol() const { return protocol_; }
  /// The payload of one of NCCL's ring slices in this protocol (infinite for wire).
  double slice_bytes() const;
  /// Every later copy moves `factor` times its payload over the wire (>= 1): a protocol
  /// slower than its links, e.g. LL at NCCL's llMaxBws.
  void stretch_payload(double factor) { payload_stretch_ = factor; }
  /// Every later copy across servers moves `factor` times more again: a channel slower than
  /// its NIC (ring_network_stretch).
  void stretch_network_payload(double factor) { network_stretch_ = factor; }
  /// Every later copy across servers is a step of a ring whose NICs carry `channels` of
  /// NCCL's ring channels each (0: not such a ring). With 1 the channel has its NIC to
  /// itself: its step latency follows the channel's previous step instead of overlapping it,
  /// and only the bytes after a step's first slice keep to the channel's rate. With 2 a copy
  /// carries both channels' steps (see shared_nic_step).
  void set_ring_channels_per_nic(std::size_t channels) { ring_channels_per_nic_ = channels; }
  std::size_t ring_channels_per_nic() const { return ring_channels_per_nic_; }
  /// A whole step (no slice behind it) across servers of a ring whose NIC carries two
  /// channels, both channels' shares in one copy: its latency follows the channel's previous
  /// step, less what the other channel's transfer hides on average (two_channel_wait_s).
  /// Elsewhere a plain copy.
  OpId shared_nic_step(DeviceId src, DeviceId dst, double bytes, std::string_view name, int stream,
                       bool first);
  /// Every later copy across servers costs `seconds` per step (route latency included)
  /// instead of the family's step latency.
  void set_network_step_latency(double seconds);
  OpGraph& graph() { return graph_; }

 private:
  /// What a copy from src to dst needs of its route and protocol, looked up once per pair: a
  /// collective of n GPUs adds thousands of copies over the same few pairs.
  struct HopFacts {
    LinkClass link = LinkClass::kNvlink;
    double route_latency_s = 0;
    double route_bytes_per_s = 0;
    double efficiency = 1;    // payload per byte on the wire, in this protocol
    double step_delay_s = 0;  // the step latency less the route's, never below 0
  };
  HopFacts hop(DeviceId src, DeviceId dst);
  HopFacts find_hop(DeviceId src, DeviceId dst);

  const Machine& machine_;
  OpGraph& graph_;
  Family family_;
  Protocol protocol_;
  double payload_stretch_ = 1.0;
  double network_stretch_ = 1.0;
  std::size_t ring_channels_per_nic_ = 0;
  double network_step_s_ = -1;                        // < 0: the family's step latency
  std::unordered_map<std::uint64_t, HopFacts> hops_;  // by src << 32 | dst
  // By source device: the pair it was last looked up with. A ring channel sends from each
  // GPU to one neighbour, so this answers almost every lookup without touching the table.
  struct LastHop {
    DeviceId dst = kNoDevice;
    HopFacts facts;
  };
  std::vector<LastHop> last_hop_by_src_;
};

/// A ring (GPUs in order), its share of the data and its narrowest hop's rate (the rate of a
/// hop shared by several rings divided among them), bytes per second.
struct Channel {
  std::vector<DeviceId> order;
  double share = 1.0;
  double bytes_per_s = 0;
};

/// NCCL-style channels. GPUs on several servers of g GPUs each: g rings, ring r entering and
/// leaving every server through the NICs of local GPUs r and r-1 (rails), so every NIC
/// carries one ring each way. One server: every edge-disjoint Hamiltonian cycle over direct
/// GPU links (NVLink), run both ways, the data split in proportion to each directed ring's
/// bandwidth; without such a cycle one ring in the given order (through switches).
std::vector<Channel> ring_channels(const Machine& machine, std::span<const DeviceId> gpus);

/// Per GPU (by position in a ring's order): the ops its next step must wait for.
using Gates = std::vector<std::vector<OpId>>;

/// Steps [first_step, end_step) of a ring allreduce of `bytes` over `order` (step < n-1:
/// reduce-scatter, else all-gather), each step one copy of bytes/n per GPU, stream `stream`.
/// `gates` (by position in `order`) are what each GPU's first step waits for; returns the
/// gates after the last step. `starts` marks the steps that launch the collective.
Gates add_ring_steps(StepBuilder& builder, std::span<const DeviceId> order, double bytes,
                     int stream, std::size_t first_step, std::size_t end_step, Gates gates,
                     bool starts);

// Generators: each adds its collective of S = `bytes` over `gpus` to the builder's graph;
// the ring ones return their first ring's order.
std::vector<DeviceId> add_ring(StepBuilder& builder, std::string_view op,
                               std::span<const DeviceId> gpus, double bytes);
std::vector<DeviceId> add_pipeline(StepBuilder& builder, std::string_view op,
                                   std::span<const DeviceId> chain, double bytes,
                                   std::size_t chunks);
/// One of a double binary tree's two trees, over GPU indices.
struct Tree {
  std::vector<std::size_t> parent;  ///< by GPU index; kRoot for the root
  std::vector<std::vector<std::size_t>> children;
  std::vector<std::size_t> bottom_up;  ///< every GPU after all its children
};
inline constexpr std::size_t kRoot = static_cast<std::size_t>(-1);
/// Tree `which` (0 or 1) over servers of GPU indices (`nodes`): a chain inside each server
/// from local index `first`, the chains' heads in a binary tree across servers (heap order;
/// tree 1 puts position p on server N-1-p, so the servers interior to one are leaves of the
/// other).
Tree build_tree(const std::vector<std::vector<std::size_t>>& nodes, int which, std::size_t first);
/// The trees add_tree builds: a pair, or a pair per rail across servers of g GPUs each.
std::size_t tree_count(const Machine& machine, std::span<const DeviceId> gpus);
void add_tree(StepBuilder& builder, std::string_view op, std::span<const DeviceId> gpus,
              double bytes, std::size_t chunks);
void add_nvls(StepBuilder& builder, std::string_view op, std::span<const DeviceId> gpus,
              double bytes);
/// NCCL's NVLS chunk for a collective of `bytes` over `gpus` GPUs of one server.
double nvls_chunk_bytes(const CollectiveModel& model, double bytes, std::size_t gpus);
/// The fixed costs of the NVLS chunks one channel handles in turn (at least one chunk's).
double nvls_chunk_cost_s(const CollectiveModel& model, double bytes, std::size_t gpus);
/// NCCL's NVLS tree allreduce across servers whose GPUs share a reducing switch, in `pieces`.
void add_nvls_tree(StepBuilder& builder, std::span<const DeviceId> gpus, double bytes,
                   std::size_t pieces);
/// The busiest link direction's time for add_nvls_tree's payload (no pipeline fill).
double nvls_tree_transfer_s(const Machine& machine, std::span<const DeviceId> gpus, double bytes,
                            Protocol protocol);
void add_hierarchical(StepBuilder& builder, std::span<const DeviceId> gpus, double bytes,
                      std::size_t pieces);
void add_direct_all_to_all(StepBuilder& builder, std::span<const DeviceId> gpus, double bytes);
void add_sendrecv(StepBuilder& builder, std::span<const DeviceId> gpus, double bytes);
/// The channels NCCL spreads one peer's part of `bytes` over inside a server, of `ranks`
/// (addP2pToPlan and scheduleP2pTasksToPlan, src/enqueue.cc): p2p_channels / 2^k, the most
/// with which p2p_channels hold one channel per rank, doubled while a channel's share passes
/// 32 x NCCL's 512 KiB NVLink chunk, up to p2p_channels.
std::size_t p2p_channels_for(const CollectiveModel& model, double bytes, std::size_t ranks);
/// The ring channels NCCL gives each NIC of a server with `nics` of them in use: its ring
/// graph has one channel per NIC and is doubled where it has at most 4
/// (ncclTopoDupChannels, compute capability 9.0 and rings below 50 GB/s a channel).
std::size_t ring_channels_per_nic(std::size_t nics);
/// The channels NCCL gives one peer on another server (ncclTopoComputeP2pChannels):
/// p2p_network_channels to start with, halved while one round over all `ranks` (8 peers a
/// batch) would need more than the comm's p2p channels, i.e. its ring channels doubled
/// (ncclTopoPostset) and rounded up to a power of 2; at least 1.
std::size_t p2p_network_channels_for(const CollectiveModel& model, std::size_t ranks,
                                     std::size_t gpus_per_server);
/// How many times its payload a send of `bytes` from `from` to `to` moves so that it keeps
/// within its channels' rate (p2p_channels_for x p2p_channel_bandwidth of wire bytes, so
/// of payload at the protocol's efficiency), >= 1. Across servers the channels are
/// p2p_network_channels_for at p2p_network_channel_bandwidth each, in series with the stage
/// they share (p2p_network_shared_bandwidth); 1 on PCIe, with the wire protocol or with no
/// channel rate set.
double p2p_stretch(const Machine& machine, Protocol protocol, DeviceId from, DeviceId to,
                   double bytes, std::size_t ranks, std::size_t gpus_per_server);
/// How many times its payload an all-to-all's send across servers moves (>= 1): NCCL runs
/// each peer on p2p_network_channels_for channels and as many peers at once as the comm's p2p
/// channels hold, so with few peers on other servers (two servers of one GPU: one) the
/// channels, not the NIC, bound it.
double all_to_all_network_stretch(const Machine& machine, Protocol protocol,
                                  std::span<const DeviceId> gpus);

// Transfer time alone (no latency) each generator's copies need at least: the busiest link
// direction's bytes (payload over the protocol's and link's efficiency) over its rate.
/// How many times its bytes a ring's step across servers moves so that it keeps within
/// NCCL's channels for its NIC (ring_network_channel_bandwidth); 1 where they do not bind.
/// The simulation pays it; the tuner, as NCCL's, does not know it.
double ring_network_stretch(const Machine& machine, std::span<const DeviceId> gpus,
                            Protocol protocol);
/// The ring channels each NIC carries for a ring over `gpus` (ring_channels_per_nic of the
/// GPUs per server), 0 where the ring stays in one server.
std::size_t ring_channels_per_nic_of(const Machine& machine, std::span<const DeviceId> gpus);
/// What a ring step's latency `latency_s` costs beyond the wire when its NIC carries a second
/// channel running the same steps, each channel's share taking `channel_wire_s` alone on
/// the NIC. Fair sharing keeps whatever offset the two channels' steps have, so opsim takes
/// it uniform from 0 (in step: the whole latency) to half a period; where the other
/// channel's transfer covers a channel's latency the NIC never idles.
double two_channel_wait_s(double latency_s, double channel_wire_s);
double ring_transfer_s(const Machine& machine, std::string_view op, std::span<const DeviceId> gpus,
                       double bytes, Protocol protocol);
double tree_transfer_s(const Machine& machine, std::span<const DeviceId> gpus, double bytes,
                       Protocol protocol);

/// The GPUs grouped by server (Device::node), servers in first-seen order.
std::vector<std::vector<DeviceId>> gpus_by_node(const Machine& machine,
                                                std::span<const DeviceId> gpus);
/// A switch every GPU of `gpus` links to directly (`reducing`: one that reduces in the
/// switch), or kNoDevice.
DeviceId shared_switch(const Machine& machine, std::span<const DeviceId> gpus, bool reducing);

}  // namespace opsim::collectives
