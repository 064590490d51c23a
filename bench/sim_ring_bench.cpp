// Benchmark: ring allreduce on nvlink-ring:N through the real path — topology family, ring
// generator, the scheduler and the SimGrid backend — printing wall time, transfers per
// second, peak memory and the simulated makespan against 2(N-1)/N * S/B.
//
//   build/bin/sim_ring_bench [gpus=1024] [bytes=160MB]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "experiments/sync/sync_strategy.hpp"
#include "hw_models/units.hpp"
#include "sim/simulate.hpp"
#include "topologies/topology_catalog.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace opsim;
  const int gpus = argc > 1 ? std::atoi(argv[1]) : 1024;
  const auto bytes = parse_bytes(argc > 2 ? argv[2] : "160MB");
  if (gpus < 2 || !bytes) {
    std::fprintf(stderr, "usage: sim_ring_bench [gpus>=2] [bytes, e.g. 160MB]\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const Machine machine = resolve_topology("nvlink-ring:" + std::to_string(gpus));
  SyncOptions options;
  options.bytes = *bytes;
  options.include_reductions = false;
  const SyncPlan plan = make_sync_plan("ring", machine, options);
  const double build_s = seconds_since(start);

  const auto sim_start = std::chrono::steady_clock::now();
  SimulateOptions sim_options;
  sim_options.record_op_times = false;
  const SimulationResult result = simulate(machine, plan.graph, sim_options);
  const double simulate_s = seconds_since(sim_start);
  const double wall_s = seconds_since(start);

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  const double bandwidth = machine.route_bytes_per_s(machine.gpus()[0], machine.gpus()[1]);
  const double closed_form_s = 2.0 * (gpus - 1) / gpus * *bytes / bandwidth;
  const double transfers = static_cast<double>(plan.graph.size());
  std::printf("ring allreduce on nvlink-ring:%d, %s per GPU, transfers only\n", gpus, format_bytes(*bytes).c_str());
  std::printf("  transfers            %.0f\n", transfers);
  std::printf("  build graph          %.3f s\n", build_s);
  std::printf("  simulate             %.3f s (%.2f M transfers/s)\n", simulate_s, transfers / simulate_s / 1e6);
  std::printf("  total wall           %.3f s, CPU %.3f s (target: <= 5 s)\n", wall_s, cpu_s);
  std::printf("  peak memory          %.1f MiB (target: <= 300 MB = %.1f MiB)\n", peak_rss_mib(), 300e6 / 1048576.0);
  std::printf("  simulated makespan   %.6f ms, closed form 2(N-1)/N*S/B %.6f ms, error %.2e\n",
              result.makespan_s * 1e3, closed_form_s * 1e3, (result.makespan_s - closed_form_s) / closed_form_s);
  return 0;
}
