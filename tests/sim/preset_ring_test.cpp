// Ring allreduce simulated on the NVSwitch presets: 2(n-1) dependent steps of S/n from each
// GPU to the next take 2(n-1)/n * S/B on GPUs whose NVLink port carries B per direction.
// Each TEST runs in its own process (one SimGrid Engine per process).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/simulate.hpp"
#include "tests/support/test_ops.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {
namespace {

using test::copy_op;

/// Transfers only (reduce-scatter then all-gather): step k's send from GPU i waits for GPU
/// i-1's send of step k-1 to arrive.
double ring_allreduce_s(const Machine& m, double bytes) {
  const std::vector<DeviceId> gpus = m.gpus();
  const int n = int(gpus.size());
  OpGraph g;
  std::vector<OpId> last;
  for (int step = 0; step < 2 * (n - 1); ++step) {
    std::vector<OpId> now(n);
    for (int i = 0; i < n; ++i) {
      now[i] = g.add(copy_op(gpus[i], gpus[(i + 1) % n], bytes / n), "send");
      if (!last.empty()) g.add_dependency(last[(i + n - 1) % n], now[i]);
    }
    last = now;
  }
  return simulate_isolated(m, g).makespan_s;
}

void expect_ring_formula(const std::string& topology, double per_gpu_bytes_per_s) {
  const Machine m = resolve_topology(topology);
  const double s = 1e9, n = 8;
  ASSERT_EQ(m.gpus().size(), 8u);
  const double formula = 2 * (n - 1) / n * s / per_gpu_bytes_per_s;
  const double simulated = ring_allreduce_s(m, s);
  EXPECT_NEAR(simulated, formula, 0.05 * formula) << topology;
  EXPECT_GE(simulated, formula) << topology;
}

TEST(PresetRing, DgxA100AllreduceIsTheRingFormulaAt300GBps) {
  expect_ring_formula("dgx-a100", 300e9);
}

TEST(PresetRing, DgxH100AllreduceIsTheRingFormulaAt450GBps) {
  expect_ring_formula("dgx-h100", 450e9);
}

// Two DGX H100s on NDR InfiniBand: the ring crosses the servers twice per step, so each
// step is bound by one 400 Gbit/s NIC: 2(n-1)/n * S / 50 GB/s.
TEST(PresetRing, AllreduceOverTwoIbNodesIsBoundByTheNics) {
  const Machine m = resolve_topology("ib-cluster:2x8");
  const double s = 1e9, n = 16;
  const double formula = 2 * (n - 1) / n * s / 50e9;
  const double simulated = ring_allreduce_s(m, s);
  EXPECT_NEAR(simulated, formula, 0.05 * formula);
  EXPECT_GE(simulated, formula);
}

}  // namespace
}  // namespace opsim
