// The strategies simulated on the topology presets (SimGrid through the one scheduler): the
// book's numbers, the ring formula and the parameter server's derived bound. Each run is
// forked (simulate_isolated), so one process may run many.
#include <gtest/gtest.h>

#include "experiments/sync/sync_strategy.hpp"
#include "sim/simulate.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {
namespace {

double simulate_s(const Machine& machine, std::string_view strategy, bool reductions) {
  SyncOptions options;
  options.include_reductions = reductions;
  const SyncPlan plan = make_sync_plan(strategy, machine, options);
  return simulate_isolated(machine, plan.graph).makespan_s;
}

TEST(SyncSimulation, BooksFourGpuServerGives60And80And15Ms) {
  const Machine m = resolve_topology("pcie-switch-4gpu");
  EXPECT_NEAR(simulate_s(m, "tree", false), 0.060, 1e-6);
  EXPECT_NEAR(simulate_s(m, "cpu", false), 0.080, 1e-6);
  EXPECT_NEAR(simulate_s(m, "split", false), 0.015, 1e-6);
  EXPECT_NEAR(simulate_s(m, "ring", false), 2.0 * 3 / 4 * 160e6 / 16e9, 1e-6);
  // Modelled reductions only add time, and less than a transfer phase.
  for (std::string_view s : {"tree", "cpu", "split", "ring"}) {
    const double bare = simulate_s(m, s, false);
    const double full = simulate_s(m, s, true);
    EXPECT_GT(full, bare + 1e-4) << s;
    EXPECT_LT(full, 1.5 * bare) << s;
  }
}

TEST(SyncSimulation, RingBoundCountsTheDuplexBoundOfEachGpusLink) {
  // Each GPU sends to its successor and receives from its predecessor at once: with both
  // directions together at most 24 GB/s (16 GB/s each alone), the ring's 2 x 3/4 x 160 MB
  // each way take 240 MB x 2 / 24 GB/s = 20 ms, not 15.
  Machine m = resolve_topology("pcie-switch-4gpu");
  for (LinkId id = 0; id < m.links().size(); ++id)
    m.mutable_link(id).model.duplex_bytes_per_s = 24e9;
  SyncOptions bare;
  bare.include_reductions = false;
  const SyncPlan ring = make_sync_plan("ring", m, bare);
  EXPECT_NEAR(ring.lower_bound_s, 0.020, 1e-9);
  const double ring_s = simulate_isolated(m, ring.graph).makespan_s;
  EXPECT_GE(ring_s, ring.lower_bound_s * (1 - 1e-9));
  EXPECT_NEAR(ring_s, ring.lower_bound_s, 0.01 * ring.lower_bound_s);
}

TEST(SyncSimulation, Dgx1RingsMeetTheirBounds) {
  Machine m = resolve_topology("dgx1-v100");
  SyncOptions bare;
  bare.include_reductions = false;
  const SyncPlan ring = make_sync_plan("ring", m, bare);
  const double ring_s = simulate_isolated(m, ring.graph).makespan_s;
  EXPECT_NEAR(ring_s, ring.lower_bound_s, 0.01 * ring.lower_bound_s);  // 2*7/8*S/50 GB/s
  // With the default two copy engines per GPU, six concurrent rings queue on them.
  const SyncPlan multi = make_sync_plan("multi-ring", m, bare);
  EXPECT_LT(simulate_isolated(m, multi.graph).makespan_s, 0.9 * ring_s);
  // One copy engine per outbound ring: all six run at once, close to 2*7/8*S/150 GB/s.
  for (DeviceId gpu : m.gpus()) m.mutable_device(gpu).gpu.copy_engines = 6;
  const double multi_s = simulate_isolated(m, multi.graph).makespan_s;
  EXPECT_NEAR(multi_s, multi.lower_bound_s, 0.02 * multi.lower_bound_s);
  EXPECT_LT(multi_s, 0.4 * ring_s);
}

TEST(SyncSimulation, ParameterServerOnTwoServersMeetsItsBound) {
  const Machine m = resolve_topology("cluster-2x4gpu");
  SyncOptions bare;
  bare.include_reductions = false;
  const SyncPlan plan = make_sync_plan("ps", m, bare);
  // 40 ms local + 2 x 64 ms over 10 GbE + 40 ms back.
  EXPECT_NEAR(plan.lower_bound_s, 0.208, 1e-9);
  EXPECT_NEAR(simulate_isolated(m, plan.graph).makespan_s, 0.208, 0.001 * 0.208);
}

}  // namespace
}  // namespace opsim
