#include "gui/topology_graph.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numbers>
#include <optional>
#include <set>

namespace opsim::gui {

int TopologyGraph::find(const std::string& name) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// `name` appears in `text` as a whole token (not "gpu1" inside "gpu10").
bool contains_token(const std::string& text, const std::string& name) {
  for (std::size_t pos = text.find(name); pos != std::string::npos;
       pos = text.find(name, pos + 1)) {
    const bool left_ok = pos == 0 || !std::isalnum(static_cast<unsigned char>(text[pos - 1]));
    const std::size_t end = pos + name.size();
    const bool right_ok =
        end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end]));
    if (left_ok && right_ok) return true;
  }
  return false;
}

// "pcie_gpu0 gpu0→sw0" -> ("gpu0", "sw0").
std::optional<std::pair<std::string, std::string>> ends_from_lane_name(const std::string& name) {
  static const std::string kArrow = "\u2192";
  const std::size_t space = name.rfind(' ');
  if (space == std::string::npos) return std::nullopt;
  const std::size_t arrow = name.find(kArrow, space + 1);
  if (arrow == std::string::npos) return std::nullopt;
  std::string from = name.substr(space + 1, arrow - space - 1);
  std::string to = name.substr(arrow + kArrow.size());
  if (from.empty() || to.empty() || from == to) return std::nullopt;
  return std::make_pair(std::move(from), std::move(to));
}

using NodeKind = TopologyGraph::NodeKind;

/// The graph being inferred and its servers in order of first appearance.
struct GraphBuilder {
  TopologyGraph g;
  std::vector<std::string> servers;

  void note_server(const std::string& server) {
    if (std::find(servers.begin(), servers.end(), server) == servers.end())
      servers.push_back(server);
  }
  int add_node(const std::string& name, const std::string& server, NodeKind kind) {
    g.nodes.push_back({name, server, kind});
    return static_cast<int>(g.nodes.size()) - 1;
  }
  /// The node standing for a server's switches and NICs when a link end is unknown.
  int fabric_of(const std::string& server) {
    const std::string name = (server.empty() ? std::string("server") : server) + " fabric";
    int i = g.find(name);
    if (i < 0) {
      i = add_node(name, server, NodeKind::kFabric);
      note_server(server);
    }
    return i;
  }
};

/// GPU or CPU by name, else by the kinds of lanes the device has; kDevice when unsure.
NodeKind device_kind(const std::string& name, const std::set<LaneKind>& lane_kinds) {
  if (starts_with(name, "gpu")) return NodeKind::kGpu;
  if (starts_with(name, "cpu")) return NodeKind::kCpu;
  if (lane_kinds.count(LaneKind::kIo)) return NodeKind::kDisk;
  if (lane_kinds.count(LaneKind::kCopy)) return NodeKind::kGpu;
  if (lane_kinds.count(LaneKind::kHost)) return NodeKind::kCpu;
  return NodeKind::kDevice;
}

/// One node per device that has stream lanes.
void add_devices(GraphBuilder& b, const Trace& trace) {
  std::map<std::string, std::set<LaneKind>> lane_kinds;
  for (const TraceLane& lane : trace.lanes) {
    if (lane.kind == LaneKind::kLink) continue;
    lane_kinds[lane.device].insert(lane.kind);
    if (b.g.find(lane.device) < 0) b.add_node(lane.device, lane.node, NodeKind::kDevice);
    b.note_server(lane.node);
  }
  for (auto& n : b.g.nodes) n.kind = device_kind(n.name, lane_kinds[n.name]);
}

/// Per link lane that carries spans: the devices touched by every copy crossing it.
std::map<std::uint32_t, std::set<std::string>> devices_every_copy_touches(const Trace& trace) {
  std::map<std::uint32_t, std::set<std::string>> touched;
  for (const TraceSpan& s : trace.link_spans) {
    if (s.op >= trace.ops.size()) continue;
    const TraceOp& op = trace.ops[s.op];
    std::set<std::string> ends{op.device, op.peer};
    const auto it = touched.find(s.lane);
    if (it == touched.end()) {
      touched[s.lane] = ends;
      continue;
    }
    std::set<std::string> common;
    std::set_intersection(it->second.begin(), it->second.end(), ends.begin(), ends.end(),
                          std::inserter(common, common.begin()));
    it->second = common;
  }
  return touched;
}

/// The engine names link lanes "LINK FROM→TO": the exact ends, switches included; ends not
/// yet in the graph are added (CPUs by name, anything else as fabric).
std::vector<int> ends_by_lane_name(GraphBuilder& b, const TraceLane& lane) {
  std::vector<int> ends;
  const auto names = ends_from_lane_name(lane.name);
  if (!names) return ends;
  for (const std::string& dev : {names->first, names->second}) {
    int i = b.g.find(dev);
    if (i < 0) {
      i = b.add_node(dev, lane.node, starts_with(dev, "cpu") ? NodeKind::kCpu : NodeKind::kFabric);
      b.note_server(lane.node);
    }
    ends.push_back(i);
  }
  return ends;
}

