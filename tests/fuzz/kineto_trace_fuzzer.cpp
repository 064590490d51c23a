// Kineto (PyTorch profiler) trace reader (replay/kineto_trace.hpp): any bytes, plain JSON or
// gzip, either read into a KinetoTrace or are refused with a one-line InputError naming the
// file. An accepted trace also keeps the reader's promises: every index in range, times and
// durations >= 0 and within int64 when added, each thread's events in order with the
// enclosing one first, GPU events and steps by start.
#include <string>

#include "common/gzip_input.hpp"
#include "replay/kineto_trace.hpp"
#include "tests/fuzz/fuzz_contract.hpp"

namespace {

using namespace opsim;
using namespace opsim::replay;

constexpr const char* kSource = "fuzz-trace.json.gz";

void check(bool ok, const char* what) {
  if (!ok) fuzz::finding("accepted trace breaks a promise of kineto_trace.hpp", what);
}

bool span_ok(TraceNs start, TraceNs duration) {
  TraceNs end = 0;
  return start >= 0 && duration >= 0 && !__builtin_add_overflow(start, duration, &end);
}

void check_trace(const KinetoTrace& t) {
  check(t.path == kSource, "path is the source");
  check(t.trace_events > 0, "trace_events counts the events");
  for (std::size_t i = 0; i < t.host_events.size(); ++i) {
    const HostEvent& e = t.host_events[i];
    check(e.name < t.names.size(), "host event name index in range");
    check(e.thread < t.threads.size(), "host event thread index in range");
    check(span_ok(e.start_ns, e.duration_ns), "host event times >= 0 and within int64");
    if (i > 0) {
      const HostEvent& p = t.host_events[i - 1];
      check(p.thread < e.thread || (p.thread == e.thread &&
                                    (p.start_ns < e.start_ns ||
                                     (p.start_ns == e.start_ns && p.duration_ns >= e.duration_ns))),
            "host events by thread, then start, enclosing first");
    }
  }
  for (std::size_t i = 0; i < t.gpu_events.size(); ++i) {
    const GpuEvent& e = t.gpu_events[i];
    check(e.name < t.names.size(), "GPU event name index in range");
    check(span_ok(e.start_ns, e.duration_ns), "GPU event times >= 0 and within int64");
    check(e.stream >= 0 && e.device >= 0 && e.bytes >= 0, "stream, device, bytes >= 0");
    check(e.kind != GpuEventKind::kMemcpy || e.direction != CopyDirection::kNone,
          "a memcpy has a direction");
    if (e.collective) check(!e.collective->name.empty(), "a collective has a name");
    if (i > 0) check(t.gpu_events[i - 1].start_ns <= e.start_ns, "GPU events by start");
  }
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    check(t.steps[i].thread < t.threads.size(), "step thread index in range");
    check(span_ok(t.steps[i].start_ns, t.steps[i].duration_ns), "step times >= 0");
    if (i > 0) check(t.steps[i - 1].start_ns <= t.steps[i].start_ns, "steps by start");
  }
  check(!t.host_events.empty() || !t.gpu_events.empty(), "an accepted trace has events");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = fuzz::text_of(data, size);
  fuzz::expect_value_or_input_error(kSource, [&] {
    // As read_kineto_trace does, with a smaller bound on the decompressed text so that a
    // gzip bomb is refused within libFuzzer's memory limit.
    if (is_gzip(bytes)) {
      const std::string text = gunzip_input(bytes, kSource, std::uint64_t{64} << 20);
      check_trace(parse_kineto_trace(text, kSource));
    } else {
      check_trace(parse_kineto_trace(bytes, kSource));
    }
  });
  return 0;
}
