#include "gui/range_stats.hpp"

#include <algorithm>

namespace opsim::gui {

std::vector<LaneRangeStats> range_stats(const TimelineModel& model, TimeNs begin_ns, TimeNs end_ns,
                                        TimeNs min_gap_ns) {
  const Trace& trace = model.trace();
  std::vector<LaneRangeStats> out(trace.lanes.size());
  const TimeNs range_ns = end_ns - begin_ns;
  for (std::uint32_t l = 0; l < trace.lanes.size(); ++l) {
    LaneRangeStats& st = out[l];
    st.lane = l;
    if (range_ns <= 0) continue;
    const LaneSpans& ls = model.lane_spans(l);
    TimeNs cursor = begin_ns;  // end of the busy union so far
    auto note_gap = [&](TimeNs gap) {
      if (gap >= min_gap_ns && gap > 0) {
        ++st.idle_gaps;
        st.longest_gap_ns = std::max(st.longest_gap_ns, gap);
      }
    };
    for (std::size_t i = ls.first_ending_after(begin_ns); i < ls.spans.size(); ++i) {
      const SpanRef& s = ls.spans[i];
      if (s.start_ns >= end_ns) break;
      const TimeNs lo = std::max(s.start_ns, begin_ns);
      const TimeNs hi = std::min(s.end_ns, end_ns);
      if (hi < lo) continue;
      const double op_bytes = trace.ops[s.op].bytes;
      const TimeNs dur = s.end_ns - s.start_ns;
      st.bytes +=
          dur > 0 ? op_bytes * static_cast<double>(hi - lo) / static_cast<double>(dur) : op_bytes;
      if (lo > cursor) note_gap(lo - cursor);
      if (hi > cursor) {
        st.busy_ns += hi - std::max(lo, cursor);
        cursor = hi;
      }
    }
    if (end_ns > cursor) note_gap(end_ns - cursor);
    st.busy_fraction = static_cast<double>(st.busy_ns) / static_cast<double>(range_ns);
    st.utilization = lane_utilization(trace.lanes[l], st);
  }
  return out;
}

double lane_utilization(const TraceLane& lane, const LaneRangeStats& stats) {
  if (lane.kind == LaneKind::kLink && lane.capacity_bytes_per_s > 0 && stats.busy_fraction > 0) {
    const double range_s = static_cast<double>(stats.busy_ns) / 1e9 / stats.busy_fraction;
    return std::min(1.0, stats.bytes / (lane.capacity_bytes_per_s * range_s));
  }
  return stats.busy_fraction;
}

}  // namespace opsim::gui
