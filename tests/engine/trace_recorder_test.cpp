#include "engine/trace_recorder.hpp"

#include <gtest/gtest.h>

#include "trace_test_support.hpp"

namespace opsim {
namespace {

using test::kMs;

struct Rig {
  Machine machine = test::small_machine();
  OpGraph graph;
  StreamTable streams{machine};
  DeviceId cpu0 = *machine.find_device("cpu0");
  DeviceId gpu0 = *machine.find_device("gpu0");
  DeviceId gpu1 = *machine.find_device("gpu1");
  DeviceId disk0 = *machine.find_device("disk0");
  DeviceId cpu1 = *machine.find_device("cpu1");

  OpId add(OpKind kind, DeviceId device, DeviceId peer, double bytes, const char* name) {
    Op op;
    op.kind = kind;
    op.kernel = KernelClass::kGemm;
    op.device = device;
    op.peer = peer;
    op.bytes = bytes;
    op.flops = kind == OpKind::kCompute ? 1e9 : 0;
    return graph.add(op, name);
  }
};

std::vector<std::string> lane_names(const Trace& t) {
  std::vector<std::string> names;
  for (const TraceLane& lane : t.lanes) names.push_back(lane.name);
  return names;
}

TEST(TraceRecorder, LanesOpsLinkSpansAndDependencies) {
  Rig r;
  const OpId gemm = r.add(OpKind::kCompute, r.gpu0, kNoDevice, 0, "gemm0");
  const OpId g2g = r.add(OpKind::kCopy, r.gpu0, r.gpu1, 160e6, "gpu0 to gpu1");
  const OpId g2c = r.add(OpKind::kCopy, r.gpu1, r.cpu0, 80e6, "gpu1 to cpu0");
  const OpId read = r.add(OpKind::kDiskRead, r.disk0, r.cpu0, 40e6, "read");
  const OpId write = r.add(OpKind::kDiskWrite, r.disk0, r.cpu0, 20e6, "write");
  const OpId send = r.add(OpKind::kCopy, r.cpu0, r.cpu1, 10e6, "send");
  const OpId remote = r.add(OpKind::kCompute, r.cpu1, kNoDevice, 0, "remote");
  const OpId never = r.add(OpKind::kCompute, r.gpu1, kNoDevice, 0, "never ran");
  r.graph.add_dependency(gemm, g2g);
  r.graph.add_dependency(g2g, g2c);
  r.graph.add_dependency(g2c, send);
  r.graph.add_dependency(read, send);
  r.graph.add_dependency(send, remote);
  r.graph.add_dependency(remote, never);

  TraceRecorder rec(r.machine, r.graph, r.streams, "unit", "sim");
  const StreamTable& s = r.streams;
  // Reported in completion order, not op order.
  rec.on_op_finished(read, r.disk0, s.at(r.disk0, StreamKind::kIo, 1), 0, 4 * kMs);
  rec.on_op_finished(gemm, r.gpu0, s.at(r.gpu0, StreamKind::kCompute, 0), 0, 5 * kMs);
  rec.on_op_finished(write, r.disk0, s.at(r.disk0, StreamKind::kIo, 0), 4 * kMs, 6 * kMs);
  rec.on_op_finished(g2g, r.gpu0, s.at(r.gpu0, StreamKind::kCopy, 0), 5 * kMs, 15 * kMs);
  rec.on_op_finished(g2c, r.gpu1, s.at(r.gpu1, StreamKind::kCopy, 0), 15 * kMs, 20 * kMs);
  rec.on_op_finished(send, r.cpu0, s.at(r.cpu0, StreamKind::kCopy, 0), 20 * kMs, 21 * kMs);
  rec.on_op_finished(remote, r.cpu1, s.at(r.cpu1, StreamKind::kCompute, 0), 21 * kMs, 22 * kMs);
  const Trace t = rec.finish();

  EXPECT_EQ(t.title, "unit");
  EXPECT_EQ(t.backend, "sim");
  EXPECT_EQ(t.machine, "rig");
  // Server "rig" (cpu0, gpu0, gpu1, disk0 in device order), then server1, then links by link
  // id with a→b before b→a.
  EXPECT_EQ(lane_names(t), (std::vector<std::string>{
                               "cpu0/memcpy0",
                               "gpu0/compute0",
                               "gpu0/copy-out",
                               "gpu1/copy-out",
                               "disk0/queue0",
                               "disk0/queue1",
                               "cpu1/compute0",
                               "pcie_cpu0 pcie_sw0\u2192cpu0",
                               "pcie_gpu0 gpu0\u2192pcie_sw0",
                               "pcie_gpu1 gpu1\u2192pcie_sw0",
                               "pcie_gpu1 pcie_sw0\u2192gpu1",
                               "sata0 disk0\u2194cpu0",  // half duplex: one lane
                               "eth0 cpu0\u2192cpu1",
                           }));
  EXPECT_EQ(t.lanes[0].node, "rig");
  EXPECT_EQ(t.lanes[0].kind, LaneKind::kCopy);
  EXPECT_EQ(t.lanes[1].kind, LaneKind::kCompute);
  EXPECT_EQ(t.lanes[4].kind, LaneKind::kIo);
  EXPECT_EQ(t.lanes[6].node, "server1");
  EXPECT_EQ(t.lanes[6].device, "cpu1");
  EXPECT_EQ(t.lanes[8].kind, LaneKind::kLink);
  EXPECT_EQ(t.lanes[8].device, "pcie_gpu0");
  EXPECT_EQ(t.lanes[8].node, "rig");
  EXPECT_DOUBLE_EQ(t.lanes[8].capacity_bytes_per_s, 16e9);

  // Ops in op-id order; the op that never finished is absent.
  ASSERT_EQ(t.ops.size(), 7u);
  EXPECT_EQ(t.ops[0].name, "gemm0");
  EXPECT_EQ(t.ops[0].op_class, "gemm");
  EXPECT_EQ(t.ops[0].lane, 1u);
  EXPECT_EQ(t.ops[0].end_ns, 5 * kMs);
  EXPECT_DOUBLE_EQ(t.ops[0].flops, 1e9);
  EXPECT_EQ(t.ops[1].op_class, "copy");
  EXPECT_EQ(t.ops[1].device, "gpu0");
  EXPECT_EQ(t.ops[1].peer, "gpu1");
  EXPECT_EQ(t.ops[1].lane, 2u);
  EXPECT_DOUBLE_EQ(t.ops[1].bytes, 160e6);
  EXPECT_EQ(t.ops[3].op_class, "disk_read");
  EXPECT_EQ(t.ops[3].lane, 5u);
  EXPECT_EQ(t.ops[4].lane, 4u);

  // One span per hop, with the op's times.
  auto spans_of = [&](std::uint32_t op) {
    std::vector<std::string> lanes;
    for (const TraceSpan& span : t.link_spans) {
      if (span.op == op) {
        lanes.push_back(t.lanes[span.lane].name);
        EXPECT_EQ(span.start_ns, t.ops[op].start_ns);
        EXPECT_EQ(span.end_ns, t.ops[op].end_ns);
      }
    }
    return lanes;
  };
  EXPECT_EQ(spans_of(1), (std::vector<std::string>{"pcie_gpu0 gpu0\u2192pcie_sw0",
                                                   "pcie_gpu1 pcie_sw0\u2192gpu1"}));
  EXPECT_EQ(spans_of(2), (std::vector<std::string>{"pcie_gpu1 gpu1\u2192pcie_sw0",
                                                   "pcie_cpu0 pcie_sw0\u2192cpu0"}));
  EXPECT_EQ(spans_of(3), (std::vector<std::string>{"sata0 disk0\u2194cpu0"}));
  EXPECT_EQ(spans_of(4), (std::vector<std::string>{"sata0 disk0\u2194cpu0"}));
  EXPECT_EQ(spans_of(5), (std::vector<std::string>{"eth0 cpu0\u2192cpu1"}));
  EXPECT_TRUE(spans_of(0).empty());
  EXPECT_EQ(t.link_spans.size(), 7u);

  // Dependencies between recorded ops only (remote → never is dropped).
  EXPECT_EQ(t.dependencies, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{
                                {0, 1}, {1, 2}, {2, 5}, {3, 5}, {5, 6}}));
}

TEST(TraceRecorder, UtilizationCountersSumConcurrentRates) {
  Rig r;
  // 80 MB in 10 ms = 8 GB/s = 0.5 of 16 GB/s; 40 MB in 10 ms = 0.25, overlapping by 5 ms.
  const OpId a = r.add(OpKind::kCopy, r.gpu0, r.gpu1, 80e6, "a");
  const OpId b = r.add(OpKind::kCopy, r.gpu0, r.cpu0, 40e6, "b");
  TraceRecorder rec(r.machine, r.graph, r.streams, "util", "sim");
  rec.on_op_finished(a, r.gpu0, r.streams.at(r.gpu0, StreamKind::kCopy, 0), 0, 10 * kMs);
  rec.on_op_finished(b, r.gpu0, r.streams.at(r.gpu0, StreamKind::kCopy, 1), 5 * kMs, 15 * kMs);
  const Trace t = rec.finish();

  const TraceCounter* up = nullptr;
  for (const TraceCounter& c : t.counters) {
    if (c.name == "utilization pcie_gpu0 gpu0\u2192pcie_sw0") up = &c;
  }
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->unit, "fraction");
  EXPECT_EQ(up->node, "");
  EXPECT_EQ(up->device, "pcie_gpu0 gpu0\u2192pcie_sw0");
  ASSERT_EQ(up->samples.size(), 4u);
  EXPECT_EQ(up->samples[0].at_ns, 0);
  EXPECT_DOUBLE_EQ(up->samples[0].value, 0.5);
  EXPECT_EQ(up->samples[1].at_ns, 5 * kMs);
  EXPECT_DOUBLE_EQ(up->samples[1].value, 0.75);
  EXPECT_EQ(up->samples[2].at_ns, 10 * kMs);
  EXPECT_DOUBLE_EQ(up->samples[2].value, 0.25);
  EXPECT_EQ(up->samples[3].at_ns, 15 * kMs);
  EXPECT_EQ(up->samples[3].value, 0.0);  // exactly zero once idle
  // Utilization counters follow the link lanes' order.
  std::vector<std::string> names;
  for (const TraceCounter& c : t.counters) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"utilization pcie_cpu0 pcie_sw0\u2192cpu0",
                                             "utilization pcie_gpu0 gpu0\u2192pcie_sw0",
                                             "utilization pcie_gpu1 pcie_sw0\u2192gpu1"}));
}

