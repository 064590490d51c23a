#include "replay/host_timeline.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "replay/kernel_model.hpp"
#include "replay/thread_wakes.hpp"

namespace opsim::replay {
namespace {

bool is_synchronizing_call(std::string_view name) {
  return name == "cudaStreamSynchronize" || name == "cudaDeviceSynchronize" ||
         name == "cudaEventSynchronize" || name == "cudaMemcpy" || name == "cudaMemcpy2D" ||
         name == "cudaMemcpyToSymbol" || name == "cudaMemcpyFromSymbol" || name == "cudaMemset";
}

bool is_launch_call(std::string_view name) {
  return name == "cudaLaunchKernel" || name == "cudaLaunchKernelExC" || name == "cuLaunchKernel" ||
         name == "cudaMemcpyAsync" || name == "cudaMemsetAsync" || name == "cudaGraphLaunch" ||
         name == "cudaLaunchCooperativeKernel";
}

// The host time a launch takes, as the trace's median cudaLaunchKernel: the part of a
// synchronous copy that enqueues it before the call starts waiting.
TraceNs median_launch_ns(const KinetoTrace& trace) {
  std::vector<TraceNs> durations;
  for (const HostEvent& e : trace.host_events)
    if (e.kind == HostEventKind::kRuntime && trace.name(e.name) == "cudaLaunchKernel")
      durations.push_back(e.duration_ns);
  if (durations.empty()) return 5'000;
  std::nth_element(durations.begin(), durations.begin() + durations.size() / 2, durations.end());
  return durations[durations.size() / 2];
}

// A launch this much longer than the trace's median one may have waited for the GPU.
constexpr TraceNs kBlockedLaunchNs = 100'000;

// Builds one thread's chain: appends ops, each after the one before, and notes which op
// starts at each step boundary.
class ThreadBuilder {
 public:
  ThreadBuilder(ReplayGraph& g, const KinetoTrace& trace, const RankGpuOps& gpu, std::uint32_t rank,
                DeviceId cpu, std::int32_t stream, std::uint32_t lane, std::vector<TraceNs> cuts,
                const ReplayOptions& options)
      : g_(g),
        trace_(trace),
        gpu_(gpu),
        rank_(rank),
        cpu_(cpu),
        stream_(stream),
        lane_(lane),
        cuts_(std::move(cuts)),
        options_(options),
        launch_ns_(median_launch_ns(trace)) {
    for (const SyncEvent& s : trace.syncs) syncs_.emplace(s.correlation, &s);
  }

  void gap_until(TraceNs time_ns) {
    for (; next_cut_ < cuts_.size() && cuts_[next_cut_] <= time_ns; ++next_cut_) {
      if (cuts_[next_cut_] > cursor_ns_) {
        append(cursor_ns_, cuts_[next_cut_], "host");
        cursor_ns_ = cuts_[next_cut_];
      }
      pending_.push_back(cuts_[next_cut_]);
    }
    if (time_ns > cursor_ns_) append(cursor_ns_, time_ns, "host");
    cursor_ns_ = std::max(cursor_ns_, time_ns);
  }

  void call(const HostEvent& c) {
    const std::string_view name = trace_.name(c.name);
    if (name == "cudaGraphLaunch") ++g_.counts.graph_launches;
    const std::vector<std::uint32_t>* launched = nullptr;
    if (auto it = gpu_.events_of_correlation.find(c.correlation);
        c.correlation >= 0 && it != gpu_.events_of_correlation.end())
      launched = &it->second;
    const TraceNs end_ns = c.start_ns + c.duration_ns;
    if (launched != nullptr && !is_synchronizing_call(name) &&
        std::none_of(launched->begin(), launched->end(),
                     [&](std::uint32_t e) { return end_of(e) <= end_ns; })) {
      if (!launch_waited(c, *launched)) launch(c, *launched);
      return;
    }
    if (launched != nullptr) {  // a copy that ended within its call: the call waited for it
      blocking(c.start_ns, end_ns, std::min(c.duration_ns, launch_ns_), *launched, launched, name);
      return;
    }
    if (is_synchronizing_call(name)) {
      blocking(c.start_ns, end_ns, 0, sync_targets(c), nullptr, name);
      return;
    }
    if (is_launch_call(name)) ++g_.counts.launches_without_gpu_op;
    append(c.start_ns, end_ns, name);
    cursor_ns_ = end_ns;
  }

