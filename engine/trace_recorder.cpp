#include "engine/trace_recorder.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace opsim {

namespace {

constexpr std::uint32_t kNotRecorded = std::numeric_limits<std::uint32_t>::max();

LaneKind lane_kind(StreamKind kind) {
  switch (kind) {
    case StreamKind::kCompute:
      return LaneKind::kCompute;
    case StreamKind::kCopy:
    case StreamKind::kChannel:
      return LaneKind::kCopy;
    case StreamKind::kHost:
      return LaneKind::kHost;
    case StreamKind::kIo:
      return LaneKind::kIo;
  }
  return LaneKind::kCompute;
}

// The memory-to-memory path an op's bytes take, as (src, dst); nothing for compute/dispatch.
std::pair<DeviceId, DeviceId> transfer_ends(const Op& op) {
  switch (op.kind) {
    case OpKind::kCopy:
    case OpKind::kDiskRead:
      return {op.device, op.peer};
    case OpKind::kDiskWrite:
      return {op.peer, op.device};
    default:
      return {kNoDevice, kNoDevice};
  }
}

// Utilization of one link direction as a step function: the sum of the average rates
// (bytes / duration) of the transfers crossing it, divided by its capacity.
std::vector<TraceCounterSample> utilization_samples(const Trace& trace, std::uint32_t lane,
                                                    const std::vector<std::uint32_t>& spans) {
  std::vector<std::pair<TimeNs, double>> changes;  // (time, rate delta in bytes/s)
  changes.reserve(spans.size() * 2);
  for (std::uint32_t s : spans) {
    const TraceSpan& span = trace.link_spans[s];
    if (span.end_ns <= span.start_ns) continue;
    const double rate = trace.ops[span.op].bytes / ns_to_seconds(span.end_ns - span.start_ns);
    changes.emplace_back(span.start_ns, rate);
    changes.emplace_back(span.end_ns, -rate);
  }
  std::sort(changes.begin(), changes.end());  // a total order: deterministic sums
  const double capacity = trace.lanes[lane].capacity_bytes_per_s;
  std::vector<TraceCounterSample> samples;
  double rate = 0;
  int active = 0;
  for (std::size_t i = 0; i < changes.size();) {
    const TimeNs at = changes[i].first;
    for (; i < changes.size() && changes[i].first == at; ++i) {
      rate += changes[i].second;
      active += changes[i].second > 0 ? 1 : -1;
    }
    if (active == 0) rate = 0;  // no drift from adding and removing many rates
    samples.push_back({at, capacity > 0 ? rate / capacity : 0.0});
  }
  return samples;
}

// A device's memory samples by time. Of samples at the same time, the highest is kept, then
// the last one if it differs: a buffer allocated in the same nanosecond as another is freed
// still counts towards the peak, as PeakMemoryObserver (what `opsim compare` reports) counts it.
std::vector<TraceCounterSample> peak_and_last_sample_per_time(
    std::vector<TraceCounterSample> samples) {
  std::stable_sort(samples.begin(), samples.end(),
                   [](const auto& x, const auto& y) { return x.at_ns < y.at_ns; });
  std::vector<TraceCounterSample> kept;
  for (std::size_t i = 0; i < samples.size();) {
    std::size_t end = i;
    double peak = samples[i].value;
    for (; end < samples.size() && samples[end].at_ns == samples[i].at_ns; ++end)
      peak = std::max(peak, samples[end].value);
    const double last = samples[end - 1].value;
    if (peak != last) kept.push_back({samples[i].at_ns, peak});
    kept.push_back({samples[i].at_ns, last});
    i = end;
  }
  return kept;
}

void add_utilization_counters(Trace& trace, const std::vector<std::uint32_t>& link_lanes,
                              const std::vector<std::vector<std::uint32_t>>& spans_of_lane) {
  for (std::uint32_t lane : link_lanes) {
    trace.counters.push_back(TraceCounter{"utilization " + trace.lanes[lane].name, "fraction",
                                          utilization_samples(trace, lane, spans_of_lane[lane]), "",
                                          trace.lanes[lane].name});
  }
}

}  // namespace

TraceRecorder::TraceRecorder(const Machine& machine, const OpGraph& graph,
                             const StreamTable& streams, std::string title, std::string backend)
    : machine_(machine),
      graph_(graph),
      streams_(streams),
      title_(std::move(title)),
      backend_(std::move(backend)) {}

