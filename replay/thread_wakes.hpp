// Which host thread woke which. A thread that sat idle (no innermost event of its own for a
// while) and started again just after another thread of its rank finished something
// was woken by it: PyTorch's autograd engine thread starts the backward pass when the main
// thread hands it over, and the main thread goes on when the backward pass ends. Replay ties
// the two there, so that a thread whose partner got faster or slower in the replay wakes
// when the partner reaches that point, after the recorded delay, instead of after its
// recorded idle time.
#pragma once

#include <cstdint>
#include <vector>

#include "replay/kineto_trace.hpp"

namespace opsim::replay {

struct ThreadWake {
  std::uint32_t sleeper = 0;  ///< the thread that was idle (index into KinetoTrace::threads)
  std::uint32_t waker = 0;    ///< the thread whose event ended just before it woke
  /// When the sleeper's last event before the gap ended, or a step boundary of the
  /// sleeper's after it and before woken_ns (the wait starts there).
  TraceNs idle_from_ns = 0;
  TraceNs woken_ns = 0;    ///< when the waker's event ended (>= idle_from_ns)
  TraceNs resumed_ns = 0;  ///< when the sleeper's next event started
};

/// Idle gaps shorter than this are the thread's own time between ops (Python, say).
inline constexpr TraceNs kShortestIdleNs = 20'000;

/// The wakes between the given threads of one trace (threads replayed as chains), in order
/// of the sleeper, then time.
std::vector<ThreadWake> find_thread_wakes(const KinetoTrace& trace,
                                          const std::vector<std::uint32_t>& threads);

}  // namespace opsim::replay
