// Ring allreduce on N GPUs in a ring of single NVLinks, simulated on SimGrid through the
// scheduler: 2(N-1) steps of N transfers of S/N bytes, GPU i -> i+1, each depending on the
// transfer GPU i received in the previous step (2,095,104 transfers for N = 1024).
//
//   sim_ring_bench [gpus=1024] [bytes=160e6] [latency_s=0.7e-6] [closed_form=1]
//
// closed_form=0 makes every transfer a SimGrid comm (SimBackendOptions::
// closed_form_uncontended = false), to measure SimGrid's own cost.
//
// Prints wall time (graph build, simulation), transfers per second, peak RSS and the
// simulated makespan against the closed form 2(N-1)/N * S/B (+ 2(N-1) latencies).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/op_graph.hpp"
#include "sim/simulate.hpp"

namespace {

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace opsim;
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const double total_bytes = argc > 2 ? std::atof(argv[2]) : 160e6;
  const double latency_s = argc > 3 ? std::atof(argv[3]) : 0.7e-6;
  const bool closed_form = argc > 4 ? std::atoi(argv[4]) != 0 : true;
  if (n < 2) {
    std::fprintf(stderr, "need at least 2 GPUs\n");
    return 2;
  }

  const auto t0 = std::chrono::steady_clock::now();
  Machine machine("nvlink-ring:" + std::to_string(n));
  LinkModel nvlink = LinkModel::nvlink(2, 1);  // 25 GB/s per direction
  nvlink.latency_s = latency_s;
  std::vector<DeviceId> gpus(n);
  for (int i = 0; i < n; ++i) gpus[i] = machine.add_gpu("gpu" + std::to_string(i), GpuModel{});
  for (int i = 0; i < n; ++i)
    machine.add_link("nvlink" + std::to_string(i), gpus[i], gpus[(i + 1) % n], nvlink);
  machine.seal();

  const std::size_t steps = 2 * static_cast<std::size_t>(n - 1);
  OpGraph graph;
  graph.reserve(steps * n);
  std::vector<OpId> previous(n), current(n);
  Op send;
  send.kind = OpKind::kCopy;
  send.bytes = total_bytes / n;
  for (std::size_t step = 0; step < steps; ++step) {
    for (int i = 0; i < n; ++i) {
      send.device = gpus[i];
      send.peer = gpus[(i + 1) % n];
      current[i] = graph.add(send, "send");
      if (step > 0) graph.add_dependency(previous[(i + n - 1) % n], current[i]);
    }
    std::swap(previous, current);
  }
  const double build_s = seconds_since(t0);
  const double build_rss_mb = peak_rss_mb();

  const auto t1 = std::chrono::steady_clock::now();
  const double cpu1 = cpu_seconds();
  SimulateOptions options;
  options.record_op_times = false;  // the makespan is all this benchmark reports
  options.backend.closed_form_uncontended = closed_form;
  const SimulationResult result = simulate(machine, graph, options);
  const double sim_s = seconds_since(t1);
  const double sim_cpu_s = cpu_seconds() - cpu1;

  const double closed_s = 2.0 * (n - 1) / n * total_bytes / nvlink.bytes_per_s;
  const double with_latency_s = closed_s + steps * latency_s;
  std::printf("ring allreduce: %d GPUs, %.0f bytes, %zu transfers\n", n, total_bytes, graph.size());
  std::printf("wall: build %.3f s, simulate %.3f s, total %.3f s\n", build_s, sim_s,
              build_s + sim_s);
  std::printf(
      "cpu: simulate %.3f s, process total %.3f s (wall exceeds cpu when the cores are "
      "shared)\n",
      sim_cpu_s, cpu_seconds());
  std::printf("transfers per second (simulate, wall): %.0f\n", graph.size() / sim_s);
  std::printf("peak RSS: %.1f MB (after graph build: %.1f MB)\n", peak_rss_mb(), build_rss_mb);
  std::printf(
      "makespan: %.9f s; closed form 2(N-1)/N*S/B = %.9f s; + 2(N-1)*latency = %.9f s; "
      "relative error %.2e\n",
      result.makespan_s, closed_s, with_latency_s,
      (result.makespan_s - with_latency_s) / with_latency_s);
  return 0;
}
