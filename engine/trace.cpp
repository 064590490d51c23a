#include "engine/trace.hpp"

#include <algorithm>

namespace opsim {

std::string_view to_string(LaneKind kind) {
  switch (kind) {
    case LaneKind::kCompute: return "compute";
    case LaneKind::kCopy: return "copy";
    case LaneKind::kHost: return "host";
    case LaneKind::kIo: return "io";
    case LaneKind::kLink: return "link";
  }
  return "compute";
}

TimeNs Trace::makespan_ns() const {
  TimeNs end = 0;
  for (const TraceOp& op : ops) end = std::max(end, op.end_ns);
  return end;
}

}  // namespace opsim
