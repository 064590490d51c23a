#include "engine/chrome_trace_writer.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <queue>
#include <string>

#include "engine/atomic_file.hpp"

namespace opsim {

using nlohmann::json;

std::vector<std::uint32_t> partition_into_sub_lanes(
    const std::vector<std::pair<TimeNs, TimeNs>>& intervals) {
  std::vector<std::uint32_t> order(intervals.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return intervals[x] < intervals[y]; });
  using Busy = std::pair<TimeNs, std::uint32_t>;  // (end_ns, sub-lane)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> free;
  std::uint32_t sub_lanes = 0;
  std::vector<std::uint32_t> result(intervals.size(), 0);
  for (std::uint32_t i : order) {
    const auto [start, end] = intervals[i];
    while (!busy.empty() && busy.top().first <= start) {
      free.push(busy.top().second);
      busy.pop();
    }
    std::uint32_t sub;
    if (free.empty()) {
      sub = sub_lanes++;
    } else {
      sub = free.top();
      free.pop();
    }
    result[i] = sub;
    busy.emplace(std::max(start, end), sub);
  }
  return result;
}

namespace {

double to_us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
}

// Where flow arrows attach: inside the span, so that "s" and "f" with bp "e" bind to it.
double flow_point_us(TimeNs start_ns, TimeNs end_ns) {
  return static_cast<double>(start_ns) / 1000.0 + static_cast<double>(end_ns - start_ns) / 2000.0;
}

json op_args(const TraceOp& op, std::uint32_t index, std::uint32_t lane, TimeNs start_ns,
             TimeNs end_ns) {
  return json{{"name", op.name},      {"class", op.op_class}, {"device", op.device},
              {"peer", op.peer},      {"bytes", op.bytes},    {"flops", op.flops},
              {"start_ns", start_ns}, {"end_ns", end_ns},     {"op", index},
              {"lane", lane}};
}

struct Layout {
  std::vector<int> pid_of_lane;
  std::vector<std::vector<int>> tids_of_lane;  // one per sub-lane
  std::vector<int> tid_of_op;
  std::vector<int> tid_of_link_span;
  std::vector<std::pair<int, std::string>> processes;  // (pid, name) in order
  std::map<std::string, int> pid_of_node;
  int links_pid = 0;
};

Layout make_layout(const Trace& trace) {
  Layout layout;
  auto add_process = [&](const std::string& name) {
    const int pid = static_cast<int>(layout.processes.size()) + 1;
    layout.processes.emplace_back(pid, name);
    return pid;
  };
  for (const TraceLane& lane : trace.lanes) {
    if (lane.kind != LaneKind::kLink && !layout.pid_of_node.contains(lane.node)) {
      layout.pid_of_node[lane.node] = add_process(lane.node);
    }
  }
  for (const TraceCounter& counter : trace.counters) {
    if (!counter.node.empty() && !layout.pid_of_node.contains(counter.node)) {
      layout.pid_of_node[counter.node] = add_process(counter.node);
    }
  }
  const bool has_links =
      std::any_of(trace.lanes.begin(), trace.lanes.end(),
                  [](const TraceLane& l) { return l.kind == LaneKind::kLink; }) ||
      std::any_of(trace.counters.begin(), trace.counters.end(),
                  [](const TraceCounter& c) { return c.node.empty(); });
  if (has_links) layout.links_pid = add_process("links");

  // Intervals per lane: ops (tagged 0) and link spans (tagged 1).
  struct Item {
    bool link;
    std::uint32_t index;
  };
  std::vector<std::vector<Item>> items(trace.lanes.size());
  for (std::uint32_t i = 0; i < trace.ops.size(); ++i)
    items.at(trace.ops[i].lane).push_back({false, i});
  for (std::uint32_t i = 0; i < trace.link_spans.size(); ++i) {
    items.at(trace.link_spans[i].lane).push_back({true, i});
  }
  layout.tid_of_op.assign(trace.ops.size(), 0);
  layout.tid_of_link_span.assign(trace.link_spans.size(), 0);
  int next_tid = 1;
  for (std::uint32_t lane = 0; lane < trace.lanes.size(); ++lane) {
    const TraceLane& l = trace.lanes[lane];
    layout.pid_of_lane.push_back(l.kind == LaneKind::kLink ? layout.links_pid
                                                           : layout.pid_of_node.at(l.node));
    std::vector<std::pair<TimeNs, TimeNs>> intervals;
    intervals.reserve(items[lane].size());
    for (const Item& item : items[lane]) {
      if (item.link) {
        intervals.emplace_back(trace.link_spans[item.index].start_ns,
                               trace.link_spans[item.index].end_ns);
      } else {
        intervals.emplace_back(trace.ops[item.index].start_ns, trace.ops[item.index].end_ns);
      }
    }
    const std::vector<std::uint32_t> sub = partition_into_sub_lanes(intervals);
    const std::uint32_t count = sub.empty() ? 1 : *std::max_element(sub.begin(), sub.end()) + 1;
    std::vector<int> tids;
    for (std::uint32_t s = 0; s < count; ++s) tids.push_back(next_tid++);
    for (std::size_t k = 0; k < items[lane].size(); ++k) {
      const Item& item = items[lane][k];
      (item.link ? layout.tid_of_link_span[item.index] : layout.tid_of_op[item.index]) =
          tids[sub[k]];
    }
    layout.tids_of_lane.push_back(std::move(tids));
  }
  return layout;
}

