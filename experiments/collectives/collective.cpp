// The table of collectives, algorithms and protocols, the checks every request gets, the
// tuner that picks an algorithm and protocol by size and machine as NCCL's does, and
// nccl-tests' bus-bandwidth factors.
#include "experiments/collectives/collective.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

#include "common/input_error.hpp"
#include "experiments/collectives/collective_common.hpp"
#include "hw_models/units.hpp"

namespace opsim {

namespace {

using collectives::Family;
using collectives::LinkClass;
using collectives::Protocol;

constexpr std::string_view kCollectives[] = {
    "allreduce", "reduce_scatter", "all_gather", "broadcast", "reduce", "all_to_all", "sendrecv"};
constexpr std::string_view kAlgorithms[] = {"ring",         "tree",   "nvls", "nvls_tree",
                                            "hierarchical", "direct", "auto"};
constexpr std::string_view kProtocols[] = {"LL", "LL128", "Simple", "wire", "auto"};
/// A tree's or hierarchy's pipeline is cut so that the graph stays within about this many copies.
constexpr double kMostTreeCopies = 4e6;

template <typename Names>
std::string joined(const Names& names) {
  std::string text;
  for (std::string_view name : names) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

[[noreturn]] void fail(std::string_view op, const std::string& what) {
  throw InputError("collective " + std::string(op) + ": " + what);
}

std::vector<DeviceId> checked_gpus(std::string_view op, const Machine& machine,
                                   const CollectiveOptions& options) {
  std::vector<DeviceId> gpus = options.gpus.empty() ? machine.gpus() : options.gpus;
  std::vector<char> seen(machine.devices().size(), 0);
  for (DeviceId id : gpus) {
    if (id >= machine.devices().size())
      fail(op, "device #" + std::to_string(id) + " is not on machine '" + machine.name() + "'");
    if (machine.device(id).kind != DeviceKind::kGpu)
      fail(op, "'" + machine.device(id).name + "' is not a GPU");
    if (seen[id]) fail(op, "GPU '" + machine.device(id).name + "' is listed twice");
    seen[id] = 1;
  }
  if (gpus.size() < 2)
    fail(op, "needs at least 2 GPUs, machine '" + machine.name() + "' offers " +
                 std::to_string(gpus.size()));
  return gpus;
}

// What a request is made of, checked.
struct Request {
  std::string_view op;
  const Machine& machine;
  std::vector<DeviceId> gpus;
  std::vector<std::vector<DeviceId>> servers;
  double bytes = 0;
};

// Empty when `algorithm` can run `request`, else why not (one clause).
std::string why_not(const Request& r, std::string_view algorithm) {
  const std::vector<std::string_view> exists = collective_algorithms(r.op);
  if (std::find(exists.begin(), exists.end(), algorithm) == exists.end())
    return "algorithm '" + std::string(algorithm) + "' does not apply; " + std::string(r.op) +
           " has " + joined(exists) + " (or auto)";
  const std::string name = "'" + r.machine.name() + "'";
  if (algorithm == "nvls") {
    if (r.servers.size() > 1)
      return "nvls runs within one server (across servers NCCL's NVLS needs CollNet "
             "switches, not modelled); the GPUs are on " +
             std::to_string(r.servers.size()) + " servers of " + name +
             (r.op == "allreduce" ? ": use nvls_tree, tree or hierarchical" : ": use ring");
    if (collectives::shared_switch(r.machine, r.gpus, true) == kNoDevice) {
      const DeviceId shared = collectives::shared_switch(r.machine, r.gpus, false);
      return "nvls needs an NVSwitch that reduces in the switch (in_switch_reduction: true); " +
             r.machine.name() +
             (shared == kNoDevice ? "'s GPUs share no switch"
                                  : "'s switch " + r.machine.device(shared).name + " does not");
    }
  }
  if (algorithm == "nvls_tree") {
    if (r.servers.size() < 2)
      return "nvls_tree joins servers; " + name + " has the GPUs on one: use " +
             (collectives::shared_switch(r.machine, r.gpus, true) == kNoDevice ? "ring or tree"
                                                                               : "nvls");
    for (const auto& server : r.servers) {
      if (server.size() != r.servers.front().size())
        return "nvls_tree needs as many GPUs on every server; " + name + " has " +
               std::to_string(r.servers.front().size()) + " on one and " +
               std::to_string(server.size()) + " on another";
      if (server.size() < 2)
        return "nvls_tree needs at least 2 GPUs on every server; " + name + " has 1";
      if (collectives::shared_switch(r.machine, server, true) == kNoDevice)
        return "nvls_tree needs every server's GPUs on an NVSwitch that reduces in the switch "
               "(in_switch_reduction: true); " +
               r.machine.device(server.front()).name + " of " + name + " has none";
    }
  }
  if (algorithm == "hierarchical") {
    if (r.servers.size() < 2)
      return "hierarchical needs GPUs on at least 2 servers; " + name + " has them on one";
    for (const auto& server : r.servers)
      if (server.size() != r.servers.front().size())
        return "hierarchical needs as many GPUs on every server; " + name + " has " +
               std::to_string(r.servers.front().size()) + " on one and " +
               std::to_string(server.size()) + " on another";
  }
  return {};
}

Family family_of(std::string_view algorithm) {
  if (algorithm == "tree") return Family::kTree;
  if (algorithm == "nvls") return Family::kNvls;
  if (algorithm == "nvls_tree") return Family::kNvlsTree;
  return Family::kRing;
}

LinkClass intra_class(const Request& r) {
  const auto& first = r.servers.front();
  if (first.size() < 2) return LinkClass::kPcie;
  return collectives::link_class(r.machine, first[0], first[1]);
}

// Pieces for a pipeline of `hops` hops moving `bytes`: each piece pays its route's latency
// on its copy stream, so k pieces take about (k + hops - 1)(L + bytes/(k B)); the best k is
// sqrt((hops - 1) bytes / (B L)). Without latency, pipeline_chunks' 128 KiB pieces.
std::size_t pipeline_pieces(double bytes, double hops, double bytes_per_s, double latency_s,
                            double most_pieces) {
  const double most = std::min(static_cast<double>(pipeline_chunks(bytes)), most_pieces);
  if (latency_s <= 0) return static_cast<std::size_t>(std::max(1.0, most));
  const double best = std::sqrt(std::max(0.0, hops - 1) * bytes / (bytes_per_s * latency_s));
  return static_cast<std::size_t>(std::clamp(std::round(best), 1.0, std::max(1.0, most)));
}

// A tree's hops from a leaf to the root: the chain inside a server, then the binary tree
// across servers.
double tree_depth(const Request& r) {
  return static_cast<double>(r.servers.front().size() - 1) +
         std::ceil(std::log2(static_cast<double>(r.servers.size())));
}

// The pieces a tree's pipeline carries S/2 in (per tree): as asked, else by size and hop.
std::size_t tree_pieces(const Request& r, std::size_t chunks) {
  if (chunks > 0) return chunks;
  const double n = static_cast<double>(r.gpus.size());
  const double trees = static_cast<double>(collectives::tree_count(r.machine, r.gpus));
  return pipeline_pieces(r.bytes / trees, 2 * tree_depth(r),
                         r.machine.route_bytes_per_s(r.gpus[0], r.gpus[1]),
                         r.machine.route_latency_s(r.gpus[0], r.gpus[1]),
                         std::max(1.0, std::floor(kMostTreeCopies / (2.0 * trees * n))));
}

// The NVLS tree's hops from a server to the root of its rail's tree: one in the switch, then
// the binary tree across servers.
double nvls_tree_depth(const Request& r) {
  return 1 + std::ceil(std::log2(static_cast<double>(r.servers.size())));
}

// The pieces an NVLS tree carries S in: by size and the rail's hop, within the copy budget
// (per piece 2g switch copies per server and 4(N-1) tree copies per rail).
std::size_t nvls_tree_pieces(const Request& r) {
  const double servers = static_cast<double>(r.servers.size());
  const double g = static_cast<double>(r.servers.front().size());
  const DeviceId a = r.servers[0][0];
  const DeviceId b = r.servers[1][0];
  const double per_piece = 2 * g * servers + 4 * (servers - 1) * g;
  return pipeline_pieces(r.bytes / g / 2, 2 * nvls_tree_depth(r), r.machine.route_bytes_per_s(a, b),
                         r.machine.route_latency_s(a, b),
                         std::max(1.0, std::floor(kMostTreeCopies / per_piece)));
}

// NCCL's latency model (ncclTopoTuneModel): launch latency plus the steps on the critical
// path, those across servers at the network's step latency.
double latency_s(const Request& r, std::string_view algorithm, Protocol p) {
  const CollectiveModel& m = r.machine.collectives();
  const Family family = family_of(algorithm);
  const double n = static_cast<double>(r.gpus.size());
  const double servers = static_cast<double>(r.servers.size());
  const double g = static_cast<double>(r.servers.front().size());
  const double intra = collectives::step_latency_s(m, family, p, intra_class(r));
  // With one GPU per server NCCL's tuner (ncclTopoTuneModel) takes the tree's network step
  // latency for a ring too: nothing inside a server hides it.
  const Family net_family = g == 1 && family == Family::kRing ? Family::kTree : family;
  const double net = collectives::step_latency_s(m, net_family, p, LinkClass::kNetwork);
  const double base = collectives::base_latency_s(m, family, p);
  if (algorithm == "nvls")
    return p == Protocol::kWire ? base
                                : base + collectives::nvls_chunk_cost_s(m, r.bytes, r.gpus.size());
  if (algorithm == "tree")
    return base + 2 * ((g - 1) * intra + std::ceil(std::log2(servers)) * net);
  if (algorithm == "nvls_tree") return base + 2 * std::ceil(std::log2(servers)) * net;
  if (algorithm == "hierarchical") return base + 2 * (g - 1) * intra + 2 * (servers - 1) * net;
  if (r.op == "sendrecv") return base + (servers > 1 ? net : intra);
  const double steps = r.op == "allreduce" ? 2 * (n - 1) : n - 1;
  const double across = servers < 2 ? 0 : r.op == "allreduce" ? 2 * (servers - 1) : servers - 1;
  const bool ring_op = r.op == "allreduce" || r.op == "reduce_scatter" || r.op == "all_gather";
  if (servers < 2 || p == Protocol::kWire || !ring_op)
    return base + (steps - across) * intra + across * net;
  // Across servers NCCL's ring posts every step to the network proxy (getNetOverhead, three
  // times over for Simple), and stretches a Simple allreduce's latency by the ring's
  // "plateau effect" (ncclTopoGetAlgoTime) once a channel's share per rank reaches 64 bytes.
  const double posted =
      std::max(intra, m.network_post_overhead_s * (p == Protocol::kSimple ? 3 : 1));
  const double latency = base + (steps - across) * posted + across * net;
  const bool plateau = p == Protocol::kSimple && r.op == "allreduce" && r.bytes >= 64 * n * g;
  return plateau ? latency * m.ring_plateau_factor : latency;
}

// The busiest link direction's time for the payload (a tree's without its pipeline's fill).
double links_s(const Request& r, std::string_view algorithm, Protocol p) {
  const Machine& machine = r.machine;
  const CollectiveModel& m = machine.collectives();
  const double n = static_cast<double>(r.gpus.size());
  if (algorithm == "tree") return collectives::tree_transfer_s(machine, r.gpus, r.bytes, p);
  if (algorithm == "nvls_tree")
    return collectives::nvls_tree_transfer_s(machine, r.gpus, r.bytes, p);
  if (algorithm == "nvls") {
    const double eff = p == Protocol::kWire
                           ? 1.0
                           : collectives::efficiency(m, p, LinkClass::kNvlink) * m.nvls_efficiency;
    // A port carries S(n+1)/n for allreduce, (n-1)/n S for reduce-scatter and all-gather.
    const double port_bytes = r.op == "allreduce" ? r.bytes * (n + 1) / n : r.bytes * (n - 1) / n;
    return port_bytes / (machine.route_bytes_per_s(r.gpus[0], r.gpus[1]) * eff);
  }
  if (algorithm == "hierarchical") {
    const double g = static_cast<double>(r.servers.front().size());
    std::vector<DeviceId> rail;
    for (const auto& server : r.servers) rail.push_back(server.front());
    const double inside =
        g < 2 ? 0
              : collectives::ring_transfer_s(machine, "allreduce", r.servers.front(), r.bytes, p);
    // Its pieces overlap the phases: the longer one bounds it.
    return std::max(inside,
                    collectives::ring_transfer_s(machine, "allreduce", rail, r.bytes / g, p));
  }
  if (r.op == "all_to_all" || r.op == "sendrecv") {
    const DeviceId a = r.gpus[0];
    const DeviceId b = r.gpus[r.servers.size() > 1 ? r.servers.front().size() % r.gpus.size() : 1];
    const double eff = collectives::efficiency(m, p, collectives::link_class(machine, a, b));
    const double share = r.op == "all_to_all" ? (n - 1) / n : 1.0;
    const bool across = r.servers.size() > 1;
    const double stretch = r.op == "sendrecv"
                               ? collectives::p2p_stretch(machine, p, a, b, r.bytes, r.gpus.size(),
                                                          r.servers.front().size())
                           : across ? collectives::all_to_all_network_stretch(machine, p, r.gpus)
                                    : 1.0;
    return r.bytes * share * stretch / (machine.route_bytes_per_s(a, b) * eff);
  }
  return collectives::ring_transfer_s(machine, r.op, r.gpus, r.bytes, p);
}

// The most bus bandwidth NCCL's tuner grants (ncclTopoTuneModel) that the simulation keeps
// to as well, 0 where none: ring and tree LL at llMaxBws; the NVLS tree at perChMaxNVLSTreeBw
// for each of its channels, one per NIC with a local GPU (here one per GPU of a server).
double max_busbw(const Request& r, std::string_view algorithm, Protocol p) {
  const CollectiveModel& m = r.machine.collectives();
  const bool two = r.servers.size() == 2;
  if (algorithm == "nvls_tree")
    return static_cast<double>(r.servers.front().size()) *
           (two ? m.nvls_tree_channel_busbw_two_servers_bytes_per_s
                : m.nvls_tree_channel_busbw_more_servers_bytes_per_s);
  if (p != Protocol::kLL || (algorithm != "ring" && algorithm != "tree")) return 0;
  return r.servers.size() == 1 ? m.ll_max_busbw_bytes_per_s
         : two                 ? m.ll_max_busbw_two_servers_bytes_per_s
                               : m.ll_max_busbw_more_servers_bytes_per_s;
}

// A cap in NCCL's tuner alone: a ring across servers with LL128 at perChMaxRingLL128Bw for
// each channel of its graph. The published 10 x 8 H100 rings move faster with LL128 (a 128 MiB
// all-gather in 841 us, where a run kept to 8 channels x 36.7 takes 961), but NCCL leaves
// LL128 for Simple where its tuner says, at 256 MiB there, where the published all-gather
// slows down.
double tuner_only_max_busbw(const Request& r, std::string_view algorithm, Protocol p) {
  if (algorithm != "ring" || p != Protocol::kLL128 || r.servers.size() < 2) return 0;
  const std::size_t nics = r.servers.front().size();
  return static_cast<double>(nics * collectives::ring_channels_per_nic(nics)) *
         r.machine.collectives().ring_ll128_channel_busbw_bytes_per_s;
}

// The time a cap of `cap` bus bandwidth leaves S (turned into algorithm bandwidth by
// n/nsteps, the tree's by 1/2, as NCCL does), or 0 where cap is 0.
double time_at_busbw_s(const Request& r, std::string_view algorithm, double cap) {
  if (cap <= 0) return 0;
  const double n = static_cast<double>(r.gpus.size());
  const double steps = r.op == "allreduce"                                ? 2 * (n - 1)
                       : r.op == "reduce_scatter" || r.op == "all_gather" ? n - 1
                                                                          : n;
  return r.bytes / (cap * (algorithm == "tree" ? 0.5 : n / steps));
}

// The time the tuner's cap that the simulation keeps to leaves S, or 0 where none applies.
double cap_s(const Request& r, std::string_view algorithm, Protocol p) {
  return p == Protocol::kWire ? 0 : time_at_busbw_s(r, algorithm, max_busbw(r, algorithm, p));
}

// What the pipeline's fill stretches the busiest link's time by: a tree's k pieces (`chunks`
// as asked, else its own) over its 2 depth hops; the NVLS tree's few hops fill within a few
// percent (NCCL's model counts none).
double fill(const Request& r, std::string_view algorithm, std::size_t chunks) {
  if (algorithm != "tree") return 1.0;
  const double pieces = static_cast<double>(tree_pieces(r, chunks));
  return (pieces + 2 * tree_depth(r) - 1) / pieces;
}

// How many times its payload a collective's copies move so that it keeps within its cap (the
// cap bounds the whole collective, pipeline fill included).
double payload_stretch(const Request& r, std::string_view algorithm, Protocol p,
                       std::size_t chunks) {
  const double capped_s = cap_s(r, algorithm, p);
  const double filled = capped_s > 0 ? links_s(r, algorithm, p) * fill(r, algorithm, chunks) : 0;
  return filled > 0 && capped_s > filled ? capped_s / filled : 1.0;
}

double transfer_s(const Request& r, std::string_view algorithm, Protocol p) {
  return links_s(r, algorithm, p) * fill(r, algorithm, 0) * payload_stretch(r, algorithm, p, 0);
}

double estimate_s(const Request& r, std::string_view algorithm, Protocol p) {
  const double tuner_cap_s =
      p == Protocol::kWire ? 0
                           : time_at_busbw_s(r, algorithm, tuner_only_max_busbw(r, algorithm, p));
  return latency_s(r, algorithm, p) + std::max(transfer_s(r, algorithm, p), tuner_cap_s);
}

struct Choice {
  std::string algorithm;
  Protocol protocol = Protocol::kSimple;
  double estimate_s = std::numeric_limits<double>::infinity();
};

// Splits "LL,Simple" into its names; empty names kept (the check refuses them).
std::vector<std::string_view> split_names(std::string_view text) {
  std::vector<std::string_view> names;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    names.push_back(text.substr(start, comma - start));
    if (comma == std::string_view::npos) return names;
    start = comma + 1;
  }
}

// The protocols auto may choose from: all three for "auto", else those named (checked).
std::vector<Protocol> protocols_allowed(std::string_view text) {
  if (text == "auto") return {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};
  std::vector<Protocol> protocols;
  for (std::string_view name : split_names(text))
    protocols.push_back(collectives::protocol_named(name));
  return protocols;
}

// The fastest by the tuner's estimate among the algorithms and protocols allowed.
Choice choose(const Request& r, const std::string& algorithm, const std::string& protocol) {
  std::vector<std::string_view> algorithms;
  if (algorithm != "auto") {
    algorithms.push_back(algorithm);
  } else {
    // NCCL's tuner weighs ring, tree and NVLS; hierarchical is opsim's own.
    for (std::string_view a : collective_algorithms(r.op))
      if (a != "hierarchical" && why_not(r, a).empty()) algorithms.push_back(a);
  }
  const std::vector<Protocol> protocols = protocols_allowed(protocol);
  Choice best;
  for (std::string_view a : algorithms)
    for (Protocol p : protocols) {
      if ((a == "nvls" || a == "nvls_tree") && (p == Protocol::kLL || p == Protocol::kLL128))
        continue;
      const double t = estimate_s(r, a, p);
      if (t < best.estimate_s) best = {std::string(a), p, t};
    }
  return best;
}

// The lag of a collective's slowest channel: straggle_after_gib once each GPU's share of the
// data is 1 GiB (S/n; broadcast and reduce pass all of S through each GPU), growing with its
// square root: a channel runs through its share in loops of NCCL's chunk, as many for any n.
// Left out: NVLS, whose chunk costs, measured from its own table, hold it; sends, whose
// channel rate, measured from their own tables, does; and the bare links (kWire).
double straggle_s(const Request& r, const Choice& choice) {
  const double after_gib_s = r.machine.collectives().straggle_after_gib_s;
  const Family family = family_of(choice.algorithm);
  if (after_gib_s <= 0 || choice.protocol == Protocol::kWire || family == Family::kNvls ||
      family == Family::kNvlsTree || r.op == "sendrecv")
    return 0;
  const bool whole = r.op == "broadcast" || r.op == "reduce";
  const double share_bytes = whole ? r.bytes : r.bytes / static_cast<double>(r.gpus.size());
  constexpr double kGib = 1024.0 * 1024.0 * 1024.0;
  return after_gib_s * std::sqrt(share_bytes / kGib);
}

// Each GPU ends the collective `lag_s` after the last copy into it: one op after all of them
// (a GPU's own lanes run in order, so delaying its last copies would delay one another).
void add_straggle(const Machine& machine, OpGraph& graph, double lag_s) {
  if (lag_s <= 0) return;
  std::map<DeviceId, std::vector<OpId>> last_copies_into;
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    if (op.kind != OpKind::kCopy || machine.device(op.peer).kind != DeviceKind::kGpu) continue;
    bool last = true;
    graph.for_each_successor(id, [&last](OpId) { last = false; });
    if (last) last_copies_into[op.peer].push_back(id);
  }
  for (const auto& [gpu, copies] : last_copies_into) {
    Op straggle;
    straggle.kind = OpKind::kCompute;
    straggle.fixed_time = true;
    straggle.seconds = lag_s;
    straggle.device = gpu;
    const OpId id = graph.add(straggle, "slowest channel");
    for (const OpId copy : copies) graph.add_dependency(copy, id);
  }
}

// nccl-tests with -g G: one thread launches the G GPUs' kernels in turn; an iteration of the
// back-to-back loop lasts at least those launches, whatever the GPUs do meanwhile.
void add_launches(const Machine& machine, std::span<const DeviceId> gpus, int gpus_per_thread,
                  OpGraph& graph) {
  const DeviceId cpu = machine.host_cpu_of(gpus.front());
  OpId previous = 0;
  for (int k = 0; k < gpus_per_thread; ++k) {
    Op launch;
    launch.kind = OpKind::kHostDispatch;
    launch.device = cpu;
    launch.seconds = machine.device(gpus[static_cast<std::size_t>(k)]).gpu.launch_s;
    const OpId id = graph.add(launch, "launch");
    if (k > 0) graph.add_dependency(previous, id);
    previous = id;
  }
}

}  // namespace