TraceRecorder::TraceRecorder(const Machine& machine, const OpGraph& graph, std::string title,
                             std::string backend)
    : machine_(machine),
      graph_(graph),
      owned_streams_(std::make_unique<StreamTable>(machine)),
      streams_(*owned_streams_),
      title_(std::move(title)),
      backend_(std::move(backend)) {}

void TraceRecorder::on_op_finished(OpId op, DeviceId device, StreamIndex stream, TimeNs start_ns,
                                   TimeNs end_ns) {
  finished_.push_back({op, device, stream, start_ns, end_ns});
}

void TraceRecorder::on_memory_changed(DeviceId device, double bytes_in_use, TimeNs at_ns) {
  memory_.push_back({device, bytes_in_use, at_ns});
}

std::string TraceRecorder::link_lane_name(const Machine& machine, LinkId link, bool forward) {
  const Link& l = machine.link(link);
  if (!l.model.full_duplex) {
    return l.name + " " + machine.device(l.a).name + "\u2194" + machine.device(l.b).name;
  }
  const std::string& from = machine.device(forward ? l.a : l.b).name;
  const std::string& to = machine.device(forward ? l.b : l.a).name;
  return l.name + " " + from + "\u2192" + to;
}

// Ops in op-id order; a later report of the same op replaces an earlier one. Bucketing by op
// id is linear, where sorting two million reports was not.
std::vector<TraceRecorder::FinishedOp> TraceRecorder::last_report_per_op() const {
  std::vector<std::uint32_t> report_of(graph_.size(), kNotRecorded);
  for (std::uint32_t i = 0; i < finished_.size(); ++i) {
    if (finished_[i].op < report_of.size()) report_of[finished_[i].op] = i;
  }
  std::vector<FinishedOp> finished;
  finished.reserve(finished_.size());
  for (std::uint32_t report : report_of) {
    if (report != kNotRecorded) finished.push_back(finished_[report]);
  }
  return finished;
}

// Stream lanes that were used, by server, then device, then stream (stream indices are
// device-major, so (server, stream) gives that order). Returns each stream's lane.
std::vector<std::uint32_t> TraceRecorder::add_stream_lanes(
    Trace& trace, const std::vector<FinishedOp>& finished) const {
  std::vector<StreamIndex> used;
  std::vector<char> seen(streams_.size(), 0);
  for (const FinishedOp& f : finished) {
    if (f.stream < seen.size() && !seen[f.stream]) {
      seen[f.stream] = 1;
      used.push_back(f.stream);
    }
  }
  auto node_of_stream = [&](StreamIndex s) {
    return machine_.device(streams_.info(s).device).node;
  };
  std::sort(used.begin(), used.end(), [&](StreamIndex x, StreamIndex y) {
    return std::make_pair(node_of_stream(x), x) < std::make_pair(node_of_stream(y), y);
  });
  const auto node_names = machine_.node_names();
  std::vector<std::uint32_t> lane_of_stream(streams_.size(), 0);
  for (StreamIndex s : used) {
    const StreamInfo& info = streams_.info(s);
    const Device& device = machine_.device(info.device);
    lane_of_stream[s] = static_cast<std::uint32_t>(trace.lanes.size());
    trace.lanes.push_back(
        TraceLane{info.name, node_names[device.node], device.name, lane_kind(info.kind), 0.0});
  }
  return lane_of_stream;
}

// One trace op per finished op, on its stream's lane. Returns each op id's trace index.
std::vector<std::uint32_t> TraceRecorder::add_ops(
    Trace& trace, const std::vector<FinishedOp>& finished,
    const std::vector<std::uint32_t>& lane_of_stream) const {
  std::vector<std::uint32_t> index_of_op(graph_.size(), kNotRecorded);
  trace.ops.reserve(finished.size());
  for (const FinishedOp& f : finished) {
    const Op& op = graph_.op(f.op);
    index_of_op[f.op] = static_cast<std::uint32_t>(trace.ops.size());
    TraceOp t;
    t.name = std::string(graph_.name(f.op));
    t.op_class = std::string(op_class(op));
    const DeviceId device = f.device != kNoDevice ? f.device : op.device;
    if (device != kNoDevice) t.device = machine_.device(device).name;
    if (op.peer != kNoDevice) t.peer = machine_.device(op.peer).name;
    t.flops = op.flops;
    t.bytes = op.bytes;
    t.lane = f.stream < lane_of_stream.size() ? lane_of_stream[f.stream] : 0;
    t.start_ns = f.start_ns;
    t.end_ns = f.end_ns;
    trace.ops.push_back(std::move(t));
  }
  return index_of_op;
}

