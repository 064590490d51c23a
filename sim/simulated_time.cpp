#include "sim/simulated_time.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

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

namespace {

// Whether op_time_alone_s() gives `a` and `b` the same time: every field it may read is equal.
bool same_time_alone(const Op& a, const Op& b) {
  return a.kind == b.kind && a.kernel == b.kernel && a.dtype == b.dtype && a.pattern == b.pattern &&
         a.fixed_time == b.fixed_time && a.device == b.device && a.peer == b.peer &&
         a.block_bytes == b.block_bytes && a.flops == b.flops && a.bytes == b.bytes &&
         a.seconds == b.seconds;
}

}  // namespace

void check_ops_fit_in_simulated_time(const Machine& machine, const OpGraph& graph) {
  // Generators repeat ops (a ring's GPU sends the same chunk size to the same peer 2(n-1)
  // times): an op like the last one checked on its device passed already, which saves two
  // route lookups per copy.
  std::vector<const Op*> last_checked(machine.devices().size(), nullptr);
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    const Op** last = op.device < last_checked.size() ? &last_checked[op.device] : nullptr;
    if (last != nullptr && *last != nullptr && same_time_alone(**last, op)) continue;
    if (last != nullptr) *last = &op;
    const double alone_s = op_time_alone_s(machine, op);
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
