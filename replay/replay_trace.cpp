#include "replay/replay_trace.hpp"

namespace opsim::replay {
namespace {

std::string gpu_op_class(const GpuEvent& event, const Op& op) {
  if (event.collective) return "collective";
  if (event.kind == GpuEventKind::kMemcpy) return "copy";
  if (event.kind == GpuEventKind::kMemset) return "memset";
  return std::string(to_string(op.kernel));
}

std::string host_op_class(std::string_view name) {
  if (name.ends_with("(after the wait)") || name.ends_with("(polling)")) return "wait";
  if (name.find(" cuda") != std::string_view::npos || name.find(" cu") != std::string_view::npos)
    return "runtime";
  return "host";
}

}  // namespace

Trace replay_trace(const ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                   const SimulationResult* simulation) {
  Trace trace;
  std::string names;
  for (const KinetoTrace& t : traces) names += (names.empty() ? "" : ", ") + t.path;
  trace.title = names + (simulation ? " replayed on " + g.machine.name() : " as recorded");
  trace.backend = simulation ? "sim" : "real";
  trace.machine = g.machine.name();
  trace.lanes = g.lanes;
  std::vector<const GpuOpInfo*> gpu_info(g.graph.size(), nullptr);
  for (const GpuOpInfo& info : g.gpu_ops) gpu_info[info.op] = &info;
  trace.ops.reserve(g.graph.size());
  for (OpId id = 0; id < g.graph.size(); ++id) {
    const Op& op = g.graph.op(id);
    TraceOp t;
    t.name = std::string(g.graph.name(id));
    if (simulation && gpu_info[id] && gpu_info[id]->method != KernelMethod::kRecorded)
      t.name +=
          gpu_info[id]->method == KernelMethod::kShapes ? " [time from shapes]" : " [time scaled]";
    t.op_class =
        gpu_info[id]
            ? gpu_op_class(
                  traces[g.trace_of_rank[gpu_info[id]->rank]].gpu_events[gpu_info[id]->event], op)
            : host_op_class(t.name);
    t.device = g.machine.device(op.device).name;
    t.lane = g.lane_of_op[id];
    const TraceNs lead_ns = gpu_info[id] ? gpu_info[id]->lead_ns : 0;  // shown where work starts
    t.start_ns = (simulation ? simulation->start_ns[id] : g.recorded_start_ns[id]) + lead_ns;
    t.end_ns = simulation ? simulation->end_ns[id] : g.recorded_end_ns[id];
    trace.ops.push_back(std::move(t));
  }
  for (OpId id = 0; id < g.graph.size(); ++id)
    g.graph.for_each_successor(id, [&](OpId after) { trace.dependencies.emplace_back(id, after); });
  return trace;
}

}  // namespace opsim::replay
