// Small Kineto traces written in code, one event at a time, for replay tests: times in
// microseconds as a profiler would show them.
#pragma once

#include <string>
#include <vector>

#include "replay/kineto_trace.hpp"

namespace opsim::replay::testing {

class TraceBuilder {
 public:
  explicit TraceBuilder(std::string path = "test.json") { trace_.path = std::move(path); }

  std::uint32_t thread(std::int64_t tid) {
    trace_.threads.push_back({1, tid, ""});
    return static_cast<std::uint32_t>(trace_.threads.size() - 1);
  }
  TraceBuilder& runtime(std::uint32_t thread, std::string name, double start_us, double dur_us,
                        std::int64_t correlation = -1) {
    HostEvent e;
    e.kind = HostEventKind::kRuntime;
    e.thread = thread;
    e.name = intern(std::move(name));
    e.start_ns = ns(start_us);
    e.duration_ns = ns(dur_us);
    e.correlation = correlation;
    trace_.host_events.push_back(e);
    return *this;
  }
  TraceBuilder& cpu_op(std::uint32_t thread, std::string name, double start_us, double dur_us) {
    HostEvent e;
    e.thread = thread;
    e.name = intern(std::move(name));
    e.start_ns = ns(start_us);
    e.duration_ns = ns(dur_us);
    trace_.host_events.push_back(e);
    return *this;
  }
  /// A cpu_op with its recorded shapes (record_shapes=True).
  TraceBuilder& cpu_op(std::uint32_t thread, std::string name, double start_us, double dur_us,
                       std::vector<std::vector<std::int64_t>> dims, std::string type = "float") {
    cpu_op(thread, std::move(name), start_us, dur_us);
    trace_.host_events.back().input_dims = std::move(dims);
    trace_.host_events.back().input_types.assign(trace_.host_events.back().input_dims.size(), type);
    return *this;
  }
  TraceBuilder& kernel(std::string name, double start_us, double dur_us, std::int64_t stream,
                       std::int64_t correlation) {
    GpuEvent e;
    e.name = intern(std::move(name));
    e.start_ns = ns(start_us);
    e.duration_ns = ns(dur_us);
    e.stream = stream;
    e.correlation = correlation;
    trace_.gpu_events.push_back(e);
    return *this;
  }
  TraceBuilder& collective(std::string name, double start_us, double dur_us, std::int64_t stream,
                           std::int64_t correlation, std::int64_t elements) {
    kernel(std::move(name), start_us, dur_us, stream, correlation);
    Collective c;
    c.name = "allreduce";
    c.in_elements = c.out_elements = elements;
    c.dtype = "Float";
    c.element_bytes = 4;
    c.group_size = 2;
    c.group_name = "0";
    trace_.gpu_events.back().collective = c;
    return *this;
  }
  TraceBuilder& step(std::uint32_t thread, std::int64_t number, double start_us, double dur_us) {
    trace_.steps.push_back({number, thread, ns(start_us), ns(dur_us)});
    return cpu_op(thread, "ProfilerStep#" + std::to_string(number), start_us, dur_us);
  }
  TraceBuilder& stream_wait(std::int64_t correlation, std::int64_t waiting_stream,
                            std::int64_t recorded_stream, std::int64_t record_correlation) {
    trace_.syncs.push_back({SyncKind::kStreamWaitEvent, correlation, 0, waiting_stream,
                            recorded_stream, record_correlation});
    return *this;
  }
  /// Sorted as the reader sorts: host events by thread, then start (enclosing first).
  KinetoTrace build() const {
    KinetoTrace t = trace_;
    std::stable_sort(t.host_events.begin(), t.host_events.end(),
                     [](const HostEvent& a, const HostEvent& b) {
                       if (a.thread != b.thread) return a.thread < b.thread;
                       if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
                       return a.duration_ns > b.duration_ns;
                     });
    std::stable_sort(t.gpu_events.begin(), t.gpu_events.end(),
                     [](const GpuEvent& a, const GpuEvent& b) { return a.start_ns < b.start_ns; });
    std::stable_sort(t.steps.begin(), t.steps.end(),
                     [](const StepSpan& a, const StepSpan& b) { return a.start_ns < b.start_ns; });
    return t;
  }

 private:
  static TraceNs ns(double us) { return static_cast<TraceNs>(us * 1000.0 + 0.5); }
  std::uint32_t intern(std::string name) {
    trace_.names.push_back(std::move(name));
    return static_cast<std::uint32_t>(trace_.names.size() - 1);
  }
  KinetoTrace trace_;
};

}  // namespace opsim::replay::testing
