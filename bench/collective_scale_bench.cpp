// Scale benchmark for collectives: builds one collective with make_collective() and simulates
// it as `opsim collective` does (SimGrid backend, no per-op times kept), then prints the
// graph's size, each phase's wall time, the process's CPU time and peak resident memory, and
// the goals issue #27 sets for the two reference cases.
//
//   build/bin/collective_scale_bench allreduce ring nvlink-ring:2048 1GiB
//   build/bin/collective_scale_bench allreduce hierarchical ib-cluster:512x8 1GiB
//   build/bin/collective_scale_bench allreduce ring ib-cluster:512x8 1GiB 512   # first 512 GPUs
//
// One simulation per process (SimGrid runs once per process): run it several times for a
// median. On a loaded machine the CPU time is the steadier figure.
#include <sys/resource.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/input_error.hpp"
#include "experiments/collectives/collective.hpp"
#include "hw_models/units.hpp"
#include "sim/simulate.hpp"
#include "topologies/topology_catalog.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point began) {
  return std::chrono::duration<double>(Clock::now() - began).count();
}

rusage usage_now() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage;
}

double cpu_seconds(const rusage& usage) {
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double peak_rss_bytes(const rusage& usage) {
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // ru_maxrss is in KiB on Linux
}

// Issue #27's goals: wall seconds and peak bytes (0: none set).
struct Goal {
  double seconds = 0;
  double bytes = 0;
};

Goal goal_for(std::string_view op, std::string_view algorithm, std::string_view topology,
              double bytes) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  if (op != "allreduce" || bytes != kGiB) return {};
  if (algorithm == "hierarchical" && topology == "ib-cluster:512x8") return {10.0, 2e9};
  if (algorithm == "ring" && topology == "nvlink-ring:2048") return {5.0, 0};
  return {};
}

std::string verdict(double value, double goal) {
  return value <= goal ? "met" : "missed";
}

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr,
               "collective_scale_bench: %s\nusage: collective_scale_bench OP ALGORITHM TOPOLOGY "
               "BYTES [GPUS]\n",
               what.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace opsim;
  if (argc < 5 || argc > 6) usage_error("expected 4 or 5 arguments");
  const std::string op = argv[1];
  const std::string algorithm = argv[2];
  const std::string topology = argv[3];
  const auto bytes = parse_bytes(argv[4]);
  if (!bytes || !(*bytes >= 1)) usage_error(std::string("BYTES '") + argv[4] + "' is not a size");
  std::size_t gpu_count = 0;
  if (argc == 6) {
    const std::string_view text = argv[5];
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), gpu_count);
    if (error != std::errc() || end != text.data() + text.size() || gpu_count < 2)
      usage_error("GPUS '" + std::string(text) + "' is not a whole number >= 2");
  }
  try {
    const auto began = Clock::now();
    const Machine machine = resolve_topology(topology);
    CollectiveOptions options;
    options.bytes = *bytes;
    options.algorithm = algorithm;
    if (gpu_count > 0) {
      const std::vector<DeviceId> all = machine.gpus();
      if (gpu_count > all.size())
        usage_error("GPUS " + std::to_string(gpu_count) + ": " + topology + " has " +
                    std::to_string(all.size()));
      options.gpus.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(gpu_count));
    }
    const CollectivePlan plan = make_collective(op, machine, options);
    const double build_s = seconds_since(began);
    const double build_cpu_s = cpu_seconds(usage_now());

    const auto simulate_began = Clock::now();
    SimulateOptions sim_options;
    sim_options.record_op_times = false;
    const SimulationResult result = simulate(machine, plan.graph, sim_options);
    const double simulate_s = seconds_since(simulate_began);
    const double total_s = seconds_since(began);
    const rusage usage = usage_now();
    const double simulate_cpu_s = cpu_seconds(usage) - build_cpu_s;
    const double rss = peak_rss_bytes(usage);
    const Goal goal = goal_for(op, algorithm, topology, *bytes);

    const std::size_t gpus = gpu_count > 0 ? gpu_count : machine.gpus().size();
    std::printf("topology        %s (%s)\n", topology.c_str(), machine.name().c_str());
    std::printf("collective      %s, algorithm %s, %s per GPU\n", op.c_str(), algorithm.c_str(),
                format_bytes(*bytes).c_str());
    std::printf("GPUs            %zu\n", gpus);
    std::printf("ops             %zu (%zu dependencies)\n", plan.graph.size(),
                plan.graph.dependency_count());
    std::printf("plan            %s\n", plan.summary.c_str());
    std::printf("build           %.3f s wall, %.3f s CPU (topology and graph)\n", build_s,
                build_cpu_s);
    std::printf("simulate        %.3f s wall, %.3f s CPU (%.2f M ops per CPU second)\n", simulate_s,
                simulate_cpu_s, static_cast<double>(plan.graph.size()) / simulate_cpu_s / 1e6);
    std::printf("total           %.3f s wall, %.3f s CPU", total_s, cpu_seconds(usage));
    if (goal.seconds > 0)
      std::printf("   goal <= %.0f s wall: %s", goal.seconds,
                  verdict(total_s, goal.seconds).c_str());
    std::printf("\npeak RSS        %.1f MB", rss / 1e6);
    if (goal.bytes > 0)
      std::printf("   goal <= %.0f MB: %s", goal.bytes / 1e6, verdict(rss, goal.bytes).c_str());
    std::printf("\nmakespan        %.6f ms (%lld ns)\n", result.makespan_s * 1e3,
                static_cast<long long>(result.makespan_ns));
  } catch (const InputError& e) {
    std::fprintf(stderr, "collective_scale_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
