#include "engine/trace_summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace opsim {

namespace {

using Interval = std::pair<TimeNs, TimeNs>;

// Spans of each lane: op spans on stream lanes, transfer spans on link lanes.
std::vector<std::vector<Interval>> intervals_per_lane(const Trace& trace) {
  std::vector<std::vector<Interval>> lanes(trace.lanes.size());
  for (const TraceOp& op : trace.ops) {
    if (op.lane < lanes.size()) lanes[op.lane].emplace_back(op.start_ns, op.end_ns);
  }
  for (const TraceSpan& span : trace.link_spans) {
    if (span.lane < lanes.size()) lanes[span.lane].emplace_back(span.start_ns, span.end_ns);
  }
  return lanes;
}

// Sorted, merged, clipped to [lo, hi).
std::vector<Interval> merged(std::vector<Interval> spans, TimeNs lo, TimeNs hi) {
  std::vector<Interval> out;
  std::sort(spans.begin(), spans.end());
  for (auto [s, e] : spans) {
    s = std::max(s, lo);
    e = std::min(e, hi);
    if (e <= s) continue;
    if (!out.empty() && s <= out.back().second) {
      out.back().second = std::max(out.back().second, e);
    } else {
      out.emplace_back(s, e);
    }
  }
  return out;
}

TimeNs total(const std::vector<Interval>& spans) {
  TimeNs sum = 0;
  for (const auto& [s, e] : spans) sum += e - s;
  return sum;
}

}  // namespace

bool moves_data(const TraceOp& op) {
  return !op.peer.empty();
}

TraceSummary summarize_trace(const Trace& trace) {
  TraceSummary summary;
  const TimeNs makespan_ns = trace.makespan_ns();
  summary.makespan_s = ns_to_seconds(makespan_ns);
  for (const TraceOp& op : trace.ops) {
    if (moves_data(op)) summary.bytes_moved += op.bytes;
  }

  const auto spans = intervals_per_lane(trace);
  for (std::uint32_t lane = 0; lane < trace.lanes.size(); ++lane) {
    const TimeNs busy = total(merged(spans[lane], std::numeric_limits<TimeNs>::min(),
                                     std::numeric_limits<TimeNs>::max()));
    summary.lanes.push_back(
        {lane, trace.lanes[lane].name, busy,
         makespan_ns > 0 ? static_cast<double>(busy) / static_cast<double>(makespan_ns) : 0.0});
  }

  std::vector<double> link_bytes(trace.lanes.size(), 0.0);
  for (const TraceSpan& span : trace.link_spans) {
    if (span.lane < link_bytes.size() && span.op < trace.ops.size()) {
      link_bytes[span.lane] += trace.ops[span.op].bytes;
    }
  }
  for (std::uint32_t lane = 0; lane < trace.lanes.size(); ++lane) {
    const TraceLane& l = trace.lanes[lane];
    if (l.kind != LaneKind::kLink) continue;
    LinkUsage usage{
        lane, l.name, l.capacity_bytes_per_s, link_bytes[lane], summary.lanes[lane].busy_ns, 0.0};
    const double capacity_bytes = l.capacity_bytes_per_s * summary.makespan_s;
    if (capacity_bytes > 0) usage.utilization = usage.bytes / capacity_bytes;
    if (summary.busiest_link.empty() || usage.utilization > summary.busiest_link_utilization) {
      summary.busiest_link = usage.name;
      summary.busiest_link_utilization = usage.utilization;
    }
    summary.links.push_back(std::move(usage));
  }

  // Memory: per-device peaks, and the peak of the sum (a sweep over all sample times).
  std::map<TimeNs, std::vector<std::pair<std::size_t, double>>> changes;
  std::size_t memory_counters = 0;
  for (const TraceCounter& counter : trace.counters) {
    if (counter.unit != "bytes") continue;
    DevicePeakMemory peak{counter.device.empty() ? counter.name : counter.device, 0.0};
    for (const TraceCounterSample& s : counter.samples) {
      peak.peak_bytes = std::max(peak.peak_bytes, s.value);
      changes[s.at_ns].emplace_back(memory_counters, s.value);
    }
    summary.peak_memory.push_back(std::move(peak));
    ++memory_counters;
  }
  std::vector<double> current(memory_counters, 0.0);
  double sum = 0;
  for (const auto& [at, values] : changes) {
    for (const auto& [counter, value] : values) {
      sum += value - current[counter];
      current[counter] = value;
    }
    summary.peak_memory_bytes_total = std::max(summary.peak_memory_bytes_total, sum);
  }
  return summary;
}

std::string format_trace_summary(const TraceSummary& s) {
  std::string out =
      "makespan " + format_seconds(s.makespan_s) + ", moved " + format_bytes(s.bytes_moved) + "\n";
  if (!s.busiest_link.empty()) {
    out += "busiest link " + s.busiest_link + ": " +
           std::to_string(static_cast<int>(std::lround(s.busiest_link_utilization * 100))) +
           "% of capacity\n";
  }
  for (const LinkUsage& link : s.links) {
    out += "  " + link.name + ": " + format_bytes(link.bytes) + ", busy " +
           format_seconds(ns_to_seconds(link.busy_ns)) + ", " +
           std::to_string(static_cast<int>(std::lround(link.utilization * 100))) + "% of " +
           format_bytes_per_s(link.capacity_bytes_per_s) + "\n";
  }
  for (const DevicePeakMemory& peak : s.peak_memory) {
    out += "  peak memory " + peak.device + ": " + format_bytes(peak.peak_bytes) + "\n";
  }
  if (!s.peak_memory.empty()) {
    out += "  peak memory, all devices at once: " + format_bytes(s.peak_memory_bytes_total) + "\n";
  }
  return out;
}

RangeSummary summarize_range(const Trace& trace, TimeNs start_ns, TimeNs end_ns) {
  RangeSummary range;
  range.start_ns = start_ns;
  range.end_ns = end_ns;
  const TimeNs length = end_ns - start_ns;
  const auto spans = intervals_per_lane(trace);
  for (std::uint32_t lane = 0; lane < trace.lanes.size(); ++lane) {
    const std::vector<Interval> busy =
        length > 0 ? merged(spans[lane], start_ns, end_ns) : std::vector<Interval>{};
    const TimeNs busy_ns = total(busy);
    range.lanes.push_back(
        {lane, trace.lanes[lane].name, busy_ns,
         length > 0 ? static_cast<double>(busy_ns) / static_cast<double>(length) : 0.0});
    if (length <= 0) continue;
    TimeNs cursor = start_ns;
    for (const auto& [s, e] : busy) {
      if (s > cursor) range.idle_gaps.push_back({lane, cursor, s});
      cursor = e;
    }
    if (cursor < end_ns) range.idle_gaps.push_back({lane, cursor, end_ns});
  }
  if (length > 0) {
    for (const TraceOp& op : trace.ops) {
      if (!moves_data(op)) continue;
      if (op.end_ns == op.start_ns) {
        if (op.start_ns >= start_ns && op.start_ns < end_ns) range.bytes_moved += op.bytes;
        continue;
      }
      const TimeNs overlap = std::min(op.end_ns, end_ns) - std::max(op.start_ns, start_ns);
      if (overlap > 0) {
        range.bytes_moved +=
            op.bytes * static_cast<double>(overlap) / static_cast<double>(op.end_ns - op.start_ns);
      }
    }
  }
  return range;
}

}  // namespace opsim
