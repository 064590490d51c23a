#include "experiments/book/trace_capture.hpp"

#include <algorithm>
#include <map>

namespace opsim::book {

void TraceCapture::on_op_finished(OpId op, DeviceId device, StreamIndex stream, TimeNs start_ns,
                                  TimeNs end_ns) {
  records_.push_back(Record{op, device, stream, start_ns, end_ns});
}

void TraceCapture::on_memory_changed(DeviceId device, double bytes_in_use, TimeNs at_ns) {
  memory_.push_back(MemorySample{device, bytes_in_use, at_ns});
}

namespace {
LaneKind lane_kind(StreamKind kind) {
  switch (kind) {
    case StreamKind::kCompute:
      return LaneKind::kCompute;
    case StreamKind::kCopy:
      return LaneKind::kCopy;
    case StreamKind::kHost:
      return LaneKind::kHost;
    case StreamKind::kIo:
      return LaneKind::kIo;
  }
  return LaneKind::kCompute;
}
}  // namespace

Trace TraceCapture::build(const Machine& machine, const OpGraph& graph, std::string title,
                          std::string backend) const {
  Trace trace;
  trace.title = std::move(title);
  trace.backend = std::move(backend);
  trace.machine = machine.name();
  const StreamTable streams(machine);
  std::vector<Record> records = records_;
  std::sort(records.begin(), records.end(),
            [](const Record& a, const Record& b) { return a.op < b.op; });
  std::map<StreamIndex, std::uint32_t> lane_of;
  for (const Record& r : records) lane_of.emplace(r.stream, 0);
  for (auto& [stream, lane] : lane_of) {
    lane = static_cast<std::uint32_t>(trace.lanes.size());
    const StreamInfo& info = streams.info(stream);
    const Device& device = machine.device(info.device);
    TraceLane l;
    l.name = info.name;
    l.node = machine.node_names().empty() ? "" : machine.node_names()[device.node];
    l.device = device.name;
    l.kind = lane_kind(info.kind);
    trace.lanes.push_back(std::move(l));
  }
  std::vector<std::uint32_t> index_of(graph.size(), UINT32_MAX);
  for (const Record& r : records) {
    const Op& op = graph.op(r.op);
    TraceOp t;
    t.name = std::string(graph.name(r.op));
    t.op_class = std::string(op_class(op));
    t.device = machine.device(r.device).name;
    if (op.peer != kNoDevice) t.peer = machine.device(op.peer).name;
    t.flops = op.flops;
    t.bytes = op.bytes;
    t.lane = lane_of[r.stream];
    t.start_ns = r.start_ns;
    t.end_ns = r.end_ns;
    index_of[r.op] = static_cast<std::uint32_t>(trace.ops.size());
    trace.ops.push_back(std::move(t));
  }
  for (const Record& r : records)
    graph.for_each_successor(r.op, [&](OpId s) {
      if (s < index_of.size() && index_of[s] != UINT32_MAX)
        trace.dependencies.emplace_back(index_of[r.op], index_of[s]);
    });
  std::map<DeviceId, std::size_t> counter_of;
  for (const MemorySample& m : memory_) {
    auto [it, added] = counter_of.emplace(m.device, trace.counters.size());
    if (added)
      trace.counters.push_back(
          TraceCounter{"memory " + machine.device(m.device).name, "bytes", {}});
    trace.counters[it->second].samples.push_back(TraceCounterSample{m.at_ns, m.bytes});
  }
  return trace;
}

}  // namespace opsim::book
