// NCCL's protocols as costs on copies: efficiency scales the bytes a step puts on the wire,
// latency delays it. Values come from the machine's CollectiveModel.
#include <algorithm>
#include <limits>

#include "common/input_error.hpp"
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

Protocol protocol_named(std::string_view name) {
  if (name == "LL") return Protocol::kLL;
  if (name == "LL128") return Protocol::kLL128;
  if (name == "Simple") return Protocol::kSimple;
  if (name == "wire") return Protocol::kWire;
  throw InputError("collective: unknown protocol '" + std::string(name) +
                   "' (choose LL, LL128, Simple, wire or auto)");
}

std::string_view protocol_name(Protocol protocol) {
  switch (protocol) {
    case Protocol::kLL:
      return "LL";
    case Protocol::kLL128:
      return "LL128";
    case Protocol::kSimple:
      return "Simple";
    case Protocol::kWire:
      break;
  }
  return "wire";
}

LinkClass link_class(const Machine& machine, DeviceId src, DeviceId dst) {
  bool only_nvlink = true;
  for (const Hop& hop : machine.route(src, dst)) {
    const LinkKind kind = machine.link(hop.link).model.kind;
    if (kind == LinkKind::kInfiniband || kind == LinkKind::kEthernet) return LinkClass::kNetwork;
    if (kind != LinkKind::kNvlink) only_nvlink = false;
  }
  return only_nvlink ? LinkClass::kNvlink : LinkClass::kPcie;
}

double protocol_efficiency(const CollectiveModel& model, Protocol protocol) {
  return protocol == Protocol::kWire    ? 1.0
         : protocol == Protocol::kLL    ? model.ll_efficiency
         : protocol == Protocol::kLL128 ? model.ll128_efficiency
                                        : model.simple_efficiency;
}

double efficiency(const CollectiveModel& model, Protocol protocol, LinkClass link) {
  if (protocol == Protocol::kWire) return 1.0;
  const double of_link = link == LinkClass::kNvlink ? model.nvlink_efficiency
                         : link == LinkClass::kPcie ? model.pcie_efficiency
                                                    : model.network_efficiency;
  return protocol_efficiency(model, protocol) * of_link;
}

double step_latency_s(const CollectiveModel& m, Family family, Protocol protocol, LinkClass link) {
  if (protocol == Protocol::kWire) return 0;
  if (family == Family::kNvls) return link == LinkClass::kNetwork ? m.nvls_network_s : 0;
  if (family == Family::kNvlsTree) return link == LinkClass::kNetwork ? m.nvls_tree_network_s : 0;
  const int p = protocol == Protocol::kLL ? 0 : protocol == Protocol::kLL128 ? 1 : 2;
  const double ring[3][3] = {
      {m.ring_ll_nvlink_step_s, m.ring_ll128_nvlink_step_s, m.ring_simple_nvlink_step_s},
      {m.ring_ll_pcie_step_s, m.ring_ll128_pcie_step_s, m.ring_simple_pcie_step_s},
      {m.ring_ll_network_step_s, m.ring_ll128_network_step_s, m.ring_simple_network_step_s}};
  const double tree[3][3] = {
      {m.tree_ll_nvlink_step_s, m.tree_ll128_nvlink_step_s, m.tree_simple_nvlink_step_s},
      {m.tree_ll_pcie_step_s, m.tree_ll128_pcie_step_s, m.tree_simple_pcie_step_s},
      {m.tree_ll_network_step_s, m.tree_ll128_network_step_s, m.tree_simple_network_step_s}};
  const int l = static_cast<int>(link);
  return family == Family::kRing ? ring[l][p] : tree[l][p];
}

double base_latency_s(const CollectiveModel& m, Family family, Protocol protocol) {
  if (protocol == Protocol::kWire) return 0;
  if (family == Family::kNvls || family == Family::kNvlsTree) return m.nvls_nvlink_s;
  const bool ring = family == Family::kRing;
  switch (protocol) {
    case Protocol::kLL:
      return ring ? m.ring_ll_base_s : m.tree_ll_base_s;
    case Protocol::kLL128:
      return ring ? m.ring_ll128_base_s : m.tree_ll128_base_s;
    default:
      return ring ? m.ring_simple_base_s : m.tree_simple_base_s;
  }
}

double StepBuilder::slice_bytes() const {
  const CollectiveModel& model = machine_.collectives();
  switch (protocol_) {
    case Protocol::kLL:
      return model.ring_ll_slice_bytes;
    case Protocol::kLL128:
      return model.ring_ll128_slice_bytes;
    case Protocol::kSimple:
      return model.ring_simple_slice_bytes;
    case Protocol::kWire:
      break;
  }
  return std::numeric_limits<double>::infinity();
}

namespace {

Op kernel_copy(DeviceId src, DeviceId dst, double bytes, int stream) {
  Op op;
  op.kind = OpKind::kCopy;
  op.device = src;
  op.peer = dst;
  op.stream = stream;
  op.kernel_copy = true;  // NCCL's channels copy with thread blocks, not DMA engines
  op.bytes = bytes;
  return op;
}

}  // namespace

