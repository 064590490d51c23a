#include "gui/topology_graph.hpp"

#include <gtest/gtest.h>

#include "gui/topology_view.hpp"
#include "test_traces.hpp"

namespace opsim::gui {
namespace {

TEST(TopologyGraph, RecoversTheSwitchTreeFromATrace) {
  const TopologyGraph g = infer_topology(*testing::tree_trace());
  ASSERT_EQ(g.nodes.size(), 6u);  // gpu0..3, cpu0, server0 fabric
  const int fabric = g.find("server0 fabric");
  ASSERT_GE(fabric, 0);
  EXPECT_EQ(g.nodes[static_cast<std::size_t>(g.find("gpu2"))].kind, TopologyGraph::NodeKind::kGpu);
  EXPECT_EQ(g.nodes[static_cast<std::size_t>(g.find("cpu0"))].kind, TopologyGraph::NodeKind::kCpu);
  ASSERT_EQ(g.edges.size(), 5u);
  for (const auto& e : g.edges) {
    EXPECT_EQ(e.lanes.size(), 2u) << e.link;  // up and down
    EXPECT_EQ(e.b, fabric) << e.link;
    EXPECT_DOUBLE_EQ(e.capacity_bytes_per_s, 16e9);
  }
  EXPECT_EQ(g.edges[0].link, "pcie_gpu0");
  EXPECT_EQ(g.edges[0].a, g.find("gpu0"));
  for (const auto& n : g.nodes) {
    EXPECT_GE(n.x, 0);
    EXPECT_LE(n.x, 1);
    EXPECT_GE(n.y, 0);
    EXPECT_LE(n.y, 1);
  }
}

TEST(TopologyGraph, DirectLinksJoinTheDevicesTheyName) {
  Trace t;
  t.lanes.push_back({"gpu1/compute0", "s", "gpu1", LaneKind::kCompute, 0});
  t.lanes.push_back({"gpu10/compute0", "s", "gpu10", LaneKind::kCompute, 0});
  t.lanes.push_back({"nvlink_gpu1_gpu10 up", "s", "nvlink_gpu1_gpu10", LaneKind::kLink, 25e9});
  t.lanes.push_back({"mystery up", "s", "mystery", LaneKind::kLink, 1e9});
  t.ops.push_back({"c", "copy", "gpu10", "gpu1", 0, 1, 0, 0, 10});
  t.link_spans.push_back({0, 3, 0, 10});
  const TopologyGraph g = infer_topology(t);
  ASSERT_EQ(g.edges.size(), 2u);
  EXPECT_EQ(g.edges[0].a, g.find("gpu1"));
  EXPECT_EQ(g.edges[0].b, g.find("gpu10"));
  // "mystery" names no device: its ends are the devices every copy over it touched.
  EXPECT_EQ(g.edges[1].a, g.find("gpu1"));
  EXPECT_EQ(g.edges[1].b, g.find("gpu10"));
}

TEST(TopologyView, ColoursLinksByUtilizationOverTheRange) {
  TopologyView view;
  auto model = std::make_shared<TimelineModel>(testing::tree_trace());
  view.show_trace(model, "tree", std::make_pair(0.0, 30e6));
  const auto& g = view.graph();
  ASSERT_EQ(view.edge_utilization().size(), g.edges.size());
  // pcie_gpu0 down is full for the first 30 ms; pcie_cpu0 idle.
  EXPECT_NEAR(view.edge_utilization()[0], 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(view.edge_utilization()[4], 0.0);
  EXPECT_NE(utilization_color(1.0), utilization_color(0.0));
  view.resize(700, 360);
  EXPECT_FALSE(view.grab().isNull());
}

}  // namespace
}  // namespace opsim::gui

namespace opsim::gui {
namespace {

TEST(TopologyGraph, LaneNamesWithEndsGiveTheExactGraph) {
  // The engine's recorder names link lanes "LINK FROM→TO".
  Trace t;
  t.lanes.push_back({"gpu0/compute0", "box", "gpu0", LaneKind::kCompute, 0});
  t.lanes.push_back({"gpu1/compute0", "box", "gpu1", LaneKind::kCompute, 0});
  t.lanes.push_back({"cpu0/host", "box", "cpu0", LaneKind::kHost, 0});
  t.lanes.push_back({"pcie_gpu0 gpu0\u2192sw0", "box", "pcie_gpu0", LaneKind::kLink, 16e9});
  t.lanes.push_back({"pcie_gpu0 sw0\u2192gpu0", "box", "pcie_gpu0", LaneKind::kLink, 16e9});
  t.lanes.push_back({"pcie_gpu1 gpu1\u2192sw0", "box", "pcie_gpu1", LaneKind::kLink, 16e9});
  t.lanes.push_back({"uplink sw0\u2192cpu0", "box", "uplink", LaneKind::kLink, 32e9});
  const TopologyGraph g = infer_topology(t);
  ASSERT_EQ(g.nodes.size(), 4u);  // gpu0, gpu1, cpu0, sw0 (no invented fabric)
  const int sw = g.find("sw0");
  ASSERT_GE(sw, 0);
  EXPECT_EQ(g.nodes[static_cast<std::size_t>(sw)].kind, TopologyGraph::NodeKind::kFabric);
  ASSERT_EQ(g.edges.size(), 3u);
  EXPECT_EQ(g.edges[0].lanes.size(), 2u);
  EXPECT_EQ(g.edges[0].a, g.find("gpu0"));
  EXPECT_EQ(g.edges[0].b, sw);
  EXPECT_EQ(g.edges[2].a, sw);
  EXPECT_EQ(g.edges[2].b, g.find("cpu0"));
  EXPECT_DOUBLE_EQ(g.nodes[static_cast<std::size_t>(sw)].x, 0.5);  // the switch sits in the middle
}

}  // namespace
}  // namespace opsim::gui

namespace opsim::gui {
namespace {

// 64 GPUs behind 16 PCIe switches (4 each) under a root switch, as the engine names lanes.
Trace switch_tree_trace(int gpus) {
  Trace t;
  for (int g = 0; g < gpus; ++g) {
    const std::string d = "gpu" + std::to_string(g);
    t.lanes.push_back({d + "/compute0", "server0", d, LaneKind::kCompute, 0});
  }
  for (int g = 0; g < gpus; ++g) {
    const std::string d = "gpu" + std::to_string(g), sw = "sw" + std::to_string(g / 4);
    t.lanes.push_back(
        {"pcie_" + d + " " + d + "→" + sw, "server0", "pcie_" + d, LaneKind::kLink, 16e9});
  }
  for (int s = 0; s < gpus / 4; ++s) {
    const std::string sw = "sw" + std::to_string(s);
    t.lanes.push_back(
        {"pcie_" + sw + " " + sw + "→root", "server0", "pcie_" + sw, LaneKind::kLink, 16e9});
  }
  return t;
}

TEST(TopologyGraph, GpusSitOnAGridGroupedByTheirSwitch) {
  const TopologyGraph g = infer_topology(switch_tree_trace(64));
  // Reading order of the GPUs on the grid (top to bottom, left to right).
  std::vector<const TopologyGraph::Node*> gpus;
  for (const auto& n : g.nodes) {
    if (n.kind == TopologyGraph::NodeKind::kGpu) gpus.push_back(&n);
  }
  ASSERT_EQ(gpus.size(), 64u);
  std::sort(gpus.begin(), gpus.end(),
            [](auto* a, auto* b) { return a->y != b->y ? a->y < b->y : a->x < b->x; });
  // Switch by switch (sw0's four, then sw1's ...), in name order within one: gpu0..gpu63.
  for (std::size_t k = 0; k < gpus.size(); ++k) EXPECT_EQ(gpus[k]->name, "gpu" + std::to_string(k));
  // Switches sit in a band above the GPUs.
  const double highest_gpu = gpus.front()->y;
  for (const auto& n : g.nodes) {
    if (n.kind == TopologyGraph::NodeKind::kFabric) {
      EXPECT_LT(n.y, highest_gpu) << n.name;
    }
  }
}

TEST(TopologyView, NamesOnlyWhereTheyFit) {
  TopologyView view;
  view.resize(1600, 600);
  view.show_trace(std::make_shared<TimelineModel>(std::make_shared<Trace>(switch_tree_trace(64))),
                  "64", std::nullopt);
  (void)view.grab();
  EXPECT_EQ(view.labels_shown(), 64 + 17);  // every GPU and switch named at 64 GPUs
  view.show_trace(std::make_shared<TimelineModel>(std::make_shared<Trace>(switch_tree_trace(1024))),
                  "1024", std::nullopt);
  (void)view.grab();
  EXPECT_EQ(view.labels_shown(), 0);  // 1,024 GPUs: boxes without names, no pile of text
}

}  // namespace
}  // namespace opsim::gui
