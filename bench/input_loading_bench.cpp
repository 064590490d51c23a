// Benchmark: how fast user input loads, in ops or events per second, for the shapes that
// were once quadratic or slow: a workload chain of N ops (each after the one before), an
// opsim trace of N spans as written, the same trace with its events before otherData (a
// file re-ordered by another tool), and a foreign Chrome trace of N events (refused: not an
// opsim trace). Loading should be linear: twice the input, twice the time.
//
//   build/bin/input_loading_bench [ops=100000]
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include "common/input_error.hpp"
#include "engine/chrome_trace_reader.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "engine/workload_file.hpp"
#include "hw_models/machine.hpp"

namespace {

using namespace opsim;

double seconds_to_run(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string chain_workload(int ops) {
  std::string text = R"({"ops": [{"name": "op0", "kind": "compute", "device": "cpu0"})";
  for (int i = 1; i < ops; ++i)
    text += R"(, {"name": "op)" + std::to_string(i) +
            R"(", "kind": "compute", "device": "cpu0", "flops": 1e6, "after": ["op)" +
            std::to_string(i - 1) + R"("]})";
  return text + "]}";
}

Trace spans_trace(int spans) {
  Trace trace;
  trace.title = "bench";
  trace.backend = "sim";
  trace.machine = "bench";
  TraceLane lane;
  lane.name = "cpu0/compute0";
  lane.node = "bench";
  lane.device = "cpu0";
  lane.kind = LaneKind::kCompute;
  trace.lanes.push_back(lane);
  for (int i = 0; i < spans; ++i) {
    TraceOp op;
    op.name = "op" + std::to_string(i);
    op.op_class = "gemm";
    op.device = "cpu0";
    op.lane = 0;
    op.start_ns = i * 1000;
    op.end_ns = i * 1000 + 900;
    trace.ops.push_back(op);
  }
  return trace;
}

// The same JSON with "traceEvents" moved before "otherData" (opsim writes
// {"otherData": {...},\n"traceEvents": [...]}).
std::string events_first(const std::string& text) {
  auto trimmed = [](std::string part) {
    while (!part.empty() && (part.back() == ',' || part.back() == '}' || std::isspace(part.back())))
      part.pop_back();
    return part;
  };
  const std::size_t other = text.find("\"otherData\"");
  const std::size_t events = text.find("\"traceEvents\"");
  const std::string meta = text.substr(other, events - other);
  std::string meta_object = meta.substr(0, meta.find_last_of('}') + 1);
  return "{" + trimmed(text.substr(events)) + "," + meta_object + "}";
}

std::string foreign_trace(int events) {
  std::string text = R"({"traceEvents": [)";
  for (int i = 0; i < events; ++i)
    text += std::string(i ? "," : "") + R"({"ph": "X", "name": "k)" + std::to_string(i) +
            R"(", "pid": 1, "tid": 7, "ts": )" + std::to_string(i) + R"(, "dur": 0.5})";
  return text + "]}";
}

void report(const char* what, int items, double bytes, double seconds) {
  std::printf("%-38s %9d items %8.1f MB %8.3f s %12.0f items/s\n", what, items, bytes / 1e6,
              seconds, items / seconds);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  if (n < 1) {
    std::fprintf(stderr, "usage: input_loading_bench [ops>=1]\n");
    return 2;
  }
  Machine machine("bench");
  machine.add_cpu("cpu0", CpuModel{});
  machine.seal();

  const std::string workload = chain_workload(n);
  report("workload chain (parse + graph)", n, workload.size(), seconds_to_run([&] {
           (void)build_workload_graph(parse_workload_json(workload, "chain.json"), machine);
         }));

  std::ostringstream out;
  write_chrome_trace(spans_trace(n), out);
  const std::string written = out.str();
  report("opsim trace, as written", n, written.size(),
         seconds_to_run([&] { (void)parse_chrome_trace(written, "t.json"); }));
  const std::string reordered = events_first(written);
  report("opsim trace, events before otherData", n, reordered.size(),
         seconds_to_run([&] { (void)parse_chrome_trace(reordered, "r.json"); }));

  const std::string foreign = foreign_trace(n);
  report("foreign trace (refused)", n, foreign.size(), seconds_to_run([&] {
           try {
             (void)parse_chrome_trace(foreign, "f.json");
           } catch (const InputError&) {
           }
         }));
  return 0;
}
