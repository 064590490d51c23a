#include "engine/op_graph.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "tests/support/test_ops.hpp"

namespace opsim {
namespace {

Machine two_gpus() {
  Machine m("two");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId g0 = m.add_gpu("gpu0", GpuModel{});
  const DeviceId g1 = m.add_gpu("gpu1", GpuModel{});
  const DeviceId disk = m.add_disk("nvme0", DiskModel::nvme(4, 4));
  m.add_link("p0", cpu, g0, LinkModel::pcie(3, 16));
  m.add_link("p1", cpu, g1, LinkModel::pcie(3, 16));
  m.add_link("p2", cpu, disk, LinkModel::pcie(4, 4));
  m.seal();
  return m;
}

Op compute_on(DeviceId d) {
  Op op;
  op.kind = OpKind::kCompute;
  op.kernel = KernelClass::kGemm;
  op.device = d;
  op.flops = 1e9;
  return op;
}

using test::copy_op;

std::string error_of(const OpGraph& g, const Machine& m) {
  try {
    g.validate(m, "w.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(OpGraph, NamesDependenciesAndOrder) {
  const Machine m = two_gpus();
  OpGraph g;
  const OpId a = g.add(compute_on(1), "a");
  const OpId b = g.add(copy_op(1, 2, 1e6), "copy a to gpu1");
  const OpId c = g.add(compute_on(2), "c");
  g.add_dependency(a, b);
  g.add_dependency(b, c);
  EXPECT_EQ(g.size(), 3u);
  EXPECT_EQ(g.name(b), "copy a to gpu1");
  EXPECT_EQ(g.in_degree(c), 1u);
  EXPECT_EQ(g.successors(a), std::vector<OpId>{b});
  EXPECT_EQ(g.topological_order(), (std::vector<OpId>{a, b, c}));
  EXPECT_NO_THROW(g.validate(m));
  auto preds = g.predecessor_lists();
  EXPECT_EQ(preds[c], std::vector<OpId>{b});
  const std::string dot = g.to_dot(m);
  EXPECT_NE(dot.find("0->1"), std::string::npos) << dot;
  EXPECT_NE(dot.find("gpu0 -> gpu1"), std::string::npos);
}

TEST(OpGraph, AChainAcrossStorageChunksKeepsOpsNamesAndEdges) {
  // Three chunks of ops and edges (engine/chunked_vector.hpp): ids, names, degrees and
  // successors must read back across the chunk boundaries, and in a copy of the graph.
  constexpr std::size_t kOps = 2 * ChunkedVector<Op>::kChunkSize + 10;
  OpGraph g;
  for (std::size_t i = 0; i < kOps; ++i) {
    Op op;
    op.kind = OpKind::kCompute;
    op.device = 1;
    op.flops = static_cast<double>(i);
    const OpId id = g.add(op, "op" + std::to_string(i));
    if (i > 0) g.add_dependency(id - 1, id);
  }
  const Op& first = g.op(0);  // chunks never move: references stay valid
  const OpGraph copy = g;
  for (const OpGraph* graph : std::vector<const OpGraph*>{&g, &copy}) {
    ASSERT_EQ(graph->size(), kOps);
    EXPECT_EQ(graph->dependency_count(), kOps - 1);
    for (std::size_t i : {std::size_t{0}, ChunkedVector<Op>::kChunkSize - 1,
                          ChunkedVector<Op>::kChunkSize, kOps - 1}) {
      const auto id = static_cast<OpId>(i);
      EXPECT_EQ(graph->op(id).flops, static_cast<double>(i));
      EXPECT_EQ(graph->name(id), "op" + std::to_string(i));
      EXPECT_EQ(graph->in_degree(id), i == 0 ? 0u : 1u);
      EXPECT_EQ(graph->successors(id),
                i + 1 < kOps ? std::vector<OpId>{id + 1} : std::vector<OpId>{});
    }
  }
  EXPECT_EQ(&first, &g.op(0));
  EXPECT_EQ(g.topological_order().back(), kOps - 1);
}

TEST(OpGraph, CycleErrorNamesTheOpsOnIt) {
  const Machine m = two_gpus();
  OpGraph g;
  const OpId start = g.add(compute_on(1), "start");
  const OpId x = g.add(compute_on(1), "x");
  const OpId y = g.add(compute_on(1), "y");
  const OpId z = g.add(compute_on(1), "z");
  const OpId tail = g.add(compute_on(1), "downstream");
  g.add_dependency(start, x);
  g.add_dependency(x, y);
  g.add_dependency(y, z);
  g.add_dependency(z, x);
  g.add_dependency(z, tail);
  const std::string message = error_of(g, m);
  EXPECT_NE(message.find("w.json: dependency cycle: "), std::string::npos) << message;
  EXPECT_NE(message.find("'x'"), std::string::npos);
  EXPECT_NE(message.find("'y'"), std::string::npos);
  EXPECT_NE(message.find("'z'"), std::string::npos);
  EXPECT_EQ(message.find("start"), std::string::npos);
  EXPECT_EQ(message.find("downstream"), std::string::npos);
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(OpGraph, ValidationRejectsBadSizesAndDevices) {
  const Machine m = two_gpus();
  struct Case {
    Op op;
    const char* expected;
  };
  Op nan_flops = compute_on(1);
  nan_flops.flops = std::nan("");
  Op negative_bytes = copy_op(1, 2, -5);
  Op zero_copy = copy_op(1, 2, 0);
  Op unknown_device = compute_on(42);
  Op compute_on_disk = compute_on(3);
  Op disk_without_block = Op{};
  disk_without_block.kind = OpKind::kDiskRead;
  disk_without_block.device = 3;
  disk_without_block.peer = 0;
  disk_without_block.bytes = 4096;
  disk_without_block.pattern = AccessPattern::kRandom;
  Op dispatch_on_gpu = Op{};
  dispatch_on_gpu.kind = OpKind::kHostDispatch;
  dispatch_on_gpu.device = 1;
  const Case cases[] = {
      {nan_flops, "flops must be a finite number >= 0"},
      {negative_bytes, "bytes must be a finite number >= 0"},
      {zero_copy, "copy needs bytes > 0"},
      {unknown_device, "unknown device"},
      {compute_on_disk, "compute must run on a CPU or GPU"},
      {disk_without_block, "random disk access needs block_bytes > 0"},
      {dispatch_on_gpu, "host dispatch runs on a CPU"},
  };
  for (const auto& c : cases) {
    OpGraph g;
    g.add(compute_on(1), "fine");
    g.add(c.op, "bad op");
    const std::string message = error_of(g, m);
    SCOPED_TRACE(message);
    EXPECT_NE(message.find("w.json: op 'bad op' (#1): "), std::string::npos);
    EXPECT_NE(message.find(c.expected), std::string::npos);
  }
}

}  // namespace
}  // namespace opsim
