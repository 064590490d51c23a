#include "experiments/sync/sync_strategy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <set>

#include "common/input_error.hpp"
#include "sync_test_machines.hpp"
#include "sync_test_util.hpp"

namespace opsim {
namespace {

using testing::link_bytes;
using testing::on_link;

using testing::kS;

SyncOptions comm_only() {
  SyncOptions options;
  options.include_reductions = false;
  return options;
}

TEST(SyncStrategy, NamesInTheBooksOrder) {
  const std::vector<std::string_view> expected = {"tree", "cpu",        "split",
                                                  "ring", "multi-ring", "ps"};
  EXPECT_EQ(sync_strategy_names(), expected);
}

TEST(SyncStrategy, TreeGathersOnGpu0AndBroadcasts) {
  const Machine m = testing::switch_server();
  const SyncPlan plan = make_sync_plan("tree", m, SyncOptions{});
  plan.graph.validate(m);
  EXPECT_DOUBLE_EQ(plan.lower_bound_s, 0.060);  // 3S/B + 3S/B
  EXPECT_EQ(testing::count_ops(plan.graph, OpKind::kCopy), 6u);
  const auto bytes = link_bytes(m, plan.graph);
  // pcie_gpuI joins gpuI (a) to the switch (b): forward is out of the GPU.
  EXPECT_DOUBLE_EQ(on_link(m, bytes, "pcie_gpu0", false), 3 * kS);
  EXPECT_DOUBLE_EQ(on_link(m, bytes, "pcie_gpu0", true), 3 * kS);
  for (const char* link : {"pcie_gpu1", "pcie_gpu2", "pcie_gpu3"}) {
    EXPECT_DOUBLE_EQ(on_link(m, bytes, link, true), kS) << link;
    EXPECT_DOUBLE_EQ(on_link(m, bytes, link, false), kS) << link;
  }
  EXPECT_DOUBLE_EQ(on_link(m, bytes, "pcie_cpu0", true), 0.0);
  // One reduce of 4 buffers of S on gpu0: 3S/4 flops, 5S bytes; every broadcast waits on it.
  const auto reduces = testing::reduces_by_device(plan.graph);
  ASSERT_EQ(reduces.size(), 1u);
  EXPECT_EQ(reduces.begin()->first, *m.find_device("gpu0"));
  for (OpId id = 0; id < plan.graph.size(); ++id) {
    const Op& op = plan.graph.op(id);
    if (testing::is_reduce(op)) {
      EXPECT_DOUBLE_EQ(op.flops, 3 * kS / 4);
      EXPECT_DOUBLE_EQ(op.bytes, 5 * kS);
      EXPECT_EQ(plan.graph.in_degree(id), 3u);
      EXPECT_EQ(plan.graph.successors(id).size(), 3u);
    }
  }
  EXPECT_NE(plan.summary.find("60.000 ms"), std::string::npos) << plan.summary;
}

TEST(SyncStrategy, CommOnlyLeavesReductionsOutButKeepsTheOrder) {
  const Machine m = testing::switch_server();
  for (std::string_view name : {"tree", "cpu", "split", "ring"}) {
    const SyncPlan plan = make_sync_plan(name, m, comm_only());
    plan.graph.validate(m);
    EXPECT_TRUE(testing::reduces_by_device(plan.graph).empty()) << name;
    EXPECT_EQ(testing::count_ops(plan.graph, OpKind::kCompute), 0u) << name;
  }
  // tree: each broadcast waits directly for the three gathers.
  const SyncPlan tree = make_sync_plan("tree", m, comm_only());
  const auto preds = tree.graph.predecessor_lists();
  int broadcasts = 0;
  for (OpId id = 0; id < tree.graph.size(); ++id)
    if (tree.graph.name(id).starts_with("bcast")) {
      ++broadcasts;
      EXPECT_EQ(preds[id].size(), 3u);
      for (OpId p : preds[id]) EXPECT_TRUE(tree.graph.name(p).starts_with("gather"));
    }
  EXPECT_EQ(broadcasts, 3);
  EXPECT_DOUBLE_EQ(tree.lower_bound_s, 0.060);
}

TEST(SyncStrategy, CpuAggregatesOnTheHostCpu) {
  const Machine m = testing::switch_server();
  const SyncPlan plan = make_sync_plan("cpu", m, SyncOptions{});
  plan.graph.validate(m);
  EXPECT_DOUBLE_EQ(plan.lower_bound_s, 0.080);  // 4S/B + 4S/B
  const auto bytes = link_bytes(m, plan.graph);
  EXPECT_DOUBLE_EQ(on_link(m, bytes, "pcie_cpu0", false), 4 * kS);  // switch -> cpu
  EXPECT_DOUBLE_EQ(on_link(m, bytes, "pcie_cpu0", true), 4 * kS);
  for (const char* link : {"pcie_gpu0", "pcie_gpu1", "pcie_gpu2", "pcie_gpu3"}) {
    EXPECT_DOUBLE_EQ(on_link(m, bytes, link, true), kS) << link;
    EXPECT_DOUBLE_EQ(on_link(m, bytes, link, false), kS) << link;
  }
  const auto reduces = testing::reduces_by_device(plan.graph);
  ASSERT_EQ(reduces.size(), 1u);
  EXPECT_EQ(reduces.begin()->first, *m.find_device("cpu0"));
  EXPECT_EQ(testing::count_ops(plan.graph, OpKind::kCopy), 8u);
}

TEST(SyncStrategy, CpuPicksTheSocketTheGpusHangOff) {
  const Machine m = testing::dgx1();
  SyncOptions upper;
  for (const char* name : {"gpu4", "gpu5", "gpu6", "gpu7"})
    upper.gpus.push_back(*m.find_device(name));
  const SyncPlan plan = make_sync_plan("cpu", m, upper);
  plan.graph.validate(m);
  const auto reduces = testing::reduces_by_device(plan.graph);
  ASSERT_EQ(reduces.size(), 1u);
  EXPECT_EQ(m.device(reduces.begin()->first).name, "cpu1");
  // Nothing crosses the inter-socket link.
  const auto bytes = link_bytes(m, plan.graph);
  EXPECT_DOUBLE_EQ(on_link(m, bytes, "qpi", true) + on_link(m, bytes, "qpi", false), 0.0);
  // Two GPUs per switch: each switch up-link carries 2S each way; 32 GB / 15.76 GB/s.
  EXPECT_NEAR(plan.lower_bound_s, 2 * (2 * kS) / LinkModel::pcie(3, 16).bytes_per_s, 1e-12);
}

TEST(SyncStrategy, SplitMovesAQuarterEachWayPerPhase) {
  const Machine m = testing::switch_server();
  const SyncPlan plan = make_sync_plan("split", m, SyncOptions{});
  plan.graph.validate(m);
  EXPECT_DOUBLE_EQ(plan.lower_bound_s, 0.015);
  EXPECT_EQ(testing::count_ops(plan.graph, OpKind::kCopy), 24u);
  const auto bytes = link_bytes(m, plan.graph);
  for (const char* link : {"pcie_gpu0", "pcie_gpu1", "pcie_gpu2", "pcie_gpu3"}) {
    // (n-1)/n * S in each phase, each way.
    EXPECT_DOUBLE_EQ(on_link(m, bytes, link, true), 2 * 0.75 * kS) << link;
    EXPECT_DOUBLE_EQ(on_link(m, bytes, link, false), 2 * 0.75 * kS) << link;
  }
  const auto reduces = testing::reduces_by_device(plan.graph);
  ASSERT_EQ(reduces.size(), 4u);
  for (const auto& [device, count] : reduces) EXPECT_EQ(count, 1) << m.device(device).name;
  for (OpId id = 0; id < plan.graph.size(); ++id)
    if (testing::is_reduce(plan.graph.op(id))) {
      EXPECT_DOUBLE_EQ(plan.graph.op(id).flops, 3 * (kS / 4) / 4);
    }
  testing::expect_allreduce(m, plan.graph, m.gpus(), 1, 4);
  testing::expect_allreduce(m, make_sync_plan("split", m, comm_only()).graph, m.gpus(), 1, 4);
}

TEST(SyncStrategy, RingSendsChunksAroundTheGivenOrder) {
  const Machine m = testing::switch_server();
  const auto gpus = m.gpus();
  const SyncPlan plan = make_sync_plan("ring", m, SyncOptions{});
  plan.graph.validate(m);
  const std::size_t n = 4;
  EXPECT_DOUBLE_EQ(plan.lower_bound_s, 2.0 * (n - 1) / n * kS / 16e9);  // 15 ms
  std::map<std::pair<DeviceId, DeviceId>, int> sends;
  for (OpId id = 0; id < plan.graph.size(); ++id) {
    const Op& op = plan.graph.op(id);
    if (op.kind != OpKind::kCopy) continue;
    EXPECT_DOUBLE_EQ(op.bytes, kS / n);
    ++sends[{op.device, op.peer}];
  }
  ASSERT_EQ(sends.size(), n);  // only ring neighbours talk
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ((sends[{gpus[i], gpus[(i + 1) % n]}]), 2 * (n - 1));
  // One reduce per reduce-scatter receive: (n-1) per GPU.
  const auto reduces = testing::reduces_by_device(plan.graph);
  ASSERT_EQ(reduces.size(), n);
  for (const auto& [device, count] : reduces) EXPECT_EQ(count, static_cast<int>(n - 1));
  testing::expect_allreduce(m, plan.graph, gpus, 1, n);

  // Without reductions each send after the first step waits for exactly one receive into
  // its source GPU.
  const SyncPlan bare = make_sync_plan("ring", m, comm_only());
  EXPECT_EQ(testing::count_ops(bare.graph, OpKind::kCopy), 2 * (n - 1) * n);
  const auto preds = bare.graph.predecessor_lists();
  for (OpId id = 0; id < bare.graph.size(); ++id) {
    if (preds[id].empty()) continue;
    ASSERT_EQ(preds[id].size(), 1u) << bare.graph.name(id);
    EXPECT_EQ(bare.graph.op(preds[id][0]).peer, bare.graph.op(id).device) << bare.graph.name(id);
  }
  testing::expect_allreduce(m, bare.graph, gpus, 1, n);
}

TEST(SyncStrategy, RingFollowsTheGivenGpuSubsetAndOrder) {
  const Machine m = testing::switch_server(6);
  SyncOptions options;
  options.gpus = {*m.find_device("gpu5"), *m.find_device("gpu1"), *m.find_device("gpu3")};
  const SyncPlan plan = make_sync_plan("ring", m, options);
  plan.graph.validate(m);
  std::set<std::pair<DeviceId, DeviceId>> hops;
  for (OpId id = 0; id < plan.graph.size(); ++id)
    if (plan.graph.op(id).kind == OpKind::kCopy)
      hops.insert({plan.graph.op(id).device, plan.graph.op(id).peer});
  const std::set<std::pair<DeviceId, DeviceId>> expected = {{options.gpus[0], options.gpus[1]},
                                                            {options.gpus[1], options.gpus[2]},
                                                            {options.gpus[2], options.gpus[0]}};
  EXPECT_EQ(hops, expected);
  testing::expect_allreduce(m, plan.graph, options.gpus, 1, 3);
}

TEST(SyncStrategy, RingOnDgx1UsesTheDoubledNvlinkCycle) {
  const Machine m = testing::dgx1();
  const SyncPlan plan = make_sync_plan("ring", m, SyncOptions{});
  plan.graph.validate(m);
  for (OpId id = 0; id < plan.graph.size(); ++id) {
    const Op& op = plan.graph.op(id);
    if (op.kind != OpKind::kCopy) continue;
    const auto hops = m.route(op.device, op.peer);
    ASSERT_EQ(hops.size(), 1u) << plan.graph.name(id);
    EXPECT_EQ(m.link(hops[0].link).model.kind, LinkKind::kNvlink);
    EXPECT_EQ(m.link(hops[0].link).model.count, 2) << m.link(hops[0].link).name;
  }
  EXPECT_NEAR(plan.lower_bound_s, 2.0 * 7 / 8 * kS / 50e9, 1e-12);
  testing::expect_allreduce(m, plan.graph, m.gpus(), 1, 8);
}

TEST(SyncStrategy, TwoGpuRing) {
  const Machine m = testing::switch_server(2);
  const SyncPlan plan = make_sync_plan("ring", m, SyncOptions{});
  plan.graph.validate(m);
  EXPECT_EQ(testing::count_ops(plan.graph, OpKind::kCopy), 4u);
  EXPECT_DOUBLE_EQ(plan.lower_bound_s, kS / 16e9);  // 2(n-1)/n = 1
  testing::expect_allreduce(m, plan.graph, m.gpus(), 1, 2);
}

TEST(SyncStrategy, SplitAndTreeBoundsSeeSharedUplinks) {
  // Two leaf switches of two GPUs: split's cross-switch chunks share the leaf uplinks.
  const Machine m = testing::pcie_tree(2, 2);
  const SyncPlan split = make_sync_plan("split", m, comm_only());
  split.graph.validate(m);
  // Each uplink carries, per phase, 2 GPUs x 2 remote owners x S/4 = S each way.
  const auto bytes = link_bytes(m, split.graph);
  EXPECT_DOUBLE_EQ(on_link(m, bytes, "up0", true), 2 * kS);
  EXPECT_DOUBLE_EQ(split.lower_bound_s, 2 * kS / 16e9);  // up0 carries 2S one way
  testing::expect_allreduce(m, split.graph, m.gpus(), 1, 4);
}

TEST(SyncStrategy, RejectsBadInputWithOneLine) {
  const Machine m = testing::switch_server();
  auto message = [&](std::string_view strategy, const Machine& machine,
                     const SyncOptions& options) {
    try {
      make_sync_plan(strategy, machine, options);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto expect_one_line = [](const std::string& text, const std::string& part) {
    EXPECT_NE(text.find(part), std::string::npos) << text;
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  };
  expect_one_line(message("butterfly", m, {}), "unknown strategy 'butterfly'");
  expect_one_line(message("butterfly", m, {}), "tree, cpu, split, ring, multi-ring, ps");
  SyncOptions one;
  one.gpus = {*m.find_device("gpu2")};
  for (std::string_view s : sync_strategy_names())
    expect_one_line(message(s, m, one), "at least 2 GPUs");
  expect_one_line(message("ring", testing::switch_server(1), {}), "at least 2 GPUs");
  expect_one_line(message("ps", m, {}), "at least 2 servers");
  expect_one_line(message("multi-ring", m, {}), "no Hamiltonian cycle");
  SyncOptions not_gpu;
  not_gpu.gpus = {*m.find_device("gpu0"), *m.find_device("cpu0")};
  expect_one_line(message("tree", m, not_gpu), "'cpu0' is not a GPU");
  SyncOptions twice;
  twice.gpus = {*m.find_device("gpu0"), *m.find_device("gpu0")};
  expect_one_line(message("split", m, twice), "listed twice");
  SyncOptions unknown;
  unknown.gpus = {*m.find_device("gpu0"), 999};
  expect_one_line(message("ring", m, unknown), "device #999");
  expect_one_line(message("split", testing::pcie_tree(32, 16), comm_only()),
                  "without reductions 512 GPUs need 133693952 dependencies");
  SyncOptions empty;
  empty.bytes = 0;
  expect_one_line(message("tree", m, empty), "positive number of bytes");
  empty.bytes = std::nan("");
  expect_one_line(message("ring", m, empty), "positive number of bytes");
}

TEST(SyncStrategy, Ring1024GpusBuildsFast) {
  const Machine m = testing::pcie_tree(64, 16);
  ASSERT_EQ(m.gpus().size(), 1024u);
  {
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    const SyncPlan plan = make_sync_plan("ring", m, comm_only());
    const double cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(plan.graph.size(), 2'095'104u);
    EXPECT_EQ(testing::count_ops(plan.graph, OpKind::kCopy), 2'095'104u);
    EXPECT_EQ(plan.graph.dependency_count(), 2'095'104u - 1024u);
    EXPECT_EQ(plan.graph.name(2'095'103), "ag s2045 c2");
    EXPECT_EQ(m.device(plan.graph.op(2'095'103).device).name, "gpu1023");
    EXPECT_EQ(m.device(plan.graph.op(2'095'103).peer).name, "gpu0");
    std::size_t longest = 0;
    for (OpId id = 0; id < plan.graph.size(); ++id)
      longest = std::max(longest, plan.graph.name(id).size());
    EXPECT_LE(longest, 32u);  // short names: the graph pools them
    // Leaf-internal hops use only the GPUs' links, crossing hops one up-link each way, so
    // the ring formula holds.
    EXPECT_NEAR(plan.lower_bound_s, 2.0 * 1023 / 1024 * kS / 16e9, 1e-12);
    // Speed is measured by bench/sim_ring_bench, not asserted here.
    std::cout << "1024-GPU ring (comm only): " << cpu_s << " s CPU, " << seconds
              << " s wall to build\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const SyncPlan full = make_sync_plan("ring", m, SyncOptions{});
  std::cout << "1024-GPU ring with reductions: "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s to build, " << full.graph.size() << " ops\n";
  EXPECT_EQ(full.graph.size(), 2'095'104u + 1023u * 1024u);
  EXPECT_EQ(full.graph.dependency_count(), 2'095'104u - 1024u + 1023u * 1024u);
}

}  // namespace
}  // namespace opsim
