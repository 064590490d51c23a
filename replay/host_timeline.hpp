// One rank's host threads in the replay graph. Each thread is a chain of ops that keeps its
// recorded time: the time between runtime calls (the framework's own work) and each call's
// own time. A call that blocked on the GPU (a synchronize, a synchronous copy, a loop of
// cudaEventQuery polls) becomes a wait for the GPU ops it waited for, plus the time it took
// after they ended: its replayed length is what the simulated GPU gives it, never its
// recorded one.
#pragma once

#include <cstdint>

#include "replay/gpu_timeline.hpp"

namespace opsim::replay {

/// Adds the host threads of `trace` (rank `rank`) as host streams `first_thread`, ... of the
/// machine's first CPU; returns how many threads it added. Launches get their GPU ops as
/// successors; steps are recorded in g.steps.
std::uint32_t add_host_threads(ReplayGraph& g, const KinetoTrace& trace, std::uint32_t rank,
                               const RankGpuOps& gpu, std::uint32_t first_thread,
                               const ReplayOptions& options);

}  // namespace opsim::replay
