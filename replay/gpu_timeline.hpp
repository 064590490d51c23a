// One rank's GPU ops in the replay graph: each recorded kernel, copy and memset as an op on
// its GPU and CUDA stream, after the op before it on that stream and after the op another
// stream's work it waited for; and the lookups the host side needs to find what a
// synchronizing call waited for.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "replay/replay_graph.hpp"

namespace opsim::replay {

/// A CUDA stream of the rank: its device and stream id, and its ops by recorded start.
struct RecordedStream {
  std::int64_t device = 0;
  std::int64_t stream = 0;
  std::vector<std::uint32_t> events;  ///< indices into gpu_events, by start
};

struct RankGpuOps {
  std::vector<std::int64_t> gpus;  ///< the trace's device ids, in machine GPU order
  std::vector<RecordedStream> streams;
  std::vector<OpId> op_of_event;               ///< per gpu event
  std::vector<std::uint32_t> stream_of_event;  ///< per gpu event: index into streams
  /// Per gpu event: when its launch call started and ended on the host (its own start when
  /// no launch call was found).
  std::vector<TraceNs> launch_start_ns;
  std::vector<TraceNs> launch_end_ns;
  std::unordered_map<std::int64_t, std::vector<std::uint32_t>> events_of_correlation;
  std::vector<std::uint32_t> events_by_end;   ///< gpu events sorted by recorded end
  std::vector<std::uint32_t> without_launch;  ///< gpu events with no launch call, ascending

  /// The last event on `stream` whose launch started before `time_ns`; -1: none.
  std::int64_t last_launched_before(std::uint32_t stream, TraceNs time_ns) const;
  /// The first event on `stream` whose launch started after `time_ns`; -1: none.
  std::int64_t first_launched_after(std::uint32_t stream, TraceNs time_ns) const;
  /// Index into streams of (device, stream); -1 when the rank never used it.
  std::int64_t find_stream(std::int64_t device, std::int64_t stream) const;
};

/// The distinct GPU device ids the trace's GPU events ran on, ascending.
std::vector<std::int64_t> distinct_gpu_devices(const KinetoTrace& trace);

/// Adds rank `rank`'s GPU ops to `g` on the machine's GPUs from index `first_gpu` on, and
/// raises those GPUs' stream counts to the streams the trace used.
RankGpuOps add_gpu_ops(ReplayGraph& g, const KinetoTrace& trace, std::uint32_t rank,
                       std::size_t first_gpu, const ReplayOptions& options);

}  // namespace opsim::replay