  // A launch far longer than the trace's usual one that returned as the GPU freed up waited
  // for it: the launch queue was full (its op waited in the queue past the call, and the
  // call returned as another op ended), or the launch drained the GPU first (loading a
  // kernel's module, say: every stream's work launched before it ended within the call).
  // It waits for those ops in the replay, so a faster GPU frees it sooner.
  bool launch_waited(const HostEvent& c, const std::vector<std::uint32_t>& launched) {
    if (c.duration_ns < kBlockedLaunchNs + 10 * launch_ns_) return false;
    const TraceNs end_ns = c.start_ns + c.duration_ns;
    std::vector<std::uint32_t> targets = queue_freed_by(c, launched);
    if (targets.empty()) targets = drained(c);
    if (targets.empty()) return false;
    blocking(c.start_ns, end_ns, launch_ns_, targets, &launched, trace_.name(c.name));
    return true;
  }

  std::vector<std::uint32_t> queue_freed_by(const HostEvent& c,
                                            const std::vector<std::uint32_t>& launched) const {
    const TraceNs end_ns = c.start_ns + c.duration_ns;
    const bool queued = std::all_of(launched.begin(), launched.end(), [&](std::uint32_t e) {
      return trace_.gpu_events[e].start_ns > end_ns;
    });
    const std::int64_t freed_by =
        latest_end_within(std::max(c.start_ns, end_ns - options_.wait_tolerance_ns), end_ns);
    if (!queued || freed_by < 0) return {};
    return {static_cast<std::uint32_t>(freed_by)};
  }

  std::vector<std::uint32_t> drained(const HostEvent& c) const {
    std::vector<std::uint32_t> last;
    TraceNs latest_ns = -1;
    for (std::uint32_t s = 0; s < gpu_.streams.size(); ++s) {
      const std::int64_t e = gpu_.last_launched_before(s, c.start_ns);
      if (e < 0) continue;
      const TraceNs end_ns = end_of(static_cast<std::uint32_t>(e));
      if (end_ns > c.start_ns + c.duration_ns) return {};  // still running: not drained
      last.push_back(static_cast<std::uint32_t>(e));
      latest_ns = std::max(latest_ns, end_ns);
    }
    if (latest_ns < c.start_ns + launch_ns_) return {};  // the GPU was idle: no wait
    return last;
  }

  // A run of cudaEventQuery calls: the thread polled until the GPU op that ended between
  // the poll before the last and the last, if one did (else it waited for nothing).
  void polling_loop(TraceNs start_ns, TraceNs last_poll_start_ns, TraceNs end_ns) {
    ++g_.counts.polling_loops;
    const std::int64_t waited_for = latest_end_within(last_poll_start_ns, end_ns);
    if (waited_for < 0) {
      append(start_ns, end_ns, "cudaEventQuery (polling)");
      cursor_ns_ = end_ns;
      return;
    }
    blocking(start_ns, end_ns, 0, {static_cast<std::uint32_t>(waited_for)}, nullptr,
             "cudaEventQuery (polling)");
  }

  // A CPU GEMM or convolution (--kernels modelled on a CPU-only trace): the CPU's model
  // times it from its shapes instead of its recorded length.
  void modelled_cpu_op(const HostEvent& e, const OpWork& work) {
    gap_until(e.start_ns);
    Op op;
    op.kind = OpKind::kCompute;
    op.kernel = KernelClass::kGemm;
    op.device = cpu_;
    op.flops = work.flops;
    op.bytes = work.bytes;
    chain(op, e.start_ns, e.start_ns + e.duration_ns, trace_.name(e.name));
    ++g_.counts.kernels_from_shapes;
    cursor_ns_ = e.start_ns + e.duration_ns;
  }