json opsim_metadata(const Trace& trace, const Layout& layout) {
  json lanes = json::array();
  for (std::uint32_t i = 0; i < trace.lanes.size(); ++i) {
    const TraceLane& l = trace.lanes[i];
    lanes.push_back(json{{"name", l.name},
                         {"node", l.node},
                         {"device", l.device},
                         {"kind", to_string(l.kind)},
                         {"capacity_bytes_per_s", l.capacity_bytes_per_s},
                         {"pid", layout.pid_of_lane[i]},
                         {"tids", layout.tids_of_lane[i]}});
  }
  json counters = json::array();
  for (const TraceCounter& c : trace.counters) {
    counters.push_back(
        json{{"name", c.name}, {"unit", c.unit}, {"node", c.node}, {"device", c.device}});
  }
  return json{{"format", "opsim-trace"},
              {"version", 1},
              {"title", trace.title},
              {"backend", trace.backend},
              {"machine", trace.machine},
              {"lanes", std::move(lanes)},
              {"counters", std::move(counters)},
              {"op_count", trace.ops.size()},
              {"link_span_count", trace.link_spans.size()},
              {"dependency_count", trace.dependencies.size()}};
}

json metadata_event(const char* name, int pid, int tid, json args) {
  return json{{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

}  // namespace

void write_chrome_trace(const Trace& trace, std::ostream& out) {
  const Layout layout = make_layout(trace);
  // The skeleton is fixed; every value in it is serialized by nlohmann::json. Events are
  // dumped one at a time so that a multi-million-op trace never exists as one JSON tree.
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
      << json{{"opsim", opsim_metadata(trace, layout)}}.dump() << ",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const json& event) {
    if (!first) out << ",\n";
    first = false;
    out << event.dump();
  };

  for (const auto& [pid, name] : layout.processes) {
    emit(metadata_event("process_name", pid, 0, {{"name", name}}));
    emit(metadata_event("process_sort_index", pid, 0, {{"sort_index", pid}}));
  }
  for (std::uint32_t lane = 0; lane < trace.lanes.size(); ++lane) {
    const std::vector<int>& tids = layout.tids_of_lane[lane];
    for (std::size_t s = 0; s < tids.size(); ++s) {
      std::string name = trace.lanes[lane].name;
      if (s > 0) name += " #" + std::to_string(s + 1);
      emit(metadata_event("thread_name", layout.pid_of_lane[lane], tids[s], {{"name", name}}));
      emit(metadata_event("thread_sort_index", layout.pid_of_lane[lane], tids[s],
                          {{"sort_index", tids[s]}}));
    }
  }
  for (std::uint32_t i = 0; i < trace.ops.size(); ++i) {
    const TraceOp& op = trace.ops[i];
    emit(json{{"ph", "X"},
              {"cat", "op"},
              {"name", op.name},
              {"pid", layout.pid_of_lane.at(op.lane)},
              {"tid", layout.tid_of_op[i]},
              {"ts", to_us(op.start_ns)},
              {"dur", to_us(op.end_ns - op.start_ns)},
              {"args", op_args(op, i, op.lane, op.start_ns, op.end_ns)}});
  }
  for (std::uint32_t i = 0; i < trace.link_spans.size(); ++i) {
    const TraceSpan& span = trace.link_spans[i];
    const TraceOp& op = trace.ops.at(span.op);
    emit(json{{"ph", "X"},
              {"cat", "link"},
              {"name", op.name},
              {"pid", layout.pid_of_lane.at(span.lane)},
              {"tid", layout.tid_of_link_span[i]},
              {"ts", to_us(span.start_ns)},
              {"dur", to_us(span.end_ns - span.start_ns)},
              {"args", op_args(op, span.op, span.lane, span.start_ns, span.end_ns)}});
  }
  for (std::size_t k = 0; k < trace.dependencies.size(); ++k) {
    const auto [before, after] = trace.dependencies[k];
    const TraceOp& a = trace.ops.at(before);
    const TraceOp& b = trace.ops.at(after);
    const std::size_t id = k + 1;
    emit(json{{"ph", "s"},
              {"cat", "dependency"},
              {"name", "dependency"},
              {"id", id},
              {"pid", layout.pid_of_lane[a.lane]},
              {"tid", layout.tid_of_op[before]},
              {"ts", flow_point_us(a.start_ns, a.end_ns)},
              {"args", {{"op", before}}}});
    emit(json{{"ph", "f"},
              {"bp", "e"},
              {"cat", "dependency"},
              {"name", "dependency"},
              {"id", id},
              {"pid", layout.pid_of_lane[b.lane]},
              {"tid", layout.tid_of_op[after]},
              {"ts", flow_point_us(b.start_ns, b.end_ns)},
              {"args", {{"op", after}}}});
  }
  for (const TraceCounter& counter : trace.counters) {
    const int pid = counter.node.empty() ? layout.links_pid : layout.pid_of_node.at(counter.node);
    for (const TraceCounterSample& sample : counter.samples) {
      emit(json{{"ph", "C"},
                {"name", counter.name},
                {"pid", pid},
                {"tid", 0},
                {"ts", to_us(sample.at_ns)},
                {"args", {{counter.unit, sample.value}}}});
    }
  }
  out << "\n]}\n";
}

void write_chrome_trace(const Trace& trace, const std::filesystem::path& path) {
  AtomicFile file(path);
  write_chrome_trace(trace, file.stream());
  file.commit();
}

}  // namespace opsim
