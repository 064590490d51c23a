// The collectives simulated against their closed forms. With the `wire` protocol (links
// alone) on the book's PCIe server (one ring): allreduce 2(n-1)/n * S/B, reduce-scatter and
// all-gather (n-1)/n * S/B, pipelined broadcast and reduce of k pieces (k+n-2)/k * S/B,
// all-to-all (n-1)/n * S/B through one switch; on nvlink-ring:N the ring runs both ways (two
// channels), halving those. Then NCCL's protocols (latency per step, efficiency), the tree,
// NVLS, hierarchical, send/recv and the tuner's choices. Each run is forked
// (simulate_isolated).
#include "experiments/collectives/collective.hpp"

#include <gtest/gtest.h>

#include "common/input_error.hpp"
#include "sim/simulate.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {
namespace {

constexpr double kNvlink = 25e9;  // nvlink-ring:N, per direction
constexpr double kPcie = 16e9;    // pcie-switch-4gpu, per direction

double simulate_s(const Machine& machine, std::string_view op, double bytes, std::size_t chunks = 0,
                  std::string algorithm = "", std::string protocol = "wire") {
  CollectiveOptions options;
  options.bytes = bytes;
  options.chunks = chunks;
  options.algorithm = std::move(algorithm);
  options.protocol = std::move(protocol);
  const CollectivePlan plan = make_collective(op, machine, options);
  return simulate_isolated(machine, plan.graph).makespan_s;
}

void expect_time(double actual, double expected, int line = __builtin_LINE()) {
  SCOPED_TRACE(line);
  EXPECT_NEAR(actual, expected, 1e-6 * expected);
}

TEST(Collectives, RingAllreduceOnNvlinkRingsRunsBothWays) {
  // Two GPUs share one link: one ring, 2(n-1)/n * S/B. More: the ring and its reverse, each
  // with half of S, so 2(n-1)/n * S/(2B).
  for (int n : {2, 4, 8}) {
    const Machine m = resolve_topology("nvlink-ring:" + std::to_string(n));
    const double s = 64e6;
    const double b = n == 2 ? kNvlink : 2 * kNvlink;
    SCOPED_TRACE(n);
    expect_time(simulate_s(m, "allreduce", s, 0, "ring"), 2.0 * (n - 1) / n * s / b);
    expect_time(simulate_s(m, "reduce_scatter", s), 1.0 * (n - 1) / n * s / b);
    expect_time(simulate_s(m, "all_gather", s), 1.0 * (n - 1) / n * s / b);
  }
}

TEST(Collectives, PipelinedBroadcastAndReduceTakeKPlusNMinus2PieceTimes) {
  const Machine m = resolve_topology("nvlink-ring:4");
  const double s = 64e6;
  const double half = s / 2;  // each way round the ring
  expect_time(simulate_s(m, "broadcast", s, 16), (16.0 + 2) / 16 * half / kNvlink);
  expect_time(simulate_s(m, "reduce", s, 16), (16.0 + 2) / 16 * half / kNvlink);
  expect_time(simulate_s(m, "broadcast", s, 1), 3 * half / kNvlink);  // no pipeline: n-1 hops
  // By default pieces of 128 KiB: 64 MB is 489 pieces; at most 4096.
  EXPECT_EQ(pipeline_chunks(s), 489u);
  EXPECT_EQ(pipeline_chunks(8), 1u);
  EXPECT_EQ(pipeline_chunks(8e9), 4096u);
  // Each piece's time is rounded to whole nanoseconds: up to 1 ns per piece.
  EXPECT_NEAR(simulate_s(m, "broadcast", s), (489.0 + 2) / 489 * half / kNvlink, 491e-9);
}

TEST(Collectives, BooksPcieServer) {
  const Machine m = resolve_topology("pcie-switch-4gpu");
  const double s = 160e6;
  expect_time(simulate_s(m, "allreduce", s), 2.0 * 3 / 4 * s / kPcie);
  expect_time(simulate_s(m, "reduce_scatter", s), 3.0 / 4 * s / kPcie);
  expect_time(simulate_s(m, "all_gather", s), 3.0 / 4 * s / kPcie);
  expect_time(simulate_s(m, "broadcast", s, 8), (8.0 + 2) / 8 * s / kPcie);
  expect_time(simulate_s(m, "reduce", s, 8), (8.0 + 2) / 8 * s / kPcie);
  // Each GPU sends 3 x S/4 up its own link and receives 3 x S/4 down it, all at once.
  expect_time(simulate_s(m, "all_to_all", s), 3.0 / 4 * s / kPcie);
}

TEST(Collectives, GraphsHoldCopiesOnlyReductionsAreFused) {
  const Machine m = resolve_topology("nvlink-ring:4");
  for (std::string_view op : collective_names()) {
    CollectiveOptions options;
    options.chunks = 4;
    options.protocol = "Simple";
    const CollectivePlan plan = make_collective(op, m, options);
    std::size_t copies = 0;
    for (OpId id = 0; id < plan.graph.size(); ++id)
      if (plan.graph.op(id).kind == OpKind::kCopy) ++copies;
    EXPECT_EQ(copies, plan.graph.size()) << op;
  }
  CollectiveOptions options;
  options.chunks = 4;
  options.algorithm = "ring";
  // Two channels (the ring both ways) of 2(n-1) steps of n copies.
  EXPECT_EQ(make_collective("allreduce", m, options).graph.size(), 2u * 2 * 3 * 4);
  EXPECT_EQ(make_collective("all_gather", m, options).graph.size(), 2u * 3 * 4);
  EXPECT_EQ(make_collective("broadcast", m, options).graph.size(), 2u * 3 * 4);
  options.algorithm = "tree";  // two chains of 3 hops, up and down, 4 pieces
  EXPECT_EQ(make_collective("allreduce", m, options).graph.size(), 2u * 2 * 3 * 4);
  options.algorithm = "direct";
  EXPECT_EQ(make_collective("all_to_all", m, options).graph.size(), 4u * 3);
  EXPECT_EQ(make_collective("sendrecv", m, options).graph.size(), 4u);
}

TEST(Collectives, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor("allreduce", 4), 1.5);
  EXPECT_DOUBLE_EQ(bus_factor("reduce_scatter", 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor("all_gather", 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor("all_to_all", 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor("broadcast", 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor("reduce", 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor("sendrecv", 8), 1.0);
  EXPECT_THROW(bus_factor("gather", 8), InputError);
}

TEST(Collectives, BadRequestsAreInputErrors) {
  const Machine m = resolve_topology("nvlink-ring:4");
  CollectiveOptions options;
  EXPECT_THROW(make_collective("allgather", m, options), InputError);
  options.algorithm = "trees";
  EXPECT_THROW(make_collective("allreduce", m, options), InputError);
  options.algorithm = "tree";  // allreduce only
  EXPECT_THROW(make_collective("broadcast", m, options), InputError);
  options.algorithm = "direct";  // all_to_all's and sendrecv's only
  EXPECT_THROW(make_collective("allreduce", m, options), InputError);
  options.algorithm = "ring";
  EXPECT_THROW(make_collective("all_to_all", m, options), InputError);
  options.protocol = "LL256";
  EXPECT_THROW(make_collective("allreduce", m, options), InputError);
  options.protocol = "";
  EXPECT_EQ(collective_algorithms("all_to_all"), std::vector<std::string_view>{"direct"});
  EXPECT_EQ(collective_algorithms("reduce"), std::vector<std::string_view>{"ring"});
  options.bytes = 0;
  EXPECT_THROW(make_collective("allreduce", m, options), InputError);
  options.bytes = 1e6;
  options.gpus = {m.gpus().front()};
  EXPECT_THROW(make_collective("allreduce", m, options), InputError);
  options.gpus = {m.gpus().front(), m.gpus().front()};
  EXPECT_THROW(make_collective("allreduce", m, options), InputError);
}

}  // namespace
}  // namespace opsim