std::vector<DeviceId> first_gpus_per_server(const Machine& machine, int per_server) {
  const auto servers = collectives::gpus_by_node(machine, machine.gpus());
  std::vector<DeviceId> gpus;
  for (const auto& server : servers) {
    if (per_server < 1 || server.size() < static_cast<std::size_t>(per_server))
      throw InputError(std::to_string(per_server) + " GPUs per server: the server of '" +
                       machine.device(server.front()).name + "' on '" + machine.name() + "' has " +
                       std::to_string(server.size()));
    gpus.insert(gpus.end(), server.begin(), server.begin() + per_server);
  }
  return gpus;
}

std::vector<std::string_view> collective_names() {
  return {std::begin(kCollectives), std::end(kCollectives)};
}

std::vector<std::string_view> collective_algorithms() {
  return {std::begin(kAlgorithms), std::end(kAlgorithms)};
}

std::vector<std::string_view> collective_algorithms(std::string_view op) {
  if (std::find(std::begin(kCollectives), std::end(kCollectives), op) == std::end(kCollectives))
    fail(op, "unknown collective (choose " + joined(kCollectives) + ")");
  if (op == "all_to_all" || op == "sendrecv") return {"direct"};
  if (op == "allreduce") return {"ring", "tree", "nvls", "nvls_tree", "hierarchical"};
  if (op == "reduce_scatter" || op == "all_gather") return {"ring", "nvls"};
  return {"ring"};
}

