#include "test_traces.hpp"

namespace opsim::gui::testing {

std::shared_ptr<Trace> tree_trace() {
  auto t = std::make_shared<Trace>();
  t->title = "tree on pcie-switch-4gpu";
  t->backend = "sim";
  t->machine = "pcie-switch-4gpu";
  for (int g = 0; g < 4; ++g) {
    const std::string d = "gpu" + std::to_string(g);
    t->lanes.push_back({d + "/compute0", "server0", d, LaneKind::kCompute, 0});  // 3g
    t->lanes.push_back({d + "/copy-out", "server0", d, LaneKind::kCopy, 0});     // 3g+1
    t->lanes.push_back({d + "/copy-in", "server0", d, LaneKind::kCopy, 0});      // 3g+2
  }
  t->lanes.push_back({"cpu0/host", "server0", "cpu0", LaneKind::kHost, 0});  // 12
  for (int g = 0; g < 4; ++g) {
    const std::string l = "pcie_gpu" + std::to_string(g);
    t->lanes.push_back({l + " up", "server0", l, LaneKind::kLink, 16e9});    // 13 + 2g
    t->lanes.push_back({l + " down", "server0", l, LaneKind::kLink, 16e9});  // 14 + 2g
  }
  t->lanes.push_back({"pcie_cpu0 up", "server0", "pcie_cpu0", LaneKind::kLink, 16e9});    // 21
  t->lanes.push_back({"pcie_cpu0 down", "server0", "pcie_cpu0", LaneKind::kLink, 16e9});  // 22
  const double bytes = 160e6;
  // Gathers: ops 0..2.
  for (std::uint32_t g = 1; g < 4; ++g) {
    const auto op = static_cast<std::uint32_t>(t->ops.size());
    t->ops.push_back({"gather gpu" + std::to_string(g), "copy", "gpu" + std::to_string(g), "gpu0",
                      0, bytes, 3 * g + 1, 0, 30 * kMs});
    t->link_spans.push_back({op, 13 + 2 * g, 0, 30 * kMs});  // pcie_gpuG up
    t->link_spans.push_back({op, 14, 0, 30 * kMs});          // pcie_gpu0 down, shared
  }
  // Reduce: op 3.
  t->ops.push_back({"reduce", "reduce", "gpu0", "", 1.2e8, 3 * bytes, 0, 30 * kMs, 32 * kMs});
  for (std::uint32_t g = 0; g < 3; ++g) t->dependencies.push_back({g, 3});
  // Broadcasts: ops 4..6, concurrently on the shared up link, each on the receiver's copy-in.
  for (std::uint32_t g = 1; g < 4; ++g) {
    const auto op = static_cast<std::uint32_t>(t->ops.size());
    t->ops.push_back({"broadcast gpu" + std::to_string(g), "copy", "gpu0",
                      "gpu" + std::to_string(g), 0, bytes, 3 * g + 2, 32 * kMs, 62 * kMs});
    t->link_spans.push_back({op, 13, 32 * kMs, 62 * kMs});          // pcie_gpu0 up, shared
    t->link_spans.push_back({op, 14 + 2 * g, 32 * kMs, 62 * kMs});  // pcie_gpuG down
    t->dependencies.push_back({3, op});
  }
  // A dispatch on the host before everything, not on the critical path.
  t->ops.push_back({"launch", "dispatch", "cpu0", "", 0, 0, 12, 0, kMs / 10});
  TraceCounter mem{"memory gpu0",
                   "bytes",
                   {{0, 160e6}, {30 * kMs, 640e6}, {32 * kMs, 160e6}},
                   "server0",
                   "gpu0"};
  t->counters.push_back(mem);
  return t;
}

std::shared_ptr<Trace> dense_trace(std::size_t spans) {
  auto t = std::make_shared<Trace>();
  t->title = "dense";
  t->lanes.push_back({"gpu0/compute0", "server0", "gpu0", LaneKind::kCompute, 0});
  t->ops.reserve(spans);
  for (std::size_t i = 0; i < spans; ++i) {
    const auto start = static_cast<TimeNs>(i) * 1000;
    t->ops.push_back({"k" + std::to_string(i), "gemm", "gpu0", "", 1e6, 0, 0, start, start + 1000});
  }
  return t;
}

}  // namespace opsim::gui::testing
