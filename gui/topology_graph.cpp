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

/// A server's cell in the unit plane, and the view's aspect ratio (width / height).
struct QRectLike {
  double x0, x1, y0, y1, aspect;
};

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

/// "gpu10" after "gpu9": names compared by their text, then by their trailing number.
bool natural_less(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    std::size_t d = s.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(s[d - 1]))) --d;
    const long number = d < s.size() ? std::stol(s.substr(d, 9)) : -1;
    return std::make_pair(s.substr(0, d), number);
  };
  return split(a) < split(b);
}

/// Per node, the first hub (switch, NIC, fabric) it is linked to, or -1.
std::vector<int> hub_of_nodes(const TopologyGraph& g) {
  std::vector<int> hub(g.nodes.size(), -1);
  for (const auto& e : g.edges) {
    const bool a_hub = g.nodes[static_cast<std::size_t>(e.a)].kind == NodeKind::kFabric;
    const bool b_hub = g.nodes[static_cast<std::size_t>(e.b)].kind == NodeKind::kFabric;
    if (!a_hub && b_hub && hub[static_cast<std::size_t>(e.a)] < 0)
      hub[static_cast<std::size_t>(e.a)] = e.b;
    if (a_hub && !b_hub && hub[static_cast<std::size_t>(e.b)] < 0)
      hub[static_cast<std::size_t>(e.b)] = e.a;
  }
  return hub;
}

/// Places `nodes` on a grid of rows inside [x0, x1] x [y0, y1], left to right, top to bottom,
/// with cells about as wide as tall in a view of aspect `aspect` (width / height).
void lay_out_grid(TopologyGraph& g, const std::vector<int>& nodes, double x0, double x1, double y0,
                  double y1, double aspect) {
  if (nodes.empty()) return;
  const double w = (x1 - x0) * aspect, h = y1 - y0;
  auto cols = static_cast<std::size_t>(
      std::ceil(std::sqrt(static_cast<double>(nodes.size()) * w / std::max(h, 1e-9))));
  cols = std::clamp<std::size_t>(cols, 1, nodes.size());
  const std::size_t rows = (nodes.size() + cols - 1) / cols;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    auto& n = g.nodes[static_cast<std::size_t>(nodes[k])];
    n.x = x0 + (x1 - x0) * (static_cast<double>(k % cols) + 0.5) / static_cast<double>(cols);
    n.y = y0 + (y1 - y0) * (static_cast<double>(k / cols) + 0.5) / static_cast<double>(rows);
    n.cell_w = (x1 - x0) / static_cast<double>(cols);
    n.cell_h = (y1 - y0) / static_cast<double>(rows);
  }
}

/// One server in its cell: CPUs and other hosts along the top, its switches and NICs in a row
/// under them, then its GPUs (and disks) on a grid, grouped by the switch they hang off so a
/// switch's GPUs sit together.
void lay_out_server(TopologyGraph& g, const std::string& server, const QRectLike& cell,
                    const std::vector<int>& hub_of) {
  std::vector<int> hosts, hubs, members;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& n = g.nodes[i];
    if (n.server != server) continue;
    const int idx = static_cast<int>(i);
    if (n.kind == NodeKind::kFabric) {
      hubs.push_back(idx);
    } else if (n.kind == NodeKind::kCpu) {
      hosts.push_back(idx);
    } else {
      members.push_back(idx);
    }
  }
  auto by_name = [&](int a, int b) {
    return natural_less(g.nodes[static_cast<std::size_t>(a)].name,
                        g.nodes[static_cast<std::size_t>(b)].name);
  };
  std::sort(hosts.begin(), hosts.end(), by_name);
  std::sort(hubs.begin(), hubs.end(), by_name);
  std::vector<int> hub_rank(g.nodes.size(), -1);
  for (std::size_t k = 0; k < hubs.size(); ++k)
    hub_rank[static_cast<std::size_t>(hubs[k])] = static_cast<int>(k);
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    const int ha = hub_of[static_cast<std::size_t>(a)] < 0
                       ? -1
                       : hub_rank[static_cast<std::size_t>(hub_of[static_cast<std::size_t>(a)])];
    const int hb = hub_of[static_cast<std::size_t>(b)] < 0
                       ? -1
                       : hub_rank[static_cast<std::size_t>(hub_of[static_cast<std::size_t>(b)])];
    if (ha != hb) return ha < hb;
    return by_name(a, b);
  });
  const double h = cell.y1 - cell.y0;
  double top = cell.y0;
  if (!hosts.empty()) {
    lay_out_grid(g, hosts, cell.x0, cell.x1, top, top + 0.16 * h, cell.aspect);
    top += 0.2 * h;
  }
  if (!hubs.empty()) {
    lay_out_grid(g, hubs, cell.x0, cell.x1, top, top + 0.16 * h, cell.aspect);
    top += 0.24 * h;
  }
  lay_out_grid(g, members, cell.x0, cell.x1, top, cell.y1, cell.aspect);
}

}  // namespace

TopologyGraph infer_topology(const Trace& trace, double aspect) {
  GraphBuilder b;
  add_devices(b, trace);
  add_links(b, trace);
  // Servers on a grid of cells, each cell laid out by its switches.
  const std::size_t servers = std::max<std::size_t>(b.servers.size(), 1);
  auto cols = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(servers) / aspect)));
  cols = std::clamp<std::size_t>(cols, 1, servers);
  const std::size_t rows = (servers + cols - 1) / cols;
  const std::vector<int> hub_of = hub_of_nodes(b.g);
  for (std::size_t s = 0; s < b.servers.size(); ++s) {
    const double cw = 1.0 / static_cast<double>(cols), ch = 1.0 / static_cast<double>(rows);
    const double x0 = cw * static_cast<double>(s % cols), y0 = ch * static_cast<double>(s / cols);
    const QRectLike cell{x0 + 0.04 * cw, x0 + 0.96 * cw, y0 + 0.12 * ch, y0 + 0.96 * ch, aspect};
    lay_out_server(b.g, b.servers[s], cell, hub_of);
    b.g.servers.push_back({b.servers[s], x0, y0, x0 + cw, y0 + ch});
  }
  return b.g;
}

}  // namespace opsim::gui
