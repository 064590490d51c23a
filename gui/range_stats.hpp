// What happened in a selected time range, per lane: busy fraction, bytes moved and idle gaps.
// Plain C++ over a TimelineModel, so it is tested without a window.
#pragma once

#include <cstdint>
#include <vector>

#include "gui/timeline_model.hpp"

namespace opsim::gui {

struct LaneRangeStats {
  std::uint32_t lane = 0;
  TimeNs busy_ns = 0;         ///< length of the union of the lane's spans inside the range
  double busy_fraction = 0;   ///< busy_ns / range length
  double bytes = 0;           ///< bytes of the lane's spans, pro rata to their overlap
  int idle_gaps = 0;          ///< idle intervals inside the range at least min_gap_ns long
  TimeNs longest_gap_ns = 0;  ///< the longest of them
  double utilization = 0;     ///< link lanes with a capacity: bytes / (capacity * range)
};

/// Stats of every lane of `model` over [begin_ns, end_ns) (empty range: all zero). Idle time
/// before the first and after the last span in the range counts as a gap.
std::vector<LaneRangeStats> range_stats(const TimelineModel& model, TimeNs begin_ns, TimeNs end_ns,
                                        TimeNs min_gap_ns = 1);

/// Link utilization for the topology view: for link lanes with a capacity, bytes over
/// capacity x range; otherwise the busy fraction.
double lane_utilization(const TraceLane& lane, const LaneRangeStats& stats);

}  // namespace opsim::gui
