// Bytes each link carries in each direction for a whole op graph, from the copies' and
// disk ops' routes. Independent of timing, so it is exact and cheap even for a
// two-million-transfer graph where recording a full trace would not be.
#pragma once

#include <string>
#include <vector>

#include "engine/op_graph.hpp"

namespace opsim {

struct LinkDirectionLoad {
  LinkId link = 0;
  bool forward = true;  ///< link.a -> link.b
  double bytes = 0;
};

struct LinkTraffic {
  /// Two entries per link: [2*id] forward (a->b), [2*id+1] backward (b->a).
  std::vector<double> bytes_by_direction;
  double bytes_moved = 0;  ///< sum of copy and disk bytes (each transfer counted once)

  double bytes(LinkId link, bool forward) const {
    return bytes_by_direction[2 * link + (forward ? 0 : 1)];
  }
};

LinkTraffic compute_link_traffic(const Machine& machine, const OpGraph& graph);

struct BusiestLink {
  std::string name;  ///< TraceRecorder::link_lane_name(), empty if nothing moved
  double bytes = 0;
  double utilization = 0;  ///< bytes / (per-direction capacity x makespan)
};

/// The link direction with the highest utilization over a run of `makespan_s`. A half-duplex
/// link counts both directions against one capacity.
BusiestLink busiest_link(const Machine& machine, const LinkTraffic& traffic, double makespan_s);

}  // namespace opsim