// Of the values at one time, the highest (the peak PeakMemoryObserver counts) and the last.
TEST(TraceRecorder, MemoryCountersPerDeviceKeepEachInstantsPeakAndLastValue) {
  Rig r;
  TraceRecorder rec(r.machine, r.graph, r.streams, "mem", "real");
  rec.on_memory_changed(r.cpu1, 7, 3);
  rec.on_memory_changed(r.gpu0, 100, 0);
  rec.on_memory_changed(r.gpu0, 300, 5);
  rec.on_memory_changed(r.gpu0, 200, 5);
  rec.on_memory_changed(r.gpu0, 0, 9);
  const Trace t = rec.finish();
  ASSERT_EQ(t.counters.size(), 2u);
  EXPECT_EQ(t.counters[0].name, "memory gpu0");  // by device id
  EXPECT_EQ(t.counters[0].unit, "bytes");
  EXPECT_EQ(t.counters[0].node, "rig");
  EXPECT_EQ(t.counters[0].device, "gpu0");
  EXPECT_EQ(t.counters[0].samples,
            (std::vector<TraceCounterSample>{{0, 100}, {5, 300}, {5, 200}, {9, 0}}));
  EXPECT_EQ(t.counters[1].name, "memory cpu1");
  EXPECT_EQ(t.counters[1].node, "server1");
  EXPECT_TRUE(t.ops.empty());
  EXPECT_TRUE(t.lanes.empty());
}

TEST(TraceRecorder, LinkLaneNamesFollowLinkDirection) {
  const Machine m = test::small_machine();
  const LinkId link = *m.find_link("pcie_gpu0");
  EXPECT_EQ(TraceRecorder::link_lane_name(m, link, true), "pcie_gpu0 gpu0\u2192pcie_sw0");
  EXPECT_EQ(TraceRecorder::link_lane_name(m, link, false), "pcie_gpu0 pcie_sw0\u2192gpu0");
  const LinkId sata = *m.find_link("sata0");
  EXPECT_EQ(TraceRecorder::link_lane_name(m, sata, true), "sata0 disk0\u2194cpu0");
  EXPECT_EQ(TraceRecorder::link_lane_name(m, sata, false), "sata0 disk0\u2194cpu0");
}

}  // namespace
}  // namespace opsim