std::vector<std::string_view> collective_protocols() {
  return {std::begin(kProtocols), std::end(kProtocols)};
}

std::string protocol_choice_error(std::string_view text) {
  if (text == "auto" || text == "wire") return {};
  const std::vector<std::string_view> names = split_names(text);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string_view name = names[i];
    if (name != "LL" && name != "LL128" && name != "Simple")
      return "unknown protocol '" + std::string(name) +
             "' (choose LL, LL128, Simple, wire, auto, or a list such as LL,Simple)";
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        names.begin() + static_cast<std::ptrdiff_t>(i))
      return "protocol '" + std::string(name) + "' is listed twice";
  }
  return {};
}

double bus_factor(std::string_view op, std::size_t n) {
  const double ranks = static_cast<double>(n);
  if (op == "allreduce") return 2.0 * (ranks - 1) / ranks;
  if (op == "reduce_scatter" || op == "all_gather" || op == "all_to_all")
    return (ranks - 1) / ranks;
  if (op == "broadcast" || op == "reduce" || op == "sendrecv") return 1.0;
  fail(op, "unknown collective (choose " + joined(kCollectives) + ")");
}

namespace {

struct Dtype {
  std::string_view name;
  std::uint64_t bytes;
};
constexpr Dtype kNcclTestsDtypes[] = {{"int8", 1},   {"uint8", 1},    {"int32", 4},  {"uint32", 4},
                                      {"int64", 8},  {"uint64", 8},   {"half", 2},   {"float", 4},
                                      {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
constexpr std::uint64_t kShareUnitBytes = 16;  // GetCollByteCount: & ~(16 / eltSize - 1)

// Whether nccl-tests cuts the buffer into one share per rank (GetCollByteCount).
bool shared_per_rank(std::string_view op) {
  bus_factor(op, 2);  // an unknown op says so
  return op == "reduce_scatter" || op == "all_gather" || op == "all_to_all";
}

}  // namespace

std::vector<std::string_view> nccl_tests_dtypes() {
  std::vector<std::string_view> names;
  for (const Dtype& type : kNcclTestsDtypes) names.push_back(type.name);
  return names;
}

std::size_t nccl_tests_element_bytes(std::string_view dtype) {
  for (const Dtype& type : kNcclTestsDtypes)
    if (type.name == dtype) return type.bytes;
  std::string names;
  for (const Dtype& type : kNcclTestsDtypes)
    names += (names.empty() ? "" : ", ") + std::string(type.name);
  throw InputError("unknown data type '" + std::string(dtype) + "' (nccl-tests' -d: " + names +
                   ")");
}

NcclTestsSize nccl_tests_size(std::string_view op, double requested_bytes, std::size_t ranks,
                              std::string_view dtype) {
  const std::uint64_t element = nccl_tests_element_bytes(dtype);
  // Whole numbers up to 2^53: integer arithmetic floors exactly where doubles might not.
  const auto elements = static_cast<std::uint64_t>(requested_bytes) / element;
  if (!shared_per_rank(op))
    return {static_cast<double>(elements * element), static_cast<double>(elements)};
  if (ranks == 0) fail(op, "no ranks to share the buffer among");
  const std::uint64_t unit = kShareUnitBytes / element;
  const std::uint64_t share = elements / ranks / unit * unit;
  return {static_cast<double>(share * ranks * element), static_cast<double>(share)};
}

NcclTestsLeastSize nccl_tests_least_size(std::string_view op, std::size_t ranks,
                                         std::string_view dtype) {
  const std::uint64_t element = nccl_tests_element_bytes(dtype);
  const std::string name(op);
  if (!shared_per_rank(op)) {
    const std::string least = std::to_string(element) + " B";
    return {static_cast<double>(element), "nccl-tests runs " + name + " on whole " + least + " " +
                                              std::string(dtype) + " elements, so a size below " +
                                              least + " runs as 0 bytes"};
  }
  const std::uint64_t least = ranks * kShareUnitBytes;
  return {static_cast<double>(least), "nccl-tests gives each of the " + std::to_string(ranks) +
                                          " ranks of " + name +
                                          " whole 16-byte units, so a size below " +
                                          std::to_string(least) + " B runs as 0 bytes"};
}

double algbw_bytes_per_s(double bytes, double time_s) {
  return time_s >= kShortestTimeForBandwidth_s ? bytes / time_s : std::nan("");
}

std::size_t pipeline_chunks(double bytes) {
  constexpr double kPieceBytes = 128.0 * 1024.0;
  constexpr double kMostPieces = 4096;
  return static_cast<std::size_t>(std::clamp(std::ceil(bytes / kPieceBytes), 1.0, kMostPieces));
}

namespace {

// A request with every check done, and the algorithm and protocol asked for ("auto" if not).
struct CheckedRequest {
  Request request;
  std::string algorithm;
  std::string protocol;
};

CheckedRequest check_request(std::string_view op, const Machine& machine,
                             const CollectiveOptions& options) {
  (void)collective_algorithms(op);  // an unknown op first
  const std::string algorithm = options.algorithm.empty() ? "auto" : options.algorithm;
  if (std::find(std::begin(kAlgorithms), std::end(kAlgorithms), algorithm) == std::end(kAlgorithms))
    fail(op, "unknown algorithm '" + algorithm + "' (choose " + joined(kAlgorithms) + ")");
  const std::string protocol = options.protocol.empty() ? "auto" : options.protocol;
  if (const std::string why = protocol_choice_error(protocol); !why.empty()) fail(op, why);
  if (!std::isfinite(options.bytes) || options.bytes <= 0)
    fail(op, "size must be a positive number of bytes");
  Request request{op, machine, checked_gpus(op, machine, options), {}, options.bytes};
  if (options.gpus_per_thread < 1 ||
      static_cast<std::size_t>(options.gpus_per_thread) > request.gpus.size())
    fail(op, "GPUs per host thread must be from 1 to the " + std::to_string(request.gpus.size()) +
                 " GPUs, got " + std::to_string(options.gpus_per_thread));
  if (options.gpus_per_thread > 1 && machine.cpus().empty())
    fail(op, "GPUs per host thread above 1 needs a CPU on machine '" + machine.name() + "'");
  request.servers = collectives::gpus_by_node(machine, request.gpus);
  if (algorithm != "auto") {
    if (const std::string why = why_not(request, algorithm); !why.empty()) fail(op, why);
    const std::vector<std::string_view> listed = split_names(protocol);
    if ((algorithm == "nvls" || algorithm == "nvls_tree") && protocol != "auto" &&
        protocol != "wire" && std::find(listed.begin(), listed.end(), "Simple") == listed.end())
      fail(op, algorithm + " runs with the Simple protocol only (as NCCL's), not " + protocol);
  }
  return {std::move(request), algorithm, protocol};
}

// The tuner's choice for a checked request; a missing route is the request's error.
Choice choose_checked(const CheckedRequest& checked) {
  try {
    return choose(checked.request, checked.algorithm, checked.protocol);
  } catch (const std::invalid_argument& e) {
    fail(checked.request.op, e.what());
  }
}

}  // namespace

CollectivePlan choose_collective(std::string_view op, const Machine& machine,
                                 const CollectiveOptions& options) {
  const Choice choice = choose_checked(check_request(op, machine, options));
  CollectivePlan plan;
  plan.algorithm = choice.algorithm;
  plan.protocol = std::string(collectives::protocol_name(choice.protocol));
  plan.estimate_s = choice.estimate_s;
  return plan;
}

CollectivePlan make_collective(std::string_view op, const Machine& machine,
                               const CollectiveOptions& options) {
  const CheckedRequest checked = check_request(op, machine, options);
  const Request& request = checked.request;
  const Choice choice = choose_checked(checked);
  CollectivePlan plan;
  try {
    plan.algorithm = choice.algorithm;
    plan.protocol = std::string(collectives::protocol_name(choice.protocol));
    plan.estimate_s = choice.estimate_s;
    collectives::StepBuilder builder(machine, plan.graph, family_of(choice.algorithm),
                                     choice.protocol);
    builder.stretch_payload(
        payload_stretch(request, choice.algorithm, choice.protocol, options.chunks));
    const std::span<const DeviceId> gpus = request.gpus;
    const std::size_t n = gpus.size();
    // A pipeline's hop: the first two GPUs' route.
    const double hop_latency_s = machine.route_latency_s(gpus[0], gpus[1]);
    const double hop_bytes_per_s = machine.route_bytes_per_s(gpus[0], gpus[1]);
    if (choice.algorithm == "tree") {
      collectives::add_tree(builder, op, gpus, options.bytes, tree_pieces(request, options.chunks));
    } else if (choice.algorithm == "nvls") {
      collectives::add_nvls(builder, op, gpus, options.bytes);
    } else if (choice.algorithm == "nvls_tree") {
      collectives::add_nvls_tree(builder, gpus, options.bytes, nvls_tree_pieces(request));
    } else if (choice.algorithm == "hierarchical") {
      // NCCL_STEPS (8) pieces in flight, fewer where the graph would pass about 4 million copies.
      const double servers = static_cast<double>(request.servers.size());
      const double g = static_cast<double>(request.servers.front().size());
      const double per_piece = 2 * (servers - 1) * servers * g + 2 * (g - 1) * g * servers;
      const std::size_t pieces =
          static_cast<std::size_t>(std::clamp(std::floor(kMostTreeCopies / per_piece), 1.0, 8.0));
      collectives::add_hierarchical(builder, gpus, options.bytes, pieces);
    } else if (op == "all_to_all") {
      collectives::add_direct_all_to_all(builder, gpus, options.bytes);
    } else if (op == "sendrecv") {
      collectives::add_sendrecv(builder, gpus, options.bytes);
    } else if (op == "broadcast" || op == "reduce") {
      const std::size_t chunks = options.chunks > 0
                                     ? options.chunks
                                     : pipeline_pieces(options.bytes, static_cast<double>(n - 1),
                                                       hop_bytes_per_s, hop_latency_s, 4096);
      plan.order = collectives::add_pipeline(builder, op, gpus, options.bytes, chunks);
    } else {
      plan.order = collectives::add_ring(builder, op, gpus, options.bytes);
    }
    if (plan.order.empty()) plan.order = request.gpus;
    add_straggle(machine, plan.graph, straggle_s(request, choice));
    if (options.gpus_per_thread > 1)
      add_launches(machine, gpus, options.gpus_per_thread, plan.graph);
  } catch (const std::invalid_argument& e) {  // e.g. no route between two GPUs
    fail(op, e.what());
  }
  plan.summary = std::string(op) + " (" + plan.algorithm + ", " + plan.protocol +
                 "): " + std::to_string(request.gpus.size()) + " GPUs, " +
                 format_bytes(options.bytes) + ", " + std::to_string(plan.graph.size()) + " copies";
  return plan;
}

}  // namespace opsim
