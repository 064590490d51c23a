// The machine as a graph, recovered from a trace alone (the GUI reads traces, not machine
// files): devices from stream lanes, links from link lanes. A link's ends come from its lane
// name when the engine wrote them ("pcie_gpu0 gpu0→sw0": switches included), else from the
// devices named in the link ("nvlink_gpu0_gpu1"), else from the devices every copy over it
// touches; an end that stays unknown is the server's fabric.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/trace.hpp"

namespace opsim::gui {

struct TopologyGraph {
  enum class NodeKind : std::uint8_t { kGpu, kCpu, kDisk, kDevice, kFabric };
  struct Node {
    std::string name;
    std::string server;
    NodeKind kind = NodeKind::kDevice;
    double x = 0, y = 0;            ///< layout in a unit-free plane (see layout())
    double cell_w = 0, cell_h = 0;  ///< the room the layout gave it, in the same plane
  };
  struct Edge {
    std::string link;
    int a = 0, b = 0;                  ///< node indices
    std::vector<std::uint32_t> lanes;  ///< the link's lanes (one per direction) in the trace
    double capacity_bytes_per_s = 0;   ///< per direction
  };
  /// A server's cell in the layout: its devices and switches lie inside.
  struct Server {
    std::string name;
    double x0 = 0, y0 = 0, x1 = 1, y1 = 1;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<Server> servers;

  int find(const std::string& name) const;
};

/// Infers devices and links from `trace` and lays them out for a view `aspect` times as wide
/// as tall: servers on a grid of cells; in each, CPUs on top, then its switches and NICs, then
/// its GPUs on a grid grouped by the switch they hang off (name order: gpu2 before gpu10);
/// coordinates in [0, 1] x [0, 1].
TopologyGraph infer_topology(const Trace& trace, double aspect = 2.5);

}  // namespace opsim::gui
