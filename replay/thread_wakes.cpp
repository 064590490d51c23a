#include "replay/thread_wakes.hpp"

#include <algorithm>

namespace opsim::replay {
namespace {

struct Busy {
  TraceNs start_ns;
  TraceNs end_ns;
};

// The thread's busy stretches: the union of its innermost events (those with no event of
// the thread inside them). A thread blocked inside an enclosing span (the main thread in
// loss.backward(), within its ProfilerStep) has no innermost event meanwhile: it is idle.
std::vector<std::vector<Busy>> busy_stretches(const KinetoTrace& trace, std::size_t threads) {
  std::vector<std::vector<Busy>> busy(threads);
  const auto& events = trace.host_events;  // by thread, then start, enclosing first
  for (std::size_t i = 0; i < events.size(); ++i) {
    const HostEvent& e = events[i];
    const bool has_inner = i + 1 < events.size() && events[i + 1].thread == e.thread &&
                           events[i + 1].start_ns < e.start_ns + e.duration_ns;
    if (has_inner) continue;
    auto& list = busy[e.thread];
    const TraceNs end_ns = e.start_ns + e.duration_ns;
    if (!list.empty() && e.start_ns <= list.back().end_ns)
      list.back().end_ns = std::max(list.back().end_ns, end_ns);
    else
      list.push_back({e.start_ns, end_ns});
  }
  return busy;
}

// The latest end of a busy stretch of `list` within [from_ns, to_ns], or -1.
TraceNs latest_end_within(const std::vector<Busy>& list, TraceNs from_ns, TraceNs to_ns) {
  auto it = std::partition_point(list.begin(), list.end(),
                                 [&](const Busy& b) { return b.end_ns <= to_ns; });
  if (it == list.begin()) return -1;
  const TraceNs end_ns = std::prev(it)->end_ns;
  return end_ns >= from_ns ? end_ns : -1;
}

}  // namespace

std::vector<ThreadWake> find_thread_wakes(const KinetoTrace& trace,
                                          const std::vector<std::uint32_t>& threads) {
  const auto busy = busy_stretches(trace, trace.threads.size());
  std::vector<ThreadWake> wakes;
  for (std::uint32_t sleeper : threads) {
    const auto& own = busy[sleeper];
    for (std::size_t i = 0; i < own.size(); ++i) {
      // Before its first event a thread has not started yet: a wake too (the autograd
      // engine's thread first runs in the first backward pass).
      const TraceNs idle_from_ns = i == 0 ? 0 : own[i - 1].end_ns, resumed_ns = own[i].start_ns;
      if (resumed_ns - idle_from_ns < kShortestIdleNs) continue;
      ThreadWake best{sleeper, 0, idle_from_ns, -1, resumed_ns};
      for (std::uint32_t waker : threads) {
        if (waker == sleeper) continue;
        const TraceNs end_ns = latest_end_within(busy[waker], idle_from_ns, resumed_ns);
        if (end_ns > best.woken_ns) best.waker = waker, best.woken_ns = end_ns;
      }
      if (best.woken_ns < 0) continue;
      // A step boundary inside the wait keeps its recorded place: the wait starts there.
      for (const StepSpan& step : trace.steps)
        for (TraceNs b : {step.start_ns, step.start_ns + step.duration_ns})
          if (step.thread == sleeper && b > best.idle_from_ns && b <= best.woken_ns)
            best.idle_from_ns = b;
      wakes.push_back(best);
    }
  }
  return wakes;
}

}  // namespace opsim::replay