/// The first two of the first `device_count` nodes whose names appear in `link`.
std::vector<int> ends_named_in_link(const TopologyGraph& g, const std::string& link,
                                    std::size_t device_count) {
  std::vector<int> ends;
  for (std::size_t d = 0; d < device_count; ++d) {
    if (!contains_token(link, g.nodes[d].name)) continue;
    ends.push_back(static_cast<int>(d));
    if (ends.size() == 2) break;
  }
  return ends;
}

/// A link's two ends: by lane name, else by the devices its name mentions, else by the
/// devices every copy over it touches; what stays unknown is the server's fabric.
std::pair<int, int> link_ends(GraphBuilder& b, const TraceLane& lane, const std::string& link,
                              const std::set<std::string>* touched, std::size_t device_count) {
  std::vector<int> ends = ends_by_lane_name(b, lane);
  if (ends.empty()) ends = ends_named_in_link(b.g, link, device_count);
  if (ends.empty() && touched != nullptr) {
    for (const std::string& dev : *touched) {
      const int i = b.g.find(dev);
      if (i >= 0 && static_cast<std::size_t>(i) < device_count) ends.push_back(i);
    }
  }
  if (ends.size() > 2) ends.resize(2);
  while (ends.size() < 2) ends.push_back(b.fabric_of(lane.node));
  if (ends[0] == ends[1]) ends[1] = b.fabric_of(lane.node);
  return {ends[0], ends[1]};
}

/// One edge per link; a link's lanes (one per direction) join its edge.
void add_links(GraphBuilder& b, const Trace& trace) {
  const auto touched = devices_every_copy_touches(trace);
  std::map<std::string, int> edge_of_link;
  const std::size_t device_count = b.g.nodes.size();
  for (std::uint32_t l = 0; l < trace.lanes.size(); ++l) {
    const TraceLane& lane = trace.lanes[l];
    if (lane.kind != LaneKind::kLink) continue;
    const std::string link = lane.device.empty() ? lane.name : lane.device;
    if (auto it = edge_of_link.find(link); it != edge_of_link.end()) {
      b.g.edges[static_cast<std::size_t>(it->second)].lanes.push_back(l);
      continue;
    }
    const auto touched_here = touched.find(l);
    const auto [a, z] =
        link_ends(b, lane, link, touched_here == touched.end() ? nullptr : &touched_here->second,
                  device_count);
    edge_of_link[link] = static_cast<int>(b.g.edges.size());
    b.g.edges.push_back({link, a, z, {l}, lane.capacity_bytes_per_s});
  }
}

int ring_rank(NodeKind kind) {
  switch (kind) {
    case NodeKind::kCpu:
      return 0;
    case NodeKind::kGpu:
      return 1;
    case NodeKind::kDevice:
      return 2;
    case NodeKind::kDisk:
      return 3;
    default:
      return 4;
  }
}

/// One server's column centred at `cx`: switches and NICs in the middle (a small ring when
/// there are several); CPUs on top, disks at the bottom, GPUs around.
void lay_out_server(TopologyGraph& g, const std::string& server, double cx, double col_w) {
  std::vector<int> members;
  std::vector<int> hubs;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& n = g.nodes[i];
    if (n.server != server) continue;
    (n.kind == NodeKind::kFabric ? hubs : members).push_back(static_cast<int>(i));
  }
  for (std::size_t k = 0; k < hubs.size(); ++k) {
    auto& n = g.nodes[static_cast<std::size_t>(hubs[k])];
    const double angle =
        std::numbers::pi * (0.5 + 2.0 * static_cast<double>(k) / static_cast<double>(hubs.size()));
    const double r = hubs.size() > 1 ? 0.14 : 0.0;
    n.x = cx + col_w * r * std::cos(angle);
    n.y = 0.5 + r * 1.4 * std::sin(angle);
  }
  // Sorting by kind keeps the ring stable.
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    return ring_rank(g.nodes[static_cast<std::size_t>(a)].kind) <
           ring_rank(g.nodes[static_cast<std::size_t>(b)].kind);
  });
  const double radius_x = col_w * 0.36;
  for (std::size_t k = 0; k < members.size(); ++k) {
    const double angle = -std::numbers::pi / 2 + 2 * std::numbers::pi * static_cast<double>(k) /
                                                     static_cast<double>(members.size());
    auto& n = g.nodes[static_cast<std::size_t>(members[k])];
    n.x = cx + radius_x * std::cos(angle);
    n.y = 0.5 + 0.38 * std::sin(angle);
  }
}

}  // namespace

TopologyGraph infer_topology(const Trace& trace) {
  GraphBuilder b;
  add_devices(b, trace);
  add_links(b, trace);
  // Servers in columns.
  const double col_w = 1.0 / std::max<std::size_t>(b.servers.size(), 1);
  for (std::size_t s = 0; s < b.servers.size(); ++s) {
    lay_out_server(b.g, b.servers[s], col_w * (s + 0.5), col_w);
  }
  return b.g;
}

}  // namespace opsim::gui