OpId StepBuilder::copy(DeviceId src, DeviceId dst, double bytes, std::string_view name, int stream,
                       bool first, bool pays_latency) {
  Op op = kernel_copy(src, dst, bytes, stream);
  if (protocol_ != Protocol::kWire) {
    const HopFacts facts = hop(src, dst);
    const bool network = facts.link == LinkClass::kNetwork;
    // A channel alone on its NIC moves a step's first slice at the NIC's rate (pays_latency:
    // a whole step or a head) and only the rest at the channel's.
    const bool alone = ring_channels_per_nic_ == 1;
    const bool channel_rate = network && !(alone && pays_latency);
    const double stretch = payload_stretch_ * (channel_rate ? network_stretch_ : 1);
    op.bytes = bytes * stretch / facts.efficiency;
    op.serial_step_delay = network && alone && pays_latency;
    if (pays_latency) op.seconds = facts.step_delay_s;
    if (first) op.seconds += base_latency_s(machine_.collectives(), family_, protocol_);
  }
  return graph_.add(op, name);
}

StepBuilder::HopFacts StepBuilder::hop(DeviceId src, DeviceId dst) {
  if (src >= machine_.devices().size()) return find_hop(src, dst);  // its lookup says why
  if (src >= last_hop_by_src_.size()) last_hop_by_src_.resize(src + 1);
  LastHop& last = last_hop_by_src_[src];
  if (last.dst != dst) last = LastHop{dst, find_hop(src, dst)};
  return last.facts;
}

StepBuilder::HopFacts StepBuilder::find_hop(DeviceId src, DeviceId dst) {
  const std::uint64_t key = (static_cast<std::uint64_t>(src) << 32) | dst;
  if (const auto it = hops_.find(key); it != hops_.end()) return it->second;
  const CollectiveModel& model = machine_.collectives();
  HopFacts facts;
  facts.link = link_class(machine_, src, dst);
  facts.route_latency_s = machine_.route_latency_s(src, dst);
  facts.route_bytes_per_s = machine_.route_bytes_per_s(src, dst);
  facts.efficiency = efficiency(model, protocol_, facts.link);
  const double step_s = facts.link == LinkClass::kNetwork && network_step_s_ >= 0
                            ? network_step_s_
                            : step_latency_s(model, family_, protocol_, facts.link);
  facts.step_delay_s = std::max(0.0, step_s - facts.route_latency_s);
  hops_.emplace(key, facts);
  return facts;
}

void StepBuilder::set_network_step_latency(double seconds) {
  network_step_s_ = seconds;
  hops_.clear();  // looked-up step delays may hold the old latency
  last_hop_by_src_.clear();
}

OpId StepBuilder::shared_nic_step(DeviceId src, DeviceId dst, double bytes, std::string_view name,
                                  int stream, bool first) {
  const OpId id = copy(src, dst, bytes, name, stream, first);
  if (protocol_ == Protocol::kWire || ring_channels_per_nic_ != 2) return id;
  const HopFacts facts = hop(src, dst);
  if (facts.link != LinkClass::kNetwork) return id;
  Op& op = graph_.mutable_op(id);
  const double latency_s = facts.route_latency_s + facts.step_delay_s;
  const double channel_wire_s = op.bytes / 2 / facts.route_bytes_per_s;
  op.seconds += two_channel_wait_s(latency_s, channel_wire_s) - facts.step_delay_s;
  op.continues_transfer = true;  // the route's latency is in `seconds`
  op.serial_step_delay = true;
  return id;
}

OpId StepBuilder::queued_head(DeviceId src, DeviceId dst, double bytes, std::string_view name,
                              int stream) {
  const OpId id = copy(src, dst, bytes, name, stream, false);
  Op& op = graph_.mutable_op(id);
  op.seconds += hop(src, dst).route_latency_s;
  op.continues_transfer = true;
  return id;
}

OpId StepBuilder::continue_copy(DeviceId src, DeviceId dst, double bytes, std::string_view name,
                                int stream) {
  const OpId id = copy(src, dst, bytes, name, stream, false, false);
  graph_.mutable_op(id).continues_transfer = true;
  return id;
}

OpId StepBuilder::self_copy(DeviceId gpu, double bytes, std::string_view name, int stream) {
  Op op = kernel_copy(gpu, gpu, bytes, stream);
  const double channels_bytes_per_s = machine_.collectives().p2p_self_copy_bytes_per_s;
  // The simulation's memory bus carries a copy's read and its write: half the memory's rate.
  const double memory_copy_bytes_per_s = machine_.device(gpu).gpu.memory_bytes_per_s / 2;
  if (protocol_ != Protocol::kWire && channels_bytes_per_s > 0)
    op.bytes = bytes * std::max(1.0, memory_copy_bytes_per_s / channels_bytes_per_s);
  return graph_.add(op, name);
}

}  // namespace opsim::collectives
