#include "engine/link_traffic.hpp"

#include "engine/trace_recorder.hpp"

namespace opsim {

LinkTraffic compute_link_traffic(const Machine& machine, const OpGraph& graph) {
  LinkTraffic traffic;
  traffic.bytes_by_direction.assign(2 * machine.links().size(), 0.0);
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    DeviceId src = kNoDevice, dst = kNoDevice;
    switch (op.kind) {
      case OpKind::kCopy:
      case OpKind::kDiskRead:
        src = op.device;
        dst = op.peer;
        break;
      case OpKind::kDiskWrite:
        src = op.peer;
        dst = op.device;
        break;
      default:
        continue;
    }
    traffic.bytes_moved += op.bytes;
    for (const Hop& hop : machine.route(src, dst))
      traffic.bytes_by_direction[2 * hop.link + (hop.forward ? 0 : 1)] += op.bytes;
  }
  return traffic;
}

BusiestLink busiest_link(const Machine& machine, const LinkTraffic& traffic, double makespan_s) {
  BusiestLink best;
  if (!(makespan_s > 0)) return best;
  for (LinkId id = 0; id < machine.links().size(); ++id) {
    const LinkModel& model = machine.link(id).model;
    for (bool forward : {true, false}) {
      double bytes = traffic.bytes(id, forward);
      if (!model.full_duplex) bytes = traffic.bytes(id, true) + traffic.bytes(id, false);
      const double utilization = bytes / (model.bytes_per_s * makespan_s);
      if (bytes > 0 && utilization > best.utilization) {
        best.name = model.full_duplex ? TraceRecorder::link_lane_name(machine, id, forward)
                                      : machine.link(id).name;
        best.bytes = bytes;
        best.utilization = utilization;
      }
    }
  }
  return best;
}

}  // namespace opsim
