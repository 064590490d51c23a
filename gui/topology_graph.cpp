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

}  // namespace

TopologyGraph infer_topology(const Trace& trace) {
  TopologyGraph g;
  std::map<std::string, std::set<LaneKind>> lane_kinds;
  std::vector<std::string> servers;
  for (const TraceLane& lane : trace.lanes) {
    if (lane.kind == LaneKind::kLink) continue;
    lane_kinds[lane.device].insert(lane.kind);
    if (g.find(lane.device) < 0)
      g.nodes.push_back({lane.device, lane.node, TopologyGraph::NodeKind::kDevice});
    if (std::find(servers.begin(), servers.end(), lane.node) == servers.end())
      servers.push_back(lane.node);
  }
  for (auto& n : g.nodes) {
    const auto& kinds = lane_kinds[n.name];
    if (starts_with(n.name, "gpu"))
      n.kind = TopologyGraph::NodeKind::kGpu;
    else if (starts_with(n.name, "cpu"))
      n.kind = TopologyGraph::NodeKind::kCpu;
    else if (kinds.count(LaneKind::kIo))
      n.kind = TopologyGraph::NodeKind::kDisk;
    else if (kinds.count(LaneKind::kCopy))
      n.kind = TopologyGraph::NodeKind::kGpu;
    else if (kinds.count(LaneKind::kHost))
      n.kind = TopologyGraph::NodeKind::kCpu;
  }
  auto fabric_of = [&](const std::string& server) {
    const std::string name = (server.empty() ? std::string("server") : server) + " fabric";
    int i = g.find(name);
    if (i < 0) {
      g.nodes.push_back({name, server, TopologyGraph::NodeKind::kFabric});
      i = static_cast<int>(g.nodes.size()) - 1;
      if (std::find(servers.begin(), servers.end(), server) == servers.end())
        servers.push_back(server);
    }
    return i;
  };

  // Devices touched by every copy crossing each link.
  std::map<std::uint32_t, std::set<std::string>> touched;  // lane -> common devices
  std::map<std::uint32_t, bool> seen;
  for (const TraceSpan& s : trace.link_spans) {
    if (s.op >= trace.ops.size()) continue;
    const TraceOp& op = trace.ops[s.op];
    std::set<std::string> ends{op.device, op.peer};
    if (!seen[s.lane]) {
      touched[s.lane] = ends;
      seen[s.lane] = true;
    } else {
      std::set<std::string> common;
      std::set_intersection(touched[s.lane].begin(), touched[s.lane].end(), ends.begin(),
                            ends.end(), std::inserter(common, common.begin()));
      touched[s.lane] = common;
    }
  }

  std::map<std::string, int> edge_of_link;
  const std::size_t device_count = g.nodes.size();
  for (std::uint32_t l = 0; l < trace.lanes.size(); ++l) {
    const TraceLane& lane = trace.lanes[l];
    if (lane.kind != LaneKind::kLink) continue;
    const std::string link = lane.device.empty() ? lane.name : lane.device;
    if (auto it = edge_of_link.find(link); it != edge_of_link.end()) {
      g.edges[static_cast<std::size_t>(it->second)].lanes.push_back(l);
      continue;
    }
    std::vector<int> ends;
    // The engine names link lanes "LINK FROM→TO": the exact ends, switches included.
    if (const auto ends_by_name = ends_from_lane_name(lane.name)) {
      for (const std::string& dev : {ends_by_name->first, ends_by_name->second}) {
        int i = g.find(dev);
        if (i < 0) {
          const bool cpu = starts_with(dev, "cpu");
          g.nodes.push_back(
              {dev, lane.node,
               cpu ? TopologyGraph::NodeKind::kCpu : TopologyGraph::NodeKind::kFabric});
          i = static_cast<int>(g.nodes.size()) - 1;
          if (std::find(servers.begin(), servers.end(), lane.node) == servers.end())
            servers.push_back(lane.node);
        }
        ends.push_back(i);
      }
    }
    for (std::size_t d = 0; d < device_count && ends.empty(); ++d) {
      if (contains_token(link, g.nodes[d].name)) ends.push_back(static_cast<int>(d));
    }
    if (ends.size() == 1) {
      // one named device: keep scanning in case the link names two
      for (std::size_t d = static_cast<std::size_t>(ends[0]) + 1; d < device_count; ++d) {
        if (contains_token(link, g.nodes[d].name)) ends.push_back(static_cast<int>(d));
      }
    }
    if (ends.empty() && seen[l]) {
      for (const std::string& dev : touched[l]) {
        const int i = g.find(dev);
        if (i >= 0 && static_cast<std::size_t>(i) < device_count) ends.push_back(i);
      }
    }
    if (ends.size() > 2) ends.resize(2);
    while (ends.size() < 2) ends.push_back(fabric_of(lane.node));
    if (ends[0] == ends[1]) ends[1] = fabric_of(lane.node);
    edge_of_link[link] = static_cast<int>(g.edges.size());
    g.edges.push_back({link, ends[0], ends[1], {l}, lane.capacity_bytes_per_s});
  }

  // Layout: servers in columns; the fabric in the middle, devices on a ring around it.
  const double col_w = 1.0 / std::max<std::size_t>(servers.size(), 1);
  for (std::size_t s = 0; s < servers.size(); ++s) {
    const double cx = col_w * (s + 0.5);
    std::vector<int> members;
    std::vector<int> hubs;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const auto& n = g.nodes[i];
      if (n.server != servers[s]) continue;
      (n.kind == TopologyGraph::NodeKind::kFabric ? hubs : members).push_back(static_cast<int>(i));
    }
    // Switches and NICs in the middle (a small ring when there are several).
    for (std::size_t k = 0; k < hubs.size(); ++k) {
      auto& n = g.nodes[static_cast<std::size_t>(hubs[k])];
      const double angle = std::numbers::pi *
                           (0.5 + 2.0 * static_cast<double>(k) / static_cast<double>(hubs.size()));
      const double r = hubs.size() > 1 ? 0.14 : 0.0;
      n.x = cx + col_w * r * std::cos(angle);
      n.y = 0.5 + r * 1.4 * std::sin(angle);
    }
    // CPUs on top, disks at the bottom, GPUs around: sort by kind for a stable ring.
    std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
      auto rank = [&](int i) {
        switch (g.nodes[static_cast<std::size_t>(i)].kind) {
          case TopologyGraph::NodeKind::kCpu:
            return 0;
          case TopologyGraph::NodeKind::kGpu:
            return 1;
          case TopologyGraph::NodeKind::kDevice:
            return 2;
          case TopologyGraph::NodeKind::kDisk:
            return 3;
          default:
            return 4;
        }
      };
      return rank(a) < rank(b);
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
  return g;
}

}  // namespace opsim::gui
