#include <gtest/gtest.h>

#include "common/input_error.hpp"
#include "experiments/sync/sync_strategy.hpp"
#include "sync_test_machines.hpp"
#include "sync_test_util.hpp"

namespace opsim {
namespace {

using testing::link_bytes;
using testing::on_link;

using testing::kS;

/// Every op each op waits for, directly or not.
std::vector<std::vector<char>> ancestors(const OpGraph& graph) {
  const auto preds = graph.predecessor_lists();
  std::vector<std::vector<char>> result(graph.size(), std::vector<char>(graph.size(), 0));
  for (OpId id : graph.topological_order())
    for (OpId p : preds[id]) {
      result[id][p] = 1;
      for (OpId q = 0; q < graph.size(); ++q) result[id][q] |= result[p][q];
    }
  return result;
}

TEST(ParameterServer, TwoServersPushAndPullHalfShards) {
  const Machine m = testing::cluster(2, 4);
  const SyncPlan plan = make_sync_plan("ps", m, SyncOptions{});
  plan.graph.validate(m);
  // Local: 3S into the first GPU + S to the CPU = 40 ms; exchange: S/2 in and S/2 out of
  // each server over 12.5 GB/s = 12.8 ms; back: S to the GPU + 3S broadcast = 40 ms.
  EXPECT_NEAR(plan.lower_bound_s, 0.040 + 0.0128 + 0.040, 1e-12);
  const auto bytes = link_bytes(m, plan.graph);
  for (const char* eth : {"eth0", "eth1"}) {
    EXPECT_DOUBLE_EQ(on_link(m, bytes, eth, true), kS) << eth;  // push S/2 + pull served S/2
    EXPECT_DOUBLE_EQ(on_link(m, bytes, eth, false), kS) << eth;
  }
  EXPECT_DOUBLE_EQ(on_link(m, bytes, "s0/pcie_gpu0", false), 3 * kS + kS);  // gathers + h2d
  EXPECT_DOUBLE_EQ(on_link(m, bytes, "s0/pcie_gpu1", true), kS);
  // Reductions: the first GPU of each server adds 4 gradients, each CPU adds 2 half shards.
  const auto reduces = testing::reduces_by_device(plan.graph);
  ASSERT_EQ(reduces.size(), 4u);
  for (const char* device : {"s0/gpu0", "s1/gpu0", "s0/cpu0", "s1/cpu0"})
    EXPECT_EQ(reduces.at(*m.find_device(device)), 1) << device;
  for (OpId id = 0; id < plan.graph.size(); ++id) {
    const Op& op = plan.graph.op(id);
    if (!testing::is_reduce(op)) continue;
    if (m.device(op.device).kind == DeviceKind::kGpu) {
      EXPECT_DOUBLE_EQ(op.flops, 3 * kS / 4);
    } else {
      EXPECT_DOUBLE_EQ(op.flops, (kS / 2) / 4);
    }
  }
}

TEST(ParameterServer, EveryGpuEndsAfterEveryGradientLeftItsGpu) {
  for (bool reductions : {true, false}) {
    const Machine m = testing::cluster(3, 2);
    SyncOptions options;
    options.include_reductions = reductions;
    const SyncPlan plan = make_sync_plan("ps", m, options);
    plan.graph.validate(m);
    const auto before = ancestors(plan.graph);
    std::vector<OpId> sources;  // copies that carry a GPU's own gradient away
    std::vector<OpId> finals;   // the last copy into each GPU
    for (OpId id = 0; id < plan.graph.size(); ++id) {
      const auto name = plan.graph.name(id);
      if (name.starts_with("gather") || name.starts_with("d2h")) sources.push_back(id);
      if (name.starts_with("bcast") || name.starts_with("h2d")) finals.push_back(id);
    }
    EXPECT_EQ(sources.size(), 6u);
    EXPECT_EQ(finals.size(), 6u);
    for (OpId f : finals)
      for (OpId s : sources)
        EXPECT_TRUE(before[f][s]) << plan.graph.name(f) << " vs " << plan.graph.name(s);
    // 3 servers: each CPU pushes 2 shards of S/3 and serves 2 pulls.
    const auto bytes = link_bytes(m, plan.graph);
    EXPECT_NEAR(on_link(m, bytes, "eth1", true), 4 * kS / 3, 1e-3);
    if (!reductions) {
      EXPECT_EQ(testing::count_ops(plan.graph, OpKind::kCompute), 0u);
    } else {
      EXPECT_EQ(testing::reduces_by_device(plan.graph).size(), 6u);
    }
  }
}

TEST(ParameterServer, NeedsTwoServers) {
  const Machine m = testing::cluster(2, 2);
  SyncOptions one_server;
  one_server.gpus = {*m.find_device("s1/gpu0"), *m.find_device("s1/gpu1")};
  try {
    make_sync_plan("ps", m, one_server);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "sync ps: needs GPUs on at least 2 servers, the GPUs given are all on server 'server1'");
  }
  // One GPU per server still works: nothing to gather locally.
  SyncOptions spread;
  spread.gpus = {*m.find_device("s0/gpu1"), *m.find_device("s1/gpu0")};
  const SyncPlan plan = make_sync_plan("ps", m, spread);
  plan.graph.validate(m);
  EXPECT_EQ(testing::count_ops(plan.graph, OpKind::kCopy), 8u);  // d2h, push, pull, h2d per server
}

}  // namespace
}  // namespace opsim