  // The step boundaries not yet given an op end where the thread's last op ends.
  std::map<TraceNs, TimelineMark> finish(TraceNs end_ns) {
    gap_until(end_ns);
    for (; next_cut_ < cuts_.size(); ++next_cut_) pending_.push_back(cuts_[next_cut_]);
    for (TraceNs t : pending_)
      if (last_ != kNone) marks_[t] = {t, last_, true, last_};
    return marks_;
  }

  void start_at(TraceNs begin_ns) {
    append(0, begin_ns, "before the thread's first event");
    cursor_ns_ = begin_ns;
  }

 private:
  static constexpr OpId kNone = ~OpId{0};

  TraceNs end_of(std::uint32_t e) const {
    return trace_.gpu_events[e].start_ns + trace_.gpu_events[e].duration_ns;
  }

  OpId append(TraceNs start_ns, TraceNs end_ns, std::string_view what) {
    const TraceNs duration_ns = end_ns - start_ns;
    Op op;
    op.kind = OpKind::kHostDispatch;
    op.device = cpu_;
    op.stream = stream_;
    op.fixed_time = true;
    op.seconds = static_cast<double>(std::max<TraceNs>(0, duration_ns)) * 1e-9;
    return chain(op, start_ns, end_ns, what);
  }

  // Adds `op` after the thread's last op.
  OpId chain(const Op& op, TraceNs start_ns, TraceNs end_ns, std::string_view what) {
    const OpId id = g_.add(op, "r" + std::to_string(rank_) + " " + std::string(what), rank_, lane_,
                           start_ns, end_ns);
    for (TraceNs t : pending_) marks_[t] = {t, id, false, last_};
    pending_.clear();
    if (last_ != kNone) g_.graph.add_dependency(last_, id);
    last_ = id;
    ++g_.counts.host_ops;
    return id;
  }

  void launch(const HostEvent& c, const std::vector<std::uint32_t>& launched) {
    const OpId op = append(c.start_ns, c.start_ns + c.duration_ns, trace_.name(c.name));
    for (std::uint32_t e : launched) g_.graph.add_dependency(op, gpu_.op_of_event[e]);
    last_launch_stream_ = gpu_.stream_of_event[launched.back()];
    cursor_ns_ = c.start_ns + c.duration_ns;
  }

  // A call of `pre_ns` of its own time (which enqueues `enqueued`, if any), then a wait for
  // `targets`, then the time it took after the last of them ended in the recording.
  void blocking(TraceNs start_ns, TraceNs end_ns, TraceNs pre_ns,
                const std::vector<std::uint32_t>& targets,
                const std::vector<std::uint32_t>* enqueued, std::string_view name) {
    ++g_.counts.blocking_calls;
    const OpId call = append(start_ns, start_ns + pre_ns, std::string(name) + " (call)");
    if (enqueued != nullptr)
      for (std::uint32_t e : *enqueued) g_.graph.add_dependency(call, gpu_.op_of_event[e]);
    TraceNs waited_until_ns = start_ns + pre_ns;
    for (std::uint32_t e : targets) waited_until_ns = std::max(waited_until_ns, end_of(e));
    const OpId after =
        append(std::min(end_ns, waited_until_ns), end_ns, std::string(name) + " (after the wait)");
    for (std::uint32_t e : targets) g_.graph.add_dependency(gpu_.op_of_event[e], after);
    cursor_ns_ = end_ns;
  }