// Link lanes: one per (link, direction) crossed, numbered after the stream lanes, and one
// span per hop of every transfer. A half-duplex link has one lane: both directions share its
// capacity.
TraceRecorder::LinkLaneIndex TraceRecorder::add_link_lanes(
    Trace& trace, const std::vector<FinishedOp>& finished) const {
  auto slot_of = [&](const Hop& hop) {
    const bool second = !hop.forward && machine_.link(hop.link).model.full_duplex;
    return static_cast<std::size_t>(hop.link) * 2 + (second ? 1 : 0);
  };
  std::vector<std::uint32_t> lane_of_hop(machine_.links().size() * 2, kNotRecorded);
  std::vector<std::pair<std::uint32_t, Hop>> hops;  // (op index, hop)
  for (std::uint32_t i = 0; i < finished.size(); ++i) {
    const auto [src, dst] = transfer_ends(graph_.op(finished[i].op));
    if (src == kNoDevice || dst == kNoDevice || src == dst) continue;
    for (const Hop& hop : machine_.route(src, dst)) {
      hops.emplace_back(i, hop);
      lane_of_hop[slot_of(hop)] = 0;  // mark used
    }
  }
  LinkLaneIndex index;
  const auto node_names = machine_.node_names();
  for (std::size_t slot = 0; slot < lane_of_hop.size(); ++slot) {
    if (lane_of_hop[slot] == kNotRecorded) continue;
    const LinkId link = static_cast<LinkId>(slot / 2);
    const Link& l = machine_.link(link);
    lane_of_hop[slot] = static_cast<std::uint32_t>(trace.lanes.size());
    index.lanes.push_back(lane_of_hop[slot]);
    trace.lanes.push_back(TraceLane{link_lane_name(machine_, link, slot % 2 == 0),
                                    node_names[machine_.device(l.a).node], l.name, LaneKind::kLink,
                                    l.model.bytes_per_s});
  }
  index.spans_of_lane.resize(trace.lanes.size());
  trace.link_spans.reserve(hops.size());
  for (const auto& [i, hop] : hops) {
    const std::uint32_t lane = lane_of_hop[slot_of(hop)];
    index.spans_of_lane[lane].push_back(static_cast<std::uint32_t>(trace.link_spans.size()));
    trace.link_spans.push_back(TraceSpan{i, lane, trace.ops[i].start_ns, trace.ops[i].end_ns});
  }
  return index;
}

// Dependencies between recorded ops, in (before, successor insertion) order.
void TraceRecorder::add_dependencies(Trace& trace, const std::vector<FinishedOp>& finished,
                                     const std::vector<std::uint32_t>& index_of_op) const {
  for (const FinishedOp& f : finished) {
    const std::uint32_t before = index_of_op[f.op];
    graph_.for_each_successor(f.op, [&](OpId next) {
      if (index_of_op[next] != kNotRecorded)
        trace.dependencies.emplace_back(before, index_of_op[next]);
    });
  }
}

// Memory counters per device, by device id.
void TraceRecorder::add_memory_counters(Trace& trace) const {
  std::map<DeviceId, std::vector<TraceCounterSample>> memory;
  for (const MemorySample& m : memory_) memory[m.device].push_back({m.at_ns, m.bytes_in_use});
  const auto node_names = machine_.node_names();
  for (auto& [device, samples] : memory) {
    const Device& d = machine_.device(device);
    trace.counters.push_back(TraceCounter{"memory " + d.name, "bytes",
                                          peak_and_last_sample_per_time(std::move(samples)),
                                          node_names[d.node], d.name});
  }
}

Trace TraceRecorder::finish() const {
  Trace trace;
  trace.title = title_;
  trace.backend = backend_;
  trace.machine = machine_.name();
  const std::vector<FinishedOp> finished = last_report_per_op();
  const std::vector<std::uint32_t> lane_of_stream = add_stream_lanes(trace, finished);
  const std::vector<std::uint32_t> index_of_op = add_ops(trace, finished, lane_of_stream);
  const LinkLaneIndex link_lanes = add_link_lanes(trace, finished);
  add_dependencies(trace, finished, index_of_op);
  add_memory_counters(trace);
  add_utilization_counters(trace, link_lanes.lanes, link_lanes.spans_of_lane);
  return trace;
}

}  // namespace opsim
