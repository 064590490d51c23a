#include "sim/simulated_time.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "common/input_error.hpp"
#include "sim/sim_backend.hpp"

namespace opsim {
namespace {

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", seconds);
  return text;
}

std::string op_named(const OpGraph& graph, OpId id) {
  return "op '" + std::string(graph.name(id)) + "' (#" + std::to_string(id) + ")";
}

double transfer_alone_s(const Machine& machine, const Op& op) {
  const Device& from = machine.device(op.device);
  double bytes_per_s = 0;
  if (op.device == op.peer)  // a memcpy inside one memory
    bytes_per_s =
        from.kind == DeviceKind::kGpu ? from.gpu.memory_bytes_per_s : from.cpu.dram.bytes_per_s();
  else
    bytes_per_s = machine.route_bytes_per_s(op.device, op.peer);
  const double latency_s = op.device == op.peer ? 0 : machine.route_latency_s(op.device, op.peer);
  return latency_s + op.seconds + op.bytes / bytes_per_s;
}

}  // namespace

double op_time_alone_s(const Machine& machine, const Op& op) {
  switch (op.kind) {
    case OpKind::kCompute:
      if (op.device >= machine.devices().size()) return 0;  // placed by the scheduler later
      return SimBackend::compute_time_s(machine, op, op.device, 1.0, 1.0);
    case OpKind::kCopy:
      return transfer_alone_s(machine, op);
    case OpKind::kDiskRead:
    case OpKind::kDiskWrite: {
      const DiskModel& disk = machine.device(op.device).disk;
      return disk.request_time_s(op.bytes, op.kind == OpKind::kDiskWrite,
                                 op.pattern == AccessPattern::kSequential, op.block_bytes);
    }
    case OpKind::kHostDispatch:
      return op.seconds;
  }
  return 0;
}

void check_ops_fit_in_simulated_time(const Machine& machine, const OpGraph& graph) {
  for (OpId id = 0; id < graph.size(); ++id) {
    const double alone_s = op_time_alone_s(machine, graph.op(id));
    if (!(alone_s <= kMostSimulatedSeconds))  // NaN and infinity too
      throw InputError(machine.name() + ": " + op_named(graph, id) + " alone takes " +
                       seconds_text(alone_s) +
                       " s, beyond the 9.2e9 s (292 years) a simulation can represent: its "
                       "size or the machine's rates are out of range");
  }
}

TimeNs simulated_ns(double clock_s, const OpGraph& graph, OpId id) {
  if (!(clock_s <= kMostSimulatedSeconds))
    throw InputError(op_named(graph, id) + " would end at " + seconds_text(clock_s) +
                     " s of simulated time, beyond the 9.2e9 s (292 years) a simulation can "
                     "represent: the workload is too large for this machine");
  return seconds_to_ns(clock_s);
}

}  // namespace opsim
