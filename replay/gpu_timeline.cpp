#include "replay/gpu_timeline.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "replay/kernel_model.hpp"

namespace opsim::replay {
namespace {

KernelClass kernel_class(const GpuEvent& event, std::string_view name) {
  if (event.kind == GpuEventKind::kMemset) return KernelClass::kFill;
  if (event.kind == GpuEventKind::kMemcpy) return KernelClass::kElementwise;
  auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (has("gemm") || has("GEMM") || has("cutlass") || has("xmma") || has("conv") || has("Conv") ||
      has("wgrad") || has("dgrad"))
    return KernelClass::kGemm;
  if (has("reduce") || has("Reduce") || has("softmax") || has("norm")) return KernelClass::kReduce;
  return KernelClass::kElementwise;
}

// Op names stay readable in traces and tables: long template names are cut.
std::string op_name(std::uint32_t rank, std::string_view name) {
  constexpr std::size_t kLongest = 160;
  std::string text = "r" + std::to_string(rank) + " " + std::string(name.substr(0, kLongest));
  if (name.size() > kLongest) text += "...";
  return text;
}

struct HostCall {
  TraceNs start_ns;
  TraceNs end_ns;
};

std::unordered_map<std::int64_t, HostCall> runtime_calls_by_correlation(const KinetoTrace& trace) {
  std::unordered_map<std::int64_t, HostCall> calls;
  for (const HostEvent& e : trace.host_events)
    if (e.kind == HostEventKind::kRuntime && e.correlation >= 0)
      calls.emplace(e.correlation, HostCall{e.start_ns, e.start_ns + e.duration_ns});
  return calls;
}

void index_streams(RankGpuOps& rank, const KinetoTrace& trace) {
  rank.stream_of_event.resize(trace.gpu_events.size());
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> index;
  for (std::uint32_t e = 0; e < trace.gpu_events.size(); ++e) {
    const GpuEvent& event = trace.gpu_events[e];
    auto [it, added] = index.try_emplace({event.device, event.stream},
                                         static_cast<std::uint32_t>(rank.streams.size()));
    if (added) rank.streams.push_back({event.device, event.stream, {}});
    rank.stream_of_event[e] = it->second;
    rank.streams[it->second].events.push_back(e);  // gpu_events are sorted by start
  }
}

void find_launches(RankGpuOps& rank, const KinetoTrace& trace, ReplayCounts& counts) {
  const auto calls = runtime_calls_by_correlation(trace);
  const std::size_t n = trace.gpu_events.size();
  rank.launch_start_ns.resize(n);
  rank.launch_end_ns.resize(n);
  for (std::uint32_t e = 0; e < n; ++e) {
    const GpuEvent& event = trace.gpu_events[e];
    auto it = event.correlation >= 0 ? calls.find(event.correlation) : calls.end();
    if (it == calls.end()) {
      ++counts.gpu_ops_without_launch;
      rank.without_launch.push_back(e);
      rank.launch_start_ns[e] = rank.launch_end_ns[e] = event.start_ns;
    } else {
      rank.launch_start_ns[e] = it->second.start_ns;
      rank.launch_end_ns[e] = it->second.end_ns;
    }
    if (event.correlation >= 0) rank.events_of_correlation[event.correlation].push_back(e);
  }
}

// An event's GPU and stream index on the machine.
struct Placement {
  DeviceId gpu;
  std::int32_t stream;
  std::uint32_t lane;
};

// Per event: how long after its launch returned, the op before it on its stream ended or
// the op it waited for on another stream ended (whichever came last), it started. Mostly a
// few microseconds of the GPU's own; longer where the trace does not show what it waited
// for (the profiler's own buffers, say), which replay keeps as recorded.
std::vector<TraceNs> start_gaps(const RankGpuOps& rank, const KinetoTrace& trace,
                                const std::vector<TraceNs>& other_stream_end_ns) {
  std::vector<TraceNs> gaps(trace.gpu_events.size(), 0);
  for (const RecordedStream& stream : rank.streams)
    for (std::size_t i = 0; i < stream.events.size(); ++i) {
      const std::uint32_t e = stream.events[i];
      const bool launched =
          !std::binary_search(rank.without_launch.begin(), rank.without_launch.end(), e);
      // Without a launch, only the op before it (or, first on its stream, the idle op that
      // starts it where the recording did) let it start.
      TraceNs allowed_ns = launched ? rank.launch_end_ns[e]
                           : i == 0 ? trace.gpu_events[e].start_ns
                                    : 0;
      allowed_ns = std::max(allowed_ns, other_stream_end_ns[e]);
      if (i > 0) {
        const GpuEvent& before = trace.gpu_events[stream.events[i - 1]];
        allowed_ns = std::max(allowed_ns, before.start_ns + before.duration_ns);
      }
      gaps[e] = std::max<TraceNs>(0, trace.gpu_events[e].start_ns - allowed_ns);
    }
  return gaps;
}

// The op's time: recorded, or (--kernels modelled) the target GPU's.
KernelEstimate op_time(ReplayGraph& g, const KernelModel* model, const GpuEvent& event,
                       std::uint32_t index) {
  if (model == nullptr)
    return {static_cast<double>(event.duration_ns) * 1e-9, KernelMethod::kRecorded};
  const KernelEstimate estimate = model->estimate(index);
  switch (estimate.method) {
    case KernelMethod::kShapes:
      ++g.counts.kernels_from_shapes;
      break;
    case KernelMethod::kScaled:
      ++g.counts.kernels_scaled;
      break;
    case KernelMethod::kRecorded:
      ++g.counts.kernels_recorded;
      break;
  }
  return estimate;
}

void add_ops(ReplayGraph& g, RankGpuOps& rank, const KinetoTrace& trace, std::uint32_t rank_index,
             std::size_t first_gpu, const ReplayOptions& options) {
  const std::vector<DeviceId> machine_gpus = g.machine.gpus();
  std::vector<Placement> placement(rank.streams.size());
  std::map<std::int64_t, int> streams_on_device;
  for (std::uint32_t s = 0; s < rank.streams.size(); ++s) {
    const auto device_index =
        std::find(rank.gpus.begin(), rank.gpus.end(), rank.streams[s].device) - rank.gpus.begin();
    const DeviceId gpu = machine_gpus[first_gpu + static_cast<std::size_t>(device_index)];
    const std::string device_name = g.machine.device(gpu).name;
    const std::uint32_t lane =
        g.add_lane({.name = "r" + std::to_string(rank_index) + " " + device_name + " stream " +
                            std::to_string(rank.streams[s].stream),
                    .node = "rank" + std::to_string(rank_index),
                    .device = device_name,
                    .kind = LaneKind::kCompute,
                    .capacity_bytes_per_s = 0});
    placement[s] = {gpu, streams_on_device[rank.streams[s].device]++, lane};
    GpuModel& model = g.machine.mutable_device(gpu).gpu;
    model.compute_streams = std::max(model.compute_streams, placement[s].stream + 1);
  }
  std::optional<KernelModel> model;
  if (options.kernels == KernelTiming::kModelled && !rank.gpus.empty())
    model.emplace(trace, g.machine.device(placement.front().gpu).gpu);
  rank.op_of_event.resize(trace.gpu_events.size());
  for (std::uint32_t e = 0; e < trace.gpu_events.size(); ++e) {
    const GpuEvent& event = trace.gpu_events[e];
    const Placement& where = placement[rank.stream_of_event[e]];
    Op op;
    op.kind = OpKind::kCompute;
    op.kernel = kernel_class(event, trace.name(event.name));
    op.device = where.gpu;
    op.stream = where.stream;
    op.fixed_time = true;
    const KernelEstimate time = op_time(g, model ? &*model : nullptr, event, e);
    op.seconds = time.seconds;
    rank.op_of_event[e] = g.add(op, op_name(rank_index, trace.name(event.name)), rank_index,
                                where.lane, event.start_ns, event.start_ns + event.duration_ns);
    g.gpu_ops.push_back({rank_index, e, rank.op_of_event[e], 0, time.method});
  }
  for (const RecordedStream& stream : rank.streams)
    for (std::size_t i = 1; i < stream.events.size(); ++i)
      g.graph.add_dependency(rank.op_of_event[stream.events[i - 1]],
                             rank.op_of_event[stream.events[i]]);
  // A stream whose first op has no launch in the trace starts where the recording did.
  for (std::uint32_t s = 0; s < rank.streams.size(); ++s) {
    const std::uint32_t first = rank.streams[s].events.front();
    if (!std::binary_search(rank.without_launch.begin(), rank.without_launch.end(), first))
      continue;
    Op idle;
    idle.kind = OpKind::kCompute;
    idle.device = placement[s].gpu;
    idle.stream = placement[s].stream;
    idle.fixed_time = true;
    idle.seconds = static_cast<double>(trace.gpu_events[first].start_ns) * 1e-9;
    const OpId op = g.add(idle, "r" + std::to_string(rank_index) + " before the stream's first op",
                          rank_index, placement[s].lane, 0, trace.gpu_events[first].start_ns);
    g.graph.add_dependency(op, rank.op_of_event[first]);
  }
  g.counts.gpu_ops += static_cast<std::int64_t>(trace.gpu_events.size());
}

// cudaStreamWaitEvent as cuda_sync events record it: the first op launched on the waiting
// stream after the call waits for the last op launched on the recorded stream before the
// cudaEventRecord.
void add_recorded_waits(ReplayGraph& g, const RankGpuOps& rank, const KinetoTrace& trace,
                        std::vector<TraceNs>& other_stream_end_ns) {
  const auto calls = runtime_calls_by_correlation(trace);
  for (const SyncEvent& sync : trace.syncs) {
    if (sync.kind != SyncKind::kStreamWaitEvent) continue;
    const auto wait_call = calls.find(sync.correlation);
    const auto record_call = calls.find(sync.event_record_correlation);
    const std::int64_t waiting = rank.find_stream(sync.device, sync.stream);
    const std::int64_t recorded = rank.find_stream(sync.device, sync.wait_on_stream);
    if (wait_call == calls.end() || record_call == calls.end() || waiting < 0 || recorded < 0)
      continue;
    const std::int64_t before = rank.last_launched_before(static_cast<std::uint32_t>(recorded),
                                                          record_call->second.start_ns);
    const std::int64_t after =
        rank.first_launched_after(static_cast<std::uint32_t>(waiting), wait_call->second.start_ns);
    if (before < 0 || after < 0) continue;
    g.graph.add_dependency(rank.op_of_event[static_cast<std::size_t>(before)],
                           rank.op_of_event[static_cast<std::size_t>(after)]);
    const GpuEvent& waited_for = trace.gpu_events[static_cast<std::size_t>(before)];
    TraceNs& end_ns = other_stream_end_ns[static_cast<std::size_t>(after)];
    end_ns = std::max(end_ns, waited_for.start_ns + waited_for.duration_ns);
    ++g.counts.cross_stream_edges;
  }
}

// Traces without cuda_sync events: an op that started well after its launch and the op
// before it on its stream allowed was waiting; what it waited for is the op on another
// stream of its GPU that ended just before it started.
void infer_waits(ReplayGraph& g, const RankGpuOps& rank, const KinetoTrace& trace,
                 TraceNs tolerance_ns, std::vector<TraceNs>& other_stream_end_ns) {
  const auto& events = trace.gpu_events;
  auto end_of = [&](std::uint32_t e) { return events[e].start_ns + events[e].duration_ns; };
  for (const RecordedStream& stream : rank.streams)
    for (std::size_t i = 0; i < stream.events.size(); ++i) {
      const std::uint32_t e = stream.events[i];
      TraceNs allowed_ns = rank.launch_end_ns[e];
      if (i > 0) allowed_ns = std::max(allowed_ns, end_of(stream.events[i - 1]));
      if (events[e].start_ns <= allowed_ns + tolerance_ns) continue;
      // The latest end at or before this start, on another stream of the same device.
      auto it =
          std::upper_bound(rank.events_by_end.begin(), rank.events_by_end.end(), events[e].start_ns,
                           [&](TraceNs t, std::uint32_t other) { return t < end_of(other); });
      while (it != rank.events_by_end.begin()) {
        const std::uint32_t other = *--it;
        if (end_of(other) < events[e].start_ns - tolerance_ns) break;
        if (events[other].device != events[e].device ||
            rank.stream_of_event[other] == rank.stream_of_event[e])
          continue;
        g.graph.add_dependency(rank.op_of_event[other], rank.op_of_event[e]);
        other_stream_end_ns[e] = end_of(other);
        ++g.counts.inferred_cross_stream_edges;
        break;
      }
    }
}

// Each op holds its stream for its start gap before its work.
void add_start_gaps(ReplayGraph& g, const RankGpuOps& rank, const KinetoTrace& trace,
                    const std::vector<TraceNs>& gaps_ns) {
  const std::size_t first_info = g.gpu_ops.size() - trace.gpu_events.size();
  for (std::uint32_t e = 0; e < trace.gpu_events.size(); ++e) {
    const OpId op = rank.op_of_event[e];
    g.graph.mutable_op(op).seconds += static_cast<double>(gaps_ns[e]) * 1e-9;
    g.recorded_start_ns[op] -= gaps_ns[e];
    g.gpu_ops[first_info + e].lead_ns = gaps_ns[e];
  }
}

}  // namespace

std::int64_t RankGpuOps::last_launched_before(std::uint32_t stream, TraceNs time_ns) const {
  const auto& events = streams[stream].events;
  auto it = std::partition_point(events.begin(), events.end(),
                                 [&](std::uint32_t e) { return launch_start_ns[e] < time_ns; });
  return it == events.begin() ? -1 : static_cast<std::int64_t>(*std::prev(it));
}

std::int64_t RankGpuOps::first_launched_after(std::uint32_t stream, TraceNs time_ns) const {
  const auto& events = streams[stream].events;
  auto it = std::partition_point(events.begin(), events.end(),
                                 [&](std::uint32_t e) { return launch_start_ns[e] <= time_ns; });
  return it == events.end() ? -1 : static_cast<std::int64_t>(*it);
}

std::int64_t RankGpuOps::find_stream(std::int64_t device, std::int64_t stream) const {
  for (std::size_t s = 0; s < streams.size(); ++s)
    if (streams[s].device == device && streams[s].stream == stream)
      return static_cast<std::int64_t>(s);
  return -1;
}

std::vector<std::int64_t> distinct_gpu_devices(const KinetoTrace& trace) {
  std::set<std::int64_t> devices;
  for (const GpuEvent& event : trace.gpu_events) devices.insert(event.device);
  return {devices.begin(), devices.end()};
}

RankGpuOps add_gpu_ops(ReplayGraph& g, const KinetoTrace& trace, std::uint32_t rank_index,
                       std::size_t first_gpu, const ReplayOptions& options) {
  RankGpuOps rank;
  rank.gpus = distinct_gpu_devices(trace);
  index_streams(rank, trace);
  find_launches(rank, trace, g.counts);
  rank.events_by_end.resize(trace.gpu_events.size());
  for (std::uint32_t e = 0; e < rank.events_by_end.size(); ++e) rank.events_by_end[e] = e;
  const auto& events = trace.gpu_events;
  std::stable_sort(rank.events_by_end.begin(), rank.events_by_end.end(),
                   [&](std::uint32_t a, std::uint32_t b) {
                     return events[a].start_ns + events[a].duration_ns <
                            events[b].start_ns + events[b].duration_ns;
                   });
  add_ops(g, rank, trace, rank_index, first_gpu, options);
  const bool has_wait_records =
      std::any_of(trace.syncs.begin(), trace.syncs.end(),
                  [](const SyncEvent& s) { return s.kind == SyncKind::kStreamWaitEvent; });
  std::vector<TraceNs> other_stream_end_ns(trace.gpu_events.size(), 0);
  if (has_wait_records)
    add_recorded_waits(g, rank, trace, other_stream_end_ns);
  else
    infer_waits(g, rank, trace, options.wait_tolerance_ns, other_stream_end_ns);
  add_start_gaps(g, rank, trace, start_gaps(rank, trace, other_stream_end_ns));
  if (!rank.gpus.empty())
    g.rank_gpu.push_back(g.machine.gpus()[first_gpu]);
  else
    g.rank_gpu.push_back(kNoDevice);
  return rank;
}

}  // namespace opsim::replay
