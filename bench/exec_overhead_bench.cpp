// Per-op overhead of our executor (the shared Scheduler + RealBackend running no-op ops)
// against oneTBB's flow graph and StarPU 1.3, in one process, on N independent no-op tasks
// and on an N-task chain. Prints ns per op to build the graph and to run it, and the ratios.
//
//   exec_overhead_bench [N=1000000]
#include <oneapi/tbb/flow_graph.h>
#include <starpu.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <string>

#include "engine/exec/real_backend.hpp"
#include "engine/frontend/host_machine.hpp"
#include "engine/scheduler.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Timing {
  double build_ns_per_op = 0;
  double run_ns_per_op = 0;
  double total() const { return build_ns_per_op + run_ns_per_op; }
};

double ns_per(Clock::time_point a, Clock::time_point b, std::size_t n) {
  return std::chrono::duration<double, std::nano>(b - a).count() / static_cast<double>(n);
}

Timing ours(std::size_t n, bool chain, bool inline_noops) {
  const opsim::Machine machine = opsim::frontend::host_machine();
  const auto t0 = Clock::now();
  opsim::OpGraph graph;
  graph.reserve(n);
  opsim::Op op;
  op.kind = opsim::OpKind::kCompute;
  op.kernel = opsim::KernelClass::kNoop;
  op.device = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const opsim::OpId id = graph.add(op, "");
    if (chain && i > 0) graph.add_dependency(id - 1, id);
  }
  const auto t1 = Clock::now();
  opsim::RealBackendOptions options;
  options.inline_noops = inline_noops;
  opsim::RealBackend backend(nullptr, options);
  opsim::Scheduler scheduler(machine, graph, backend);
  scheduler.submit_all();
  scheduler.run();
  const auto t2 = Clock::now();
  if (scheduler.finished_count() != n) std::abort();
  return {ns_per(t0, t1, n), ns_per(t1, t2, n)};
}

Timing tbb_flow(std::size_t n, bool chain) {
  using namespace oneapi::tbb::flow;
  const auto t0 = Clock::now();
  graph g;
  std::deque<continue_node<continue_msg>> nodes;
  for (std::size_t i = 0; i < n; ++i) {
    nodes.emplace_back(g, [](const continue_msg&) {});
    if (chain && i > 0) make_edge(nodes[i - 1], nodes[i]);
  }
  const auto t1 = Clock::now();
  if (chain) {
    nodes.front().try_put(continue_msg());
  } else {
    for (auto& node : nodes) node.try_put(continue_msg());
  }
  g.wait_for_all();
  const auto t2 = Clock::now();
  return {ns_per(t0, t1, n), ns_per(t1, t2, n)};
}

void starpu_noop(void** /*buffers*/, void* /*arg*/) {}

// StarPU submits and runs at once; "build" is the submission loop, "run" the wait. StarPU is
// started only around its own measurement: its idle workers poll and would steal the CPUs
// from the other executors.
Timing starpu_tasks(std::size_t n, bool chain) {
  if (starpu_init(nullptr) != 0) {
    std::fprintf(stderr, "starpu_init failed\n");
    std::exit(1);
  }
  starpu_codelet independent;
  starpu_codelet_init(&independent);
  independent.cpu_funcs[0] = starpu_noop;
  independent.nbuffers = 0;
  starpu_codelet rw = independent;
  rw.nbuffers = 1;
  rw.modes[0] = STARPU_RW;
  int value = 0;
  starpu_data_handle_t handle = nullptr;
  starpu_variable_data_register(&handle, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&value),
                                sizeof(value));
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < n; ++i) {
    // A chain is data-driven in StarPU: every task reads and writes one variable.
    const int rc =
        chain ? starpu_task_insert(&rw, STARPU_RW, handle, 0) : starpu_task_insert(&independent, 0);
    if (rc != 0) std::abort();
  }
  const auto t1 = Clock::now();
  starpu_task_wait_for_all();
  const auto t2 = Clock::now();
  starpu_data_unregister(handle);
  starpu_shutdown();
  return {ns_per(t0, t1, n), ns_per(t1, t2, n)};
}

void row(const char* name, const Timing& t) {
  std::printf("  %-34s build %8.1f  run %8.1f  total %8.1f ns/op\n", name, t.build_ns_per_op,
              t.run_ns_per_op, t.total());
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  setenv("STARPU_SILENT", "1", 0);
  for (bool chain : {false, true}) {
    std::printf("%s, N = %zu\n", chain ? "chain" : "independent", n);
    const Timing a = ours(n, chain, true);
    const Timing b = ours(n, chain, false);
    const Timing t = tbb_flow(n, chain);
    const Timing s = starpu_tasks(n, chain);
    std::fflush(stdout);
    row("opsim (no-ops complete inline)", a);
    row("opsim (every op on a worker)", b);
    row("oneTBB flow graph", t);
    row("StarPU 1.3", s);
    std::printf(
        "  ratios (total): opsim/TBB %.2f (worker path %.2f); StarPU/opsim %.1f (worker path "
        "%.1f)\n",
        a.total() / t.total(), b.total() / t.total(), s.total() / a.total(), s.total() / b.total());
  }
  return 0;
}
