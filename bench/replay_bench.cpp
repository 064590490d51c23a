// Replay speed: read the traces (gzip included), build the replay graph, simulate it with
// recorded kernels on pcie-switch:N (what `opsim replay TRACE...` does), and print each
// phase's time, events per second for reading, and the process's peak resident memory.
//
//   build/bin/replay_bench ../shared/traces/v100-ddp-2ranks-rank1.json.gz
//   build/bin/replay_bench            # tests/data/pytorch/mlp-cuda-big.json.gz
//
// One replay per process (SimGrid runs once per process): run it several times for a median.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "replay/gpu_timeline.hpp"
#include "replay/kineto_trace.hpp"
#include "replay/replay_graph.hpp"
#include "replay/replay_run.hpp"
#include "topologies/topology_catalog.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point began) {
  return std::chrono::duration<double>(Clock::now() - began).count();
}

double peak_rss_mb() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024 / 1e6;  // ru_maxrss is in KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  using namespace opsim::replay;
  std::vector<std::string> paths(argv + 1, argv + argc);
  if (paths.empty()) paths.push_back(OPSIM_SOURCE_DIR "/tests/data/pytorch/mlp-cuda-big.json.gz");
  try {
    const auto began = Clock::now();
    std::vector<KinetoTrace> traces;
    std::int64_t events = 0;
    std::size_t gpus = 0;
    for (const std::string& path : paths) {
      traces.push_back(read_kineto_trace(path));
      events += traces.back().trace_events;
      gpus += distinct_gpu_devices(traces.back()).size();
    }
    const double read_s = seconds_since(began);
    const auto build_began = Clock::now();
    const ReplayGraph g = build_replay_graph(
        traces,
        opsim::resolve_topology("pcie-switch:" + std::to_string(std::max<std::size_t>(1, gpus))));
    const double build_s = seconds_since(build_began);
    const auto simulate_began = Clock::now();
    const ReplayResult r = run_replay(g, traces);
    const double simulate_s = seconds_since(simulate_began);
    const double total_s = seconds_since(began);
    std::printf("traces: %zu, events: %lld\n", traces.size(), static_cast<long long>(events));
    std::printf("read: %.4f s, %.0f events/s\n", read_s, static_cast<double>(events) / read_s);
    std::printf("graph: %zu ops (%lld host, %lld GPU), built in %.4f s\n", g.graph.size(),
                static_cast<long long>(g.counts.host_ops), static_cast<long long>(g.counts.gpu_ops),
                build_s);
    std::printf("simulation: %.4f s\n", simulate_s);
    std::printf("total: %.4f s\n", total_s);
    std::printf("peak RSS: %.1f MB (getrusage ru_maxrss)\n", peak_rss_mb());
    std::printf("steps: %zu, median |error| %.2f %%, worst %.2f %%\n", r.steps.size(),
                100 * r.median_abs_error, 100 * r.worst_abs_error);
  } catch (const opsim::InputError& e) {
    std::fprintf(stderr, "replay_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