  // What a synchronize waited for: every stream's last op launched before it for a device
  // synchronize; the recorded stream's for a stream synchronize that has a cuda_sync event;
  // else the stream whose last launched op ended last by the time the call returned.
  std::vector<std::uint32_t> sync_targets(const HostEvent& c) const {
    const std::string_view name = trace_.name(c.name);
    const SyncEvent* sync = nullptr;
    if (auto it = syncs_.find(c.correlation); c.correlation >= 0 && it != syncs_.end())
      sync = it->second;
    std::vector<std::uint32_t> last_per_stream;
    for (std::uint32_t s = 0; s < gpu_.streams.size(); ++s) {
      const std::int64_t e = gpu_.last_launched_before(s, c.start_ns);
      if (e < 0) continue;
      if (sync != nullptr && sync->kind == SyncKind::kStreamSync &&
          !(gpu_.streams[s].stream == sync->stream && gpu_.streams[s].device == sync->device))
        continue;
      last_per_stream.push_back(static_cast<std::uint32_t>(e));
    }
    const bool every_stream = name == "cudaDeviceSynchronize" ||
                              (sync != nullptr && sync->kind == SyncKind::kContextSync);
    if (every_stream || (sync != nullptr && sync->kind == SyncKind::kStreamSync))
      return last_per_stream;
    // Evidence: an op that ended while the call ran (it returned once the op was done).
    const TraceNs returned_ns = c.start_ns + c.duration_ns + options_.wait_tolerance_ns;
    std::int64_t best = -1;
    for (std::uint32_t e : last_per_stream)
      if (end_of(e) >= c.start_ns && end_of(e) <= returned_ns &&
          (best < 0 || end_of(e) > end_of(static_cast<std::uint32_t>(best))))
        best = e;
    if (best >= 0) return {static_cast<std::uint32_t>(best)};
    // None: the stream this thread launched on last, as PyTorch synchronizes its current
    // stream (also when the trace's durations were edited and no longer agree with it).
    if (last_launch_stream_ < 0) return {};
    const std::int64_t e =
        gpu_.last_launched_before(static_cast<std::uint32_t>(last_launch_stream_), c.start_ns);
    if (e < 0) return {};
    return {static_cast<std::uint32_t>(e)};
  }

  // The GPU op launched before `end_ns` that ended last within [start_ns, end_ns + tolerance].
  std::int64_t latest_end_within(TraceNs start_ns, TraceNs end_ns) const {
    const auto& by_end = gpu_.events_by_end;
    auto it = std::upper_bound(by_end.begin(), by_end.end(), end_ns + options_.wait_tolerance_ns,
                               [&](TraceNs t, std::uint32_t e) { return t < end_of(e); });
    while (it != by_end.begin()) {
      const std::uint32_t e = *--it;
      if (end_of(e) < start_ns) break;
      if (gpu_.launch_start_ns[e] < end_ns) return e;
    }
    return -1;
  }

