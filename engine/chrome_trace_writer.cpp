#include "engine/chrome_trace_writer.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <queue>
#include <string>

#include "common/atomic_file.hpp"

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

// Microseconds that give back exactly `ns` whether a reader rounds ts × 1000 (current
// Perfetto) or truncates it (older Perfetto): nudge up by one ulp when truncation would lose
// a nanosecond (1001 ns: 1.001 × 1000 = 1000.9999999999999). Rounding still lands on `ns`.
double to_us(TimeNs ns) {
  double us = static_cast<double>(ns) / 1000.0;
  if (static_cast<TimeNs>(us * 1000.0) < ns) us = std::nextafter(us, HUGE_VAL);
  return us;
}

// Where flow arrows attach: inside the span, so that "s" and "f" with bp "e" bind to it.
double flow_point_us(TimeNs start_ns, TimeNs end_ns) {
  return static_cast<double>(start_ns) / 1000.0 + static_cast<double>(end_ns - start_ns) / 2000.0;
}

// A complete-event ("X") object built once and refilled for every span: reassigning values
// in place avoids rebuilding a dozen-key object per event, which dominated writing time.
class SpanEvent {
 public:
  explicit SpanEvent(const char* category)
      : event_{{"ph", "X"}, {"cat", category}, {"name", ""}, {"pid", 0},
               {"tid", 0},  {"ts", 0.0},       {"dur", 0.0}, {"args", json::object()}} {
    json& args = event_["args"];
    for (const char* key : {"name", "class", "device", "peer", "bytes", "flops", "start_ns",
                            "end_ns", "op", "lane"}) {
      args[key] = nullptr;
    }
    // Object members live in std::map nodes, so pointers to them stay valid.
    name_ = &event_["name"], pid_ = &event_["pid"], tid_ = &event_["tid"];
    ts_ = &event_["ts"], dur_ = &event_["dur"];
    arg_name_ = &args["name"], class_ = &args["class"], device_ = &args["device"];
    peer_ = &args["peer"], bytes_ = &args["bytes"], flops_ = &args["flops"];
    start_ = &args["start_ns"], end_ = &args["end_ns"], op_ = &args["op"], lane_ = &args["lane"];
  }

  const json& fill(const TraceOp& op, std::uint32_t index, std::uint32_t lane, int pid, int tid,
                   TimeNs start_ns, TimeNs end_ns) {
    name_->get_ref<std::string&>() = op.name;
    *pid_ = pid;
    *tid_ = tid;
    *ts_ = to_us(start_ns);
    *dur_ = to_us(end_ns - start_ns);
    *arg_name_ = op.name;
    *class_ = op.op_class;
    *device_ = op.device;
    *peer_ = op.peer;
    *bytes_ = op.bytes;
    *flops_ = op.flops;
    *start_ = start_ns;
    *end_ = end_ns;
    *op_ = index;
    *lane_ = lane;
    return event_;
  }

 private:
  json event_;
  json *name_, *pid_, *tid_, *ts_, *dur_, *arg_name_, *class_, *device_, *peer_, *bytes_, *flops_,
      *start_, *end_, *op_, *lane_;
};

// A flow event ("s" or "f") refilled per dependency, like SpanEvent.
class FlowEvent {
 public:
  explicit FlowEvent(bool start)
      : event_{{"ph", start ? "s" : "f"},
               {"cat", "dependency"},
               {"name", "dependency"},
               {"id", 0},
               {"pid", 0},
               {"tid", 0},
               {"ts", 0.0},
               {"args", {{"op", 0}}}} {
    if (!start) event_["bp"] = "e";  // bind to the enclosing slice, not the next one
    id_ = &event_["id"], pid_ = &event_["pid"], tid_ = &event_["tid"], ts_ = &event_["ts"];
    op_ = &event_["args"]["op"];
  }
  const json& fill(std::size_t id, int pid, int tid, double ts_us, std::uint32_t op) {
    *id_ = id;
    *pid_ = pid;
    *tid_ = tid;
    *ts_ = ts_us;
    *op_ = op;
    return event_;
  }

 private:
  json event_;
  json *id_, *pid_, *tid_, *ts_, *op_;
};

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
  // No "displayTimeUnit": some Perfetto versions take "ns" there as the unit of ts.
  out << "{\"otherData\":" << json{{"opsim", opsim_metadata(trace, layout)}}.dump()
      << ",\"traceEvents\":[\n";
  bool first = true;
  // Events go through a buffer: std::ostream's per-character path cost more than the JSON.
  std::string buffer;
  buffer.reserve(1 << 20);
  auto emit = [&](const json& event) {
    if (!first) buffer += ",\n";
    first = false;
    buffer += event.dump();
    if (buffer.size() >= (1 << 20)) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
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
  SpanEvent op_event("op");
  for (std::uint32_t i = 0; i < trace.ops.size(); ++i) {
    const TraceOp& op = trace.ops[i];
    emit(op_event.fill(op, i, op.lane, layout.pid_of_lane.at(op.lane), layout.tid_of_op[i],
                       op.start_ns, op.end_ns));
  }
  SpanEvent link_event("link");
  for (std::uint32_t i = 0; i < trace.link_spans.size(); ++i) {
    const TraceSpan& span = trace.link_spans[i];
    emit(link_event.fill(trace.ops.at(span.op), span.op, span.lane,
                         layout.pid_of_lane.at(span.lane), layout.tid_of_link_span[i],
                         span.start_ns, span.end_ns));
  }
  FlowEvent flow_start(true);
  FlowEvent flow_end(false);
  for (std::size_t k = 0; k < trace.dependencies.size(); ++k) {
    const auto [before, after] = trace.dependencies[k];
    const TraceOp& a = trace.ops.at(before);
    const TraceOp& b = trace.ops.at(after);
    emit(flow_start.fill(k + 1, layout.pid_of_lane[a.lane], layout.tid_of_op[before],
                         flow_point_us(a.start_ns, a.end_ns), before));
    emit(flow_end.fill(k + 1, layout.pid_of_lane[b.lane], layout.tid_of_op[after],
                       flow_point_us(b.start_ns, b.end_ns), after));
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
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  out << "\n]}\n";
}

void write_chrome_trace(const Trace& trace, const std::filesystem::path& path) {
  AtomicFile file(path);
  write_chrome_trace(trace, file.stream());
  file.commit();
}

}  // namespace opsim
