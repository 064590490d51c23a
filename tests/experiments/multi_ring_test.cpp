#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>

#include "common/input_error.hpp"
#include "experiments/sync/nvlink_cycles.hpp"
#include "experiments/sync/sync_strategy.hpp"
#include "sync_test_machines.hpp"
#include "sync_test_util.hpp"

namespace opsim {
namespace {

using testing::kS;

int ring_of(std::string_view name) {
  EXPECT_TRUE(name.starts_with("r")) << name;
  return std::stoi(std::string(name.substr(1, name.find(' ') - 1)));
}

void expect_valid_cycles(const sync::GpuLinkGraph& graph, const std::vector<sync::Cycle>& cycles) {
  std::vector<int> used(graph.pair_count(), 0);
  for (const auto& cycle : cycles) {
    ASSERT_EQ(cycle.size(), graph.size());
    EXPECT_EQ(std::set<std::uint32_t>(cycle.begin(), cycle.end()).size(), graph.size());
    for (std::size_t i = 0; i < cycle.size(); ++i) {
      const std::uint32_t pair = graph.pair_of(cycle[i], cycle[(i + 1) % cycle.size()]);
      ASSERT_NE(pair, UINT32_MAX) << "no link " << cycle[i] << "-" << cycle[(i + 1) % cycle.size()];
      ++used[pair];
    }
  }
  for (std::uint32_t p = 0; p < graph.pair_count(); ++p) EXPECT_LE(used[p], graph.multiplicity(p));
}

/// GPUs joined by NVLink exactly along `edges` (plus a PCIe switch), `bytes_per_s` per
/// NVLink; a pair listed twice gets one link of count 2 (bonded, as routes use one link).
Machine nvlink_graph(int gpus, const std::vector<std::pair<int, int>>& edges,
                     double bytes_per_s = 25e9) {
  std::map<std::pair<int, int>, int> counts;
  for (const auto& edge : edges) ++counts[edge];
  Machine m("nvgraph");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId sw = m.add_switch("sw");
  m.add_link("pcie_cpu0", cpu, sw, LinkModel::pcie(3, 16));
  std::vector<DeviceId> g;
  for (int i = 0; i < gpus; ++i) {
    g.push_back(m.add_gpu("gpu" + std::to_string(i), GpuModel{}));
    m.add_link("pcie_gpu" + std::to_string(i), g.back(), sw, LinkModel::pcie(3, 16));
  }
  for (const auto& [edge, count] : counts) {
    const auto [a, b] = edge;
    LinkModel link = LinkModel::nvlink(2, count);
    link.bytes_per_s = bytes_per_s * count;
    m.add_link("nv" + std::to_string(a) + "_" + std::to_string(b), g[a], g[b], link);
  }
  m.seal();
  return m;
}

TEST(NvlinkCycles, PetersenGraphHasNoHamiltonianCycle) {
  // 3-regular and connected, so only the search itself can tell.
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < 5; ++i) {
    edges.push_back({i, (i + 1) % 5});
    edges.push_back({i, i + 5});
    edges.push_back({i + 5, (i + 2) % 5 + 5});
  }
  const Machine m = nvlink_graph(10, edges);
  bool gave_up = true;
  EXPECT_TRUE(
      sync::find_disjoint_hamiltonian_cycles(sync::GpuLinkGraph(m, m.gpus()), &gave_up).empty());
  EXPECT_FALSE(gave_up);
  EXPECT_THROW(make_sync_plan("multi-ring", m, SyncOptions{}), InputError);
  // ring falls back to the given order, over the PCIe switch where no NVLink joins neighbours.
  const SyncPlan ring = make_sync_plan("ring", m, SyncOptions{});
  ring.graph.validate(m);
  EXPECT_NE(ring.summary.find("ring in the given order"), std::string::npos) << ring.summary;
  EXPECT_NEAR(ring.lower_bound_s, 2.0 * 9 / 10 * kS / LinkModel::pcie(3, 16).bytes_per_s, 1e-12);
  testing::expect_allreduce(m, ring.graph, m.gpus(), 1, 10);
  // A plain 10-GPU NVLink ring has exactly one.
  std::vector<std::pair<int, int>> cycle;
  for (int i = 0; i < 10; ++i) cycle.push_back({i, (i + 1) % 10});
  const Machine c = nvlink_graph(10, cycle);
  EXPECT_EQ(sync::find_disjoint_hamiltonian_cycles(sync::GpuLinkGraph(c, c.gpus())).size(), 1u);
}

TEST(MultiRing, BooksDgx1ArithmeticWithOneDirectionPerCycle) {
  // The book: 8 V100, NVLinks of 18 GB/s, rings worth 3 x 18 GB/s, 160 MB: 2(n-1)/n * S /
  // 54 GB/s = 5.19 ms; running each cycle both ways doubles the bandwidth.
  const Machine dgx = testing::dgx1();
  std::vector<std::pair<int, int>> edges;
  for (const Link& link : dgx.links())
    if (link.model.kind == LinkKind::kNvlink)
      for (int k = 0; k < link.model.count; ++k)
        edges.push_back({std::stoi(dgx.device(link.a).name.substr(3)),
                         std::stoi(dgx.device(link.b).name.substr(3))});
  ASSERT_EQ(edges.size(), 24u);  // six NVLinks per GPU
  const Machine m = nvlink_graph(8, edges, 18e9);
  SyncOptions one_way;
  one_way.multi_ring_both_directions = false;
  const SyncPlan book = make_sync_plan("multi-ring", m, one_way);
  book.graph.validate(m);
  EXPECT_NEAR(book.lower_bound_s, 2.0 * 7 / 8 * kS / 54e9, 1e-12);
  EXPECT_NEAR(book.lower_bound_s * 1e3, 5.185, 1e-3);
  const SyncPlan both = make_sync_plan("multi-ring", m, SyncOptions{});
  EXPECT_NEAR(both.lower_bound_s, 2.0 * 7 / 8 * kS / 108e9, 1e-12);
  testing::expect_allreduce(m, book.graph, m.gpus(), 3, 8);
}

TEST(MultiRing, RingOnNvlinkLessSubsetOfDgx1CrossesSocketsAndBoundSeesQpi) {
  // gpu0, gpu5, gpu2, gpu7: only 0-2 and 5-7 are NVLinked, so no cycle; the given order
  // crosses the 20 GB/s inter-socket link twice in each direction.
  const Machine m = testing::dgx1();
  SyncOptions options;
  for (const char* name : {"gpu0", "gpu5", "gpu2", "gpu7"})
    options.gpus.push_back(*m.find_device(name));
  EXPECT_THROW(make_sync_plan("multi-ring", m, options), InputError);
  const SyncPlan ring = make_sync_plan("ring", m, options);
  ring.graph.validate(m);
  const auto bytes = testing::link_bytes(m, ring.graph);
  EXPECT_DOUBLE_EQ(testing::on_link(m, bytes, "qpi", true), 2 * 1.5 * kS);
  EXPECT_DOUBLE_EQ(ring.lower_bound_s, 2 * 1.5 * kS / 20e9);  // not the per-hop 15.2 ms
  testing::expect_allreduce(m, ring.graph, options.gpus, 1, 4);
}

TEST(NvlinkCycles, Dgx1MeshHasThreeDisjointHamiltonianCycles) {
  const Machine m = testing::dgx1();
  const auto start = std::chrono::steady_clock::now();
  const sync::GpuLinkGraph graph(m, m.gpus());
  EXPECT_EQ(graph.pair_count(), 16u);
  int units = 0;
  for (std::uint32_t p = 0; p < graph.pair_count(); ++p) units += graph.multiplicity(p);
  EXPECT_EQ(units, 24);  // six NVLinks per GPU
  const auto cycles = sync::find_disjoint_hamiltonian_cycles(graph);
  const auto widest = sync::find_widest_hamiltonian_cycle(graph);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(ms, 100.0);
  ASSERT_EQ(cycles.size(), 3u);  // 24 link units / 8 per cycle: every NVLink busy
  expect_valid_cycles(graph, cycles);
  ASSERT_EQ(widest.size(), 8u);
  expect_valid_cycles(graph, {widest});
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_DOUBLE_EQ(graph.width_bytes_per_s(graph.pair_of(widest[i], widest[(i + 1) % 8])), 50e9);
}

TEST(NvlinkCycles, QuadUsesDoubledLinksTwice) {
  // GPUs 0-3 of a DGX-1: K4 with 0-3, 1-2 and 2-3 doubled; two disjoint cycles exist, and
  // only by using a doubled pair in both.
  const Machine m = testing::dgx1();
  const std::vector<DeviceId> all = m.gpus();
  const std::vector<DeviceId> quad(all.begin(), all.begin() + 4);
  const sync::GpuLinkGraph graph(m, quad);
  const auto cycles = sync::find_disjoint_hamiltonian_cycles(graph);
  ASSERT_EQ(cycles.size(), 2u);
  expect_valid_cycles(graph, cycles);
}

TEST(NvlinkCycles, NoCycleWithoutDirectLinks) {
  const Machine m = testing::switch_server();
  const sync::GpuLinkGraph graph(m, m.gpus());
  EXPECT_EQ(graph.pair_count(), 0u);
  EXPECT_TRUE(sync::find_disjoint_hamiltonian_cycles(graph).empty());
  EXPECT_TRUE(sync::find_widest_hamiltonian_cycle(graph).empty());
}

TEST(MultiRing, Dgx1RunsSixDirectedRingsOverAllNvlinks) {
  const Machine m = testing::dgx1();
  const SyncPlan plan = make_sync_plan("multi-ring", m, SyncOptions{});
  plan.graph.validate(m);
  const std::size_t n = 8;
  // ring -> (link, direction) use; ring -> bytes
  std::map<std::pair<LinkId, bool>, std::set<int>> rings_on;
  std::map<int, double> ring_bytes;
  double total_bytes = 0;
  for (OpId id = 0; id < plan.graph.size(); ++id) {
    const Op& op = plan.graph.op(id);
    const int ring = ring_of(plan.graph.name(id));
    EXPECT_EQ(op.stream, ring) << plan.graph.name(id);
    if (op.kind != OpKind::kCopy) continue;
    const auto hops = m.route(op.device, op.peer);
    ASSERT_EQ(hops.size(), 1u) << plan.graph.name(id);
    EXPECT_EQ(m.link(hops[0].link).model.kind, LinkKind::kNvlink);
    rings_on[{hops[0].link, hops[0].forward}].insert(ring);
    ring_bytes[ring] += op.bytes;
    total_bytes += op.bytes;
  }
  EXPECT_EQ(ring_bytes.size(), 6u);
  EXPECT_EQ(rings_on.size(), 32u);  // every NVLink pair, both directions
  for (const auto& [hop, rings] : rings_on)
    EXPECT_EQ(static_cast<int>(rings.size()), m.link(hop.first).model.count)
        << m.link(hop.first).name;
  // Each NVLink unit gives 25 GB/s: six rings of 25 GB/s share S equally.
  for (const auto& [ring, bytes] : ring_bytes)
    EXPECT_NEAR(bytes, 2.0 * (n - 1) * kS / 6, 1.0) << ring;
  EXPECT_NEAR(total_bytes, 2.0 * (n - 1) * kS, 1.0);
  EXPECT_NEAR(plan.lower_bound_s, 2.0 * 7 / 8 * kS / 150e9, 1e-12);
  // Clearly better than one ring over the doubled NVLink cycle.
  const SyncPlan ring = make_sync_plan("ring", m, SyncOptions{});
  EXPECT_NEAR(ring.lower_bound_s / plan.lower_bound_s, 3.0, 1e-9);
  // Reductions: (n-1) per GPU per ring, on the receiving GPU.
  const auto reduces = testing::reduces_by_device(plan.graph);
  ASSERT_EQ(reduces.size(), n);
  for (const auto& [device, count] : reduces) EXPECT_EQ(count, 6 * 7) << m.device(device).name;
  testing::expect_allreduce(m, plan.graph, m.gpus(), 6, n);
  EXPECT_NE(plan.summary.find("3 disjoint NVLink cycles, 6 directed rings"), std::string::npos)
      << plan.summary;

  SyncOptions bare;
  bare.include_reductions = false;
  const SyncPlan comm = make_sync_plan("multi-ring", m, bare);
  EXPECT_TRUE(testing::reduces_by_device(comm.graph).empty());
  EXPECT_EQ(comm.graph.size(), 6 * 2 * (n - 1) * n);
  testing::expect_allreduce(m, comm.graph, m.gpus(), 6, n);
}

TEST(MultiRing, TwoGpusWithADoubledLinkMakeTwoRings) {
  Machine m("pair");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId sw = m.add_switch("sw");
  m.add_link("pcie_cpu0", cpu, sw, LinkModel::pcie(3, 16));
  const DeviceId a = m.add_gpu("gpu0", GpuModel{});
  const DeviceId b = m.add_gpu("gpu1", GpuModel{});
  m.add_link("pcie_gpu0", a, sw, LinkModel::pcie(3, 16));
  m.add_link("pcie_gpu1", b, sw, LinkModel::pcie(3, 16));
  m.add_link("nvlink01", a, b, LinkModel::nvlink(2, 2));
  m.seal();
  const SyncPlan plan = make_sync_plan("multi-ring", m, SyncOptions{});
  plan.graph.validate(m);
  std::set<int> rings;
  for (OpId id = 0; id < plan.graph.size(); ++id) rings.insert(ring_of(plan.graph.name(id)));
  EXPECT_EQ(rings.size(), 2u);
  EXPECT_DOUBLE_EQ(plan.lower_bound_s, kS / 50e9);
  testing::expect_allreduce(m, plan.graph, m.gpus(), 2, 2);
}

TEST(MultiRing, RejectsPcieOnlyMachines) {
  const Machine m = testing::switch_server();
  try {
    make_sync_plan("multi-ring", m, SyncOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "sync multi-ring: no Hamiltonian cycle over direct GPU-GPU links (NVLink) through "
              "the 4 GPUs of machine 'book-4gpu'");
  }
}

}  // namespace
}  // namespace opsim