  ReplayGraph& g_;
  const KinetoTrace& trace_;
  const RankGpuOps& gpu_;
  std::uint32_t rank_;
  DeviceId cpu_;
  std::int32_t stream_;
  std::uint32_t lane_;
  std::vector<TraceNs> cuts_;
  const ReplayOptions& options_;
  TraceNs launch_ns_;
  std::unordered_map<std::int64_t, const SyncEvent*> syncs_;
  std::int64_t last_launch_stream_ = -1;  // index into gpu_.streams
  std::size_t next_cut_ = 0;
  TraceNs cursor_ns_ = 0;
  OpId last_ = kNone;
  std::vector<TraceNs> pending_;
  std::map<TraceNs, TimelineMark> marks_;
};

struct ThreadSpan {
  std::size_t first = 0;  // host_events index range of the thread
  std::size_t last = 0;   // one past
  TraceNs begin_ns = 0;
  TraceNs end_ns = 0;
  bool has_runtime_calls = false;
};

std::vector<ThreadSpan> thread_spans(const KinetoTrace& trace) {
  std::vector<ThreadSpan> spans(trace.threads.size());
  std::vector<bool> seen(trace.threads.size(), false);
  for (std::size_t i = 0; i < trace.host_events.size(); ++i) {
    const HostEvent& e = trace.host_events[i];
    ThreadSpan& span = spans[e.thread];
    if (!seen[e.thread]) span = {i, i, e.start_ns, e.start_ns, false};
    seen[e.thread] = true;
    span.last = i + 1;
    span.end_ns = std::max(span.end_ns, e.start_ns + e.duration_ns);
    span.has_runtime_calls |= e.kind == HostEventKind::kRuntime;
  }
  return spans;
}

bool is_poll(const KinetoTrace& trace, const HostEvent& e) {
  return trace.name(e.name) == "cudaEventQuery";
}

bool contains(const HostEvent& outer, const HostEvent& inner) {
  return inner.start_ns >= outer.start_ns &&
         inner.start_ns + inner.duration_ns <= outer.start_ns + outer.duration_ns;
}

// The innermost cpu_ops of the thread whose work its shapes give (GEMMs, convolutions).
std::vector<const HostEvent*> cpu_ops_with_work(const KinetoTrace& trace, const ThreadSpan& span) {
  std::vector<const HostEvent*> ops;
  for (std::size_t i = span.first; i < span.last; ++i) {
    const HostEvent& e = trace.host_events[i];
    if (e.kind != HostEventKind::kCpuOp || op_work(trace.name(e.name), e).flops <= 0) continue;
    while (!ops.empty() && contains(*ops.back(), e)) ops.pop_back();  // the inner one does it
    ops.push_back(&e);
  }
  return ops;
}

// The thread's outermost runtime calls (and, modelling a CPU-only trace, its GEMMs), in
// order; runs of two or more polls as one loop.
void replay_calls(ThreadBuilder& builder, const KinetoTrace& trace, const ThreadSpan& span,
                  bool model_cpu_ops) {
  TraceNs outer_end_ns = -1;
  std::vector<const HostEvent*> calls;
  for (std::size_t i = span.first; i < span.last; ++i) {
    const HostEvent& e = trace.host_events[i];
    if (e.kind != HostEventKind::kRuntime || e.start_ns < outer_end_ns) continue;
    calls.push_back(&e);
    outer_end_ns = e.start_ns + e.duration_ns;
  }
  if (model_cpu_ops) {
    const auto ops = cpu_ops_with_work(trace, span);
    calls.insert(calls.end(), ops.begin(), ops.end());
    std::stable_sort(calls.begin(), calls.end(), [](const HostEvent* a, const HostEvent* b) {
      return a->start_ns < b->start_ns;
    });
  }
  for (std::size_t i = 0; i < calls.size();) {
    std::size_t j = i;
    while (j + 1 < calls.size() && is_poll(trace, *calls[i]) && is_poll(trace, *calls[j + 1])) ++j;
    builder.gap_until(calls[i]->start_ns);
    if (calls[i]->kind == HostEventKind::kCpuOp)
      builder.modelled_cpu_op(*calls[i], op_work(trace.name(calls[i]->name), *calls[i]));
    else if (j > i)
      builder.polling_loop(calls[i]->start_ns, calls[j - 1]->start_ns,
                           calls[j]->start_ns + calls[j]->duration_ns);
    else
      builder.call(*calls[i]);
    i = j + 1;
  }
}

}  // namespace

namespace {

// The threads replayed as chains: those with runtime calls or steps (or, modelling a CPU-only
// trace, every thread).
std::vector<std::uint32_t> replayed_threads(const KinetoTrace& trace,
                                            const std::vector<ThreadSpan>& spans,
                                            bool cpu_only_model) {
  std::vector<std::uint32_t> threads;
  for (std::uint32_t t = 0; t < spans.size(); ++t) {
    const bool has_steps = std::any_of(trace.steps.begin(), trace.steps.end(),
                                       [t](const StepSpan& s) { return s.thread == t; });
    if (spans[t].has_runtime_calls || has_steps || cpu_only_model) threads.push_back(t);
  }
  return threads;
}

// The threads that launch GPU work: the ones that hand each other a step's work. (A
// watchdog that only polls events wakes on a timer, not when another thread finishes.)
std::vector<std::uint32_t> launching_threads(const KinetoTrace& trace,
                                             const std::vector<std::uint32_t>& threads) {
  std::vector<bool> launches(trace.threads.size(), false);
  for (const HostEvent& e : trace.host_events)
    if (e.kind == HostEventKind::kRuntime && is_launch_call(trace.name(e.name)))
      launches[e.thread] = true;
  std::vector<std::uint32_t> out;
  for (std::uint32_t t : threads)
    if (launches[t]) out.push_back(t);
  return out;
}

// Each thread's cut points: its steps' bounds, and where it slept, was woken and resumed or
// woke another.
std::map<std::uint32_t, std::vector<TraceNs>> cut_points(const KinetoTrace& trace,
                                                         const std::vector<ThreadWake>& wakes) {
  std::map<std::uint32_t, std::vector<TraceNs>> cuts;
  for (const StepSpan& step : trace.steps) {
    cuts[step.thread].push_back(step.start_ns);
    cuts[step.thread].push_back(step.start_ns + step.duration_ns);
  }
  for (const ThreadWake& w : wakes) {
    for (TraceNs t : {w.idle_from_ns, w.woken_ns, w.resumed_ns}) cuts[w.sleeper].push_back(t);
    cuts[w.waker].push_back(w.woken_ns);
  }
  for (auto& [thread, list] : cuts) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return cuts;
}

// Whether `to` can be reached from `from` along dependencies.
bool reaches(const OpGraph& graph, OpId from, OpId to) {
  std::vector<bool> seen(graph.size(), false);
  std::vector<OpId> stack = {from};
  seen[from] = true;
  while (!stack.empty()) {
    const OpId op = stack.back();
    stack.pop_back();
    if (op == to) return true;
    graph.for_each_successor(op, [&](OpId next) {
      if (!seen[next]) seen[next] = true, stack.push_back(next);
    });
  }
  return false;
}

// The sleeper's idle time until the waker's event ended takes no time of its own: it waits
// for the waker to get there in the replay; the recorded delay after it stays. A wake that
// would close a cycle with what the GPU side already ties (a synchronize read off a trace
// whose times disagree, say) is left out.
void tie_wake(ReplayGraph& g, const ThreadWake& w, const std::map<TraceNs, TimelineMark>& sleeper,
              const std::map<TraceNs, TimelineMark>& waker) {
  const TimelineMark& woken_by = waker.at(w.woken_ns);
  const OpId idle = sleeper.at(w.idle_from_ns).op, wait_end = sleeper.at(w.woken_ns).op;
  if (woken_by.before == ~OpId{0} || reaches(g.graph, wait_end, woken_by.before)) return;
  for (OpId op = idle; op < wait_end; ++op) g.graph.mutable_op(op).seconds = 0;
  g.graph.add_dependency(woken_by.before, wait_end);
  ++g.counts.thread_wakes;
}

}  // namespace

std::uint32_t add_host_threads(ReplayGraph& g, const KinetoTrace& trace, std::uint32_t rank,
                               const RankGpuOps& gpu, std::uint32_t first_thread,
                               const ReplayOptions& options) {
  const DeviceId cpu = g.machine.cpus().front();
  const bool cpu_only_model =
      options.kernels == KernelTiming::kModelled && trace.gpu_events.empty();
  const std::vector<ThreadSpan> spans = thread_spans(trace);
  const std::vector<std::uint32_t> threads = replayed_threads(trace, spans, cpu_only_model);
  const std::vector<ThreadWake> wakes = find_thread_wakes(trace, launching_threads(trace, threads));
  auto cuts = cut_points(trace, wakes);
  std::map<std::uint32_t, std::map<TraceNs, TimelineMark>> marks;
  std::uint32_t added = 0;
  for (std::uint32_t t : threads) {
    const HostThread& thread = trace.threads[t];
    const std::uint32_t lane =
        g.add_lane({.name = "r" + std::to_string(rank) + " thread " + std::to_string(thread.tid) +
                            (thread.name.empty() ? "" : " (" + thread.name + ")"),
                    .node = "rank" + std::to_string(rank),
                    .device = g.machine.device(cpu).name,
                    .kind = LaneKind::kHost,
                    .capacity_bytes_per_s = 0});
    ThreadBuilder builder(g, trace, gpu, rank, cpu, static_cast<std::int32_t>(first_thread + added),
                          lane, std::move(cuts[t]), options);
    builder.start_at(spans[t].begin_ns);
    replay_calls(builder, trace, spans[t], cpu_only_model);
    marks[t] = builder.finish(spans[t].end_ns);
    ++added;
  }
  for (const ThreadWake& w : wakes) tie_wake(g, w, marks.at(w.sleeper), marks.at(w.waker));
  for (const StepSpan& step : trace.steps) {
    const TraceNs end_ns = step.start_ns + step.duration_ns;
    const auto& thread_marks = marks.at(step.thread);
    g.steps.push_back({rank, "ProfilerStep#" + std::to_string(step.number), step.start_ns, end_ns,
                       thread_marks.at(step.start_ns), thread_marks.at(end_ns)});
  }
  return added;
}

}  // namespace opsim::replay
