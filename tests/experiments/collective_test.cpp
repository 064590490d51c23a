// The collectives simulated against their closed forms. With the `wire` protocol (links
// alone) on the book's PCIe server (one ring): allreduce 2(n-1)/n * S/B, reduce-scatter and
// all-gather (n-1)/n * S/B, pipelined broadcast and reduce of k pieces (k+n-2)/k * S/B,
// all-to-all (n-1)/n * S/B through one switch; on nvlink-ring:N the ring runs both ways (two
// channels), halving those. Then NCCL's protocols (latency per step, efficiency), the tree,
// NVLS, hierarchical, send/recv and the tuner's choices. Each run is forked
// (simulate_isolated).
#include "experiments/collectives/collective.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/input_error.hpp"
#include "experiments/collectives/collective_common.hpp"
#include "sim/simulate.hpp"
#include "topologies/topology_catalog.hpp"
#include "topologies/topology_yaml.hpp"

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

// `machine` with no lag of the slowest channel, for a test of another mechanism's numbers.
Machine without_straggle(Machine machine) {
  machine.mutable_collectives().straggle_after_gib_s = 0;
  return machine;
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
  options.algorithm = "direct";  // each GPU's 3 sends and, out of place, its copy to itself
  EXPECT_EQ(make_collective("all_to_all", m, options).graph.size(), 4u * 3 + 4);
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

TEST(Collectives, SizesAreWhatNcclTestsRuns) {
  const auto expect_size = [](std::string_view op, double requested, std::size_t ranks,
                              double bytes, double count) {
    const NcclTestsSize size = nccl_tests_size(op, requested, ranks);
    EXPECT_EQ(size.bytes, bytes) << op << " " << requested << " on " << ranks;
    EXPECT_EQ(size.count, count) << op << " " << requested << " on " << ranks;
  };
  expect_size("allreduce", 27, 8, 24, 6);
  expect_size("sendrecv", 3, 2, 0, 0);
  // 64 MiB on 80 ranks, as the published 80-GPU tables print it (as doubles: 104,856 each).
  expect_size("all_gather", 64 << 20, 80, 67107840, 209712);
  expect_size("reduce_scatter", 1000, 8, 896, 28);
  expect_size("all_to_all", 127, 8, 0, 0);
  expect_size("all_to_all", 128, 8, 128, 4);
  // 2^53 B on 7 ranks: 2^51 floats, 321,685,687,669,321 a rank, 321,685,687,669,320 in
  // 16-byte units; exact where floating-point division would not be.
  expect_size("all_gather", 9007199254740992.0, 7, 9007199254740960.0, 321685687669320.0);
  // nccl-tests' -d: whole elements, and 16-byte units a rank whatever the element.
  EXPECT_EQ(nccl_tests_size("allreduce", 27, 8, "double").bytes, 24);
  EXPECT_EQ(nccl_tests_size("all_gather", 64 << 20, 80, "double").count, 104856);
  EXPECT_EQ(nccl_tests_size("all_to_all", 1000, 8, "bfloat16").bytes, 896);
  EXPECT_EQ(nccl_tests_size("all_to_all", 1000, 8, "bfloat16").count, 56);
  EXPECT_EQ(nccl_tests_size("reduce_scatter", 1000, 8, "int8").count, 112);
  EXPECT_EQ(nccl_tests_least_size("broadcast", 8, "half").bytes, 2);
  EXPECT_EQ(nccl_tests_least_size("all_gather", 8, "int8").bytes, 128);
  EXPECT_THROW(nccl_tests_size("allreduce", 8, 8, "bf16"), InputError);
  EXPECT_THROW(nccl_tests_size("gather", 8, 8), InputError);
  EXPECT_THROW(nccl_tests_size("all_gather", 64, 0), InputError);
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

CollectivePlan plan_of(const Machine& machine, double bytes, std::string algorithm = "auto",
                       std::string protocol = "auto") {
  CollectiveOptions options;
  options.bytes = bytes;
  options.algorithm = std::move(algorithm);
  options.protocol = std::move(protocol);
  return make_collective("allreduce", machine, options);
}

TEST(Collectives, ProtocolLatencyAt8BytesIsNcclsBaseAndStepLatencies) {
  // nvlink-ring:8's links have no latency: an 8-byte allreduce takes NCCL's base latency
  // plus 2(n-1) = 14 steps of its NVLink step latency (tuning.cc, hwLatencies).
  const Machine m = resolve_topology("nvlink-ring:8");
  const double tick = 20e-9;  // the few bytes and whole-nanosecond rounding
  EXPECT_NEAR(simulate_s(m, "allreduce", 8, 0, "ring", "LL"), 6.6e-6 + 14 * 0.6e-6, tick);
  EXPECT_NEAR(simulate_s(m, "allreduce", 8, 0, "ring", "LL128"), 14e-6 + 14 * 1.9e-6, tick);
  EXPECT_NEAR(simulate_s(m, "allreduce", 8, 0, "ring", "Simple"), 8.4e-6 + 14 * 3.4e-6, tick);
  // The tree: a chain of 8, 7 steps up and 7 down.
  EXPECT_NEAR(simulate_s(m, "allreduce", 8, 0, "tree", "LL"), 6.8e-6 + 14 * 0.6e-6, tick);
  EXPECT_NEAR(simulate_s(m, "allreduce", 8, 0, "tree", "Simple"), 8.4e-6 + 14 * 4.0e-6, tick);
  // The links alone: no latency at all.
  EXPECT_LT(simulate_s(m, "allreduce", 8, 0, "ring", "wire"), tick);
  // A step whose route has more latency than the protocol's pays the route's: dgx1-v100's
  // NVLinks take 0.7 us, more than LL's 0.6; so 8 KB is 6.6 + 14 x 0.7 us and its bytes at
  // LL's 39 GB/s bus bandwidth on Volta (S / (39 GB/s x 8/14)), not the 45 us of reduce
  // launches the sync strategies pay.
  const Machine dgx1 = resolve_topology("dgx1-v100");
  EXPECT_NEAR(simulate_s(dgx1, "allreduce", 8192, 0, "ring", "LL"),
              6.6e-6 + 14 * 0.7e-6 + 8192 / (39e9 * 8 / 14), 20e-9);
  // The book's PCIe server: 4 KB is 6.6 + 6 x 1.0 us over PCIe plus 6 steps of 1 KB at LL's
  // and PCIe's efficiency (0.5 x 0.76), not 375 ns.
  const Machine pcie = resolve_topology("pcie-switch-4gpu");
  EXPECT_NEAR(simulate_s(pcie, "allreduce", 4096, 0, "ring", "LL"),
              6.6e-6 + 6 * (1.0e-6 + 1024 / (0.5 * 0.76) / kPcie), 20e-9);
}

TEST(Collectives, ProtocolEfficiencyScalesTheBandwidth) {
  // 64 MB on nvlink-ring:4, the ring both ways: 1.5 * S/2 at 25 GB/s times the protocol's
  // and NVLink's efficiency (0.8, NCCL's 20 of 25 GB/s), plus base and 6 step latencies.
  const Machine m = resolve_topology("nvlink-ring:4");
  const double s = 64e6;
  const double wire_s = 1.5 * s / 2 / kNvlink;
  expect_time(simulate_s(m, "allreduce", s, 0, "ring", "Simple"),
              8.4e-6 + 6 * 3.4e-6 + wire_s / 0.8);
  expect_time(simulate_s(m, "allreduce", s, 0, "ring", "LL"), 6.6e-6 + 6 * 0.6e-6 + wire_s / 0.4);
  expect_time(simulate_s(m, "allreduce", s, 0, "ring", "LL128"),
              14e-6 + 6 * 1.9e-6 + wire_s / (0.92 * 0.8));
}

TEST(Collectives, TreeTakesSOverBPlusItsPipelineFill) {
  // Two chains, each with S/2 up and down: every link direction of nvlink-ring:N carries S,
  // so S/B bounds it below (exactly for 2 GPUs); the pipeline of k pieces fills in at most
  // 2(n-1)-1 more piece times.
  for (int n : {2, 4, 8}) {
    SCOPED_TRACE(n);
    const Machine m = resolve_topology("nvlink-ring:" + std::to_string(n));
    const double s = 64e6;
    const double k = static_cast<double>(pipeline_chunks(s / 2));
    const double t = simulate_s(m, "allreduce", s, 0, "tree");
    const double rounding = k * 1e-9;  // up to 1 ns per piece
    EXPECT_GE(t, s / kNvlink - rounding);
    EXPECT_LE(t, (k + 2 * (n - 1) - 1) / k * s / kNvlink);
    if (n == 2) {
      EXPECT_NEAR(t, s / kNvlink, rounding);
    }
  }
}

TEST(Collectives, NvlsRunsOnDgxH100AndIsRefusedOnDgxA100) {
  // Each port carries S(n+1)/n each way at 450 GB/s x 0.824 (NCCL's 20.6 of 25 GB/s per
  // NVLink 4) x 0.85 (nvlsEfficiency), after NVLS's 25 us and 7 rounds of the switch's
  // 1.4 us route latency. 64e6 B is below 8 x 16 channels x 8 GPUs x 64 KiB, so NCCL's
  // chunk is 32 KiB: each channel takes ceil(64e6 / (32 KiB x 128)) = 16 chunks of 3.5 us.
  const Machine h100 = resolve_topology("dgx-h100");
  const double s = 64e6;
  const double chunks_s = 16 * 3.5e-6;
  expect_time(simulate_s(h100, "allreduce", s, 0, "nvls", "Simple"),
              25e-6 + chunks_s + 7 * 1.4e-6 + s * 9 / 8 / (450e9 * 0.824 * 0.85));
  const Machine a100 = resolve_topology("dgx-a100");
  try {
    (void)plan_of(a100, s, "nvls");
    ADD_FAILURE() << "nvls ran on dgx-a100";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dgx-a100's switch nvsw0 does not"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)plan_of(h100, s, "nvls", "LL"), InputError);  // Simple only
  // Reduce-scatter and all-gather by NVLS: a port carries (n-1)/n S one way, as a ring's,
  // after one launch instead of the ring's n-1 steps.
  for (const char* op : {"reduce_scatter", "all_gather"}) {
    SCOPED_TRACE(op);
    EXPECT_NEAR(simulate_s(h100, op, s, 0, "nvls", "Simple"),
                25e-6 + chunks_s + 7 * 1.4e-6 + s * 7 / 8 / (450e9 * 0.824 * 0.85),
                2e-9);  // ns clock
    CollectiveOptions options;
    options.bytes = s;
    options.algorithm = "nvls";
    EXPECT_THROW((void)make_collective(op, a100, options), InputError);
  }
}

TEST(Collectives, NvlsPaysPerChunkAndNcclsChunkDoublesAtOneGiB) {
  // 16 channels x 8 GPUs: below 64 x 128 x 128 KiB = 1 GiB NCCL's chunk is 64 KiB, from 1 GiB
  // on 128 KiB, so the chunks' cost per byte halves there: 1 GiB costs what 512 MiB did.
  const Machine h100 = resolve_topology("dgx-h100");
  const double below = 1073741824.0 - 131072 * 128;
  const double at = 1073741824.0;
  const double chunk_s = 3.5e-6;
  const auto transfer_s = [](double bytes) { return bytes * 9 / 8 / (450e9 * 0.824 * 0.85); };
  const double fixed_s = 25e-6 + 7 * 1.4e-6;
  expect_time(simulate_s(h100, "allreduce", below, 0, "nvls", "Simple"),
              fixed_s + below / (65536 * 128) * chunk_s + transfer_s(below));
  expect_time(simulate_s(h100, "allreduce", at, 0, "nvls", "Simple"),
              fixed_s + at / (131072 * 128) * chunk_s + transfer_s(at));
  // Without the chunk cost (collectives.nvls_chunk_latency: 0) only the transfer is left.
  Machine free = h100;
  free.mutable_collectives().nvls_chunk_s = 0;
  expect_time(simulate_s(free, "allreduce", at, 0, "nvls", "Simple"), fixed_s + transfer_s(at));
}

TEST(Collectives, NvlsTreeReachesNcclsPerChannelBusBandwidth) {
  // NVLS inside each server, a pair of trees of NICs per rail across: NCCL grants each of its
  // channels (one per NIC, eight) perChMaxNVLSTreeBw, 57.7 GB/s across two servers and 45.5
  // across more, so 4 GiB reaches within 5 % of 8 x that in busbw (the pipeline fills), and
  // never more.
  const double bytes = 4294967296;
  for (const auto& [topology, channel_busbw] :
       {std::pair{"ib-cluster:2x8", 57.7e9}, std::pair{"ib-cluster:4x8", 45.5e9}}) {
    SCOPED_TRACE(topology);
    const Machine m = resolve_topology(topology);
    const double n = static_cast<double>(m.gpus().size());
    const double busbw =
        bytes / simulate_s(m, "allreduce", bytes, 0, "nvls_tree", "Simple") * 2 * (n - 1) / n;
    EXPECT_LE(busbw, 8 * channel_busbw);
    EXPECT_GT(busbw, 0.95 * 8 * channel_busbw);
  }
  // Its latency: NVLS's 25 us in the server, then 2 x log2(servers) network steps. The tuner
  // prices them at NCCL's 20.9 us; the simulation pays the measured 35 us x sqrt(8 GPUs per
  // server) each (nvls_tree_network_hop), or NCCL's 20.9 with that set to 0.
  Machine m = resolve_topology("ib-cluster:4x8");
  EXPECT_NEAR(plan_of(m, 8, "nvls_tree", "Simple").estimate_s, 25e-6 + 4 * 20.9e-6, 1e-7);
  const double small_s = simulate_s(m, "allreduce", 8, 0, "nvls_tree", "Simple");
  EXPECT_GE(small_s, 25e-6 + 4 * 35e-6 * std::sqrt(8.0));
  EXPECT_LT(small_s, 25e-6 + 4 * 35e-6 * std::sqrt(8.0) + 10e-6);
  m.mutable_collectives().nvls_tree_network_hop_s_per_sqrt_gpu = 0;
  const double nccl_latency_s = simulate_s(m, "allreduce", 8, 0, "nvls_tree", "Simple");
  EXPECT_GE(nccl_latency_s, 25e-6 + 4 * 20.9e-6);
  EXPECT_LT(nccl_latency_s, 25e-6 + 4 * 20.9e-6 + 10e-6);
  // With 2 GPUs of each server the measured step is 35 us x sqrt(2).
  m.mutable_collectives().nvls_tree_network_hop_s_per_sqrt_gpu = 35e-6;
  CollectiveOptions two_per_server;
  two_per_server.bytes = 8;
  two_per_server.algorithm = "nvls_tree";
  two_per_server.protocol = "Simple";
  two_per_server.gpus = first_gpus_per_server(m, 2);
  const double two_s =
      simulate_isolated(m, make_collective("allreduce", m, two_per_server).graph).makespan_s;
  EXPECT_GE(two_s, 25e-6 + 4 * 35e-6 * std::sqrt(2.0));
  EXPECT_LT(two_s, 25e-6 + 4 * 35e-6 * std::sqrt(2.0) + 10e-6);
  // Where it does not apply, one clear line: one server, no reducing switch, LL.
  EXPECT_THROW(plan_of(resolve_topology("dgx-h100"), 8, "nvls_tree", "Simple"), InputError);
  EXPECT_THROW(plan_of(resolve_topology("cluster-2x4gpu"), 8, "nvls_tree", "Simple"), InputError);
  EXPECT_THROW(plan_of(m, 8, "nvls_tree", "LL"), InputError);
  CollectiveOptions options;
  options.bytes = 8;
  options.algorithm = "nvls_tree";
  EXPECT_THROW(make_collective("reduce_scatter", m, options), InputError);
}

// The message of a refused request, or "" when it was accepted.
std::string refusal(std::string_view op, const Machine& machine, std::string algorithm) {
  CollectiveOptions options;
  options.bytes = 8;
  options.algorithm = std::move(algorithm);
  options.protocol = "Simple";
  try {
    (void)make_collective(op, machine, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Collectives, ARefusalSuggestsAlgorithmsThatApply) {
  const Machine cluster = resolve_topology("ib-cluster:2x8");
  EXPECT_NE(refusal("allreduce", cluster, "nvls").find("use nvls_tree, tree or hierarchical"),
            std::string::npos);
  for (const char* op : {"all_gather", "reduce_scatter"}) {
    SCOPED_TRACE(op);
    const std::string message = refusal(op, cluster, "nvls");
    EXPECT_NE(message.find(": use ring"), std::string::npos) << message;
    EXPECT_EQ(message.find("tree"), std::string::npos) << message;
    EXPECT_EQ(refusal(op, cluster, "ring"), "");
  }
  // One server: nvls where its switch reduces, else the ring or the tree.
  EXPECT_NE(refusal("allreduce", resolve_topology("dgx-h100"), "nvls_tree").find(": use nvls"),
            std::string::npos);
  for (const char* topology : {"dgx-a100", "dgx1-v100"}) {
    SCOPED_TRACE(topology);
    const Machine m = resolve_topology(topology);
    EXPECT_NE(refusal("allreduce", m, "nvls_tree").find(": use ring or tree"), std::string::npos);
    EXPECT_EQ(refusal("allreduce", m, "tree"), "");
  }
}

TEST(Collectives, FirstGpusPerServerTakesTheSameCountFromEveryServer) {
  const Machine m = resolve_topology("ib-cluster:3x4");
  const std::vector<DeviceId> gpus = first_gpus_per_server(m, 2);
  ASSERT_EQ(gpus.size(), 6u);
  const std::vector<DeviceId> all = m.gpus();
  for (std::size_t server = 0; server < 3; ++server)
    for (std::size_t k = 0; k < 2; ++k) EXPECT_EQ(gpus[2 * server + k], all[4 * server + k]);
  EXPECT_EQ(first_gpus_per_server(m, 4), all);
  EXPECT_THROW(first_gpus_per_server(m, 5), InputError);
  EXPECT_THROW(first_gpus_per_server(m, 0), InputError);
}

TEST(Collectives, HierarchicalPipelinesItsPhasesAndBeatsTheRing) {
  // ib-cluster:2x8@100: 12.5 GB/s NICs under 450 GB/s NVSwitch ports. Hierarchical:
  // reduce-scatter and all-gather inside each server (7/8 S at 450 GB/s each) and S/8 per
  // rail across, in 8 pieces whose phases overlap: between the longer phase and the sum.
  // The ring sends 2(n-1)/n * S/8 through every NIC.
  const double s = 1073741824;
  for (const char* topology : {"ib-cluster:2x8@100", "ib-cluster:2x8"}) {
    SCOPED_TRACE(topology);
    const Machine m = resolve_topology(topology);
    const double nic = std::string(topology).find("@100") != std::string::npos ? 12.5e9 : 50e9;
    const double inside = 2 * 7.0 / 8 * s / 450e9;
    const double across = s / 8 / nic;
    const double hierarchical = simulate_s(m, "allreduce", s, 0, "hierarchical");
    EXPECT_GE(hierarchical, std::max(inside, across));
    EXPECT_LE(hierarchical, inside + across);
    const double ring = simulate_s(m, "allreduce", s, 0, "ring");
    EXPECT_GE(ring, 2 * 15.0 / 16 * s / 8 / nic);
    // Eight rail rings on H100s of six copy engines: NCCL's channels copy with thread
    // blocks, so none queues behind another and the ring runs within 5 % of its NICs.
    EXPECT_LE(ring, 1.05 * 2 * 15.0 / 16 * s / 8 / nic);
    EXPECT_LT(hierarchical, ring);
  }
  // One server has no hierarchy.
  EXPECT_THROW((void)plan_of(resolve_topology("dgx-h100"), s, "hierarchical"), InputError);
}

TEST(Collectives, HierarchicalCopiesGrowAsRailsTimesServersSquared) {
  // N servers of 8: per piece 2(N-1)N copies per rail, 2 x 7 x 8 per server; 8 pieces while
  // that stays within about 4 million copies (ib-cluster:512x8: one piece, 4.24 million
  // copies, against 33.5 million for one ring of all 4096 GPUs).
  const CollectivePlan plan =
      plan_of(resolve_topology("ib-cluster:64x8"), 1073741824, "hierarchical", "Simple");
  // And one op per GPU for its slowest channel's lag.
  EXPECT_EQ(plan.graph.size(), 8u * (8u * 2 * 63 * 64 + 64u * 2 * 7 * 8) + 512u);
}

TEST(Collectives, AutoChoosesLikeNcclsTuner) {
  // One server: the ring with LL at 8 B (6.6 + 14 x 0.6 us beats the tree's 6.8 + 14 x 0.6);
  // at 1 GiB NVLS where the switch reduces, else the ring with Simple.
  const Machine h100 = resolve_topology("dgx-h100");
  CollectivePlan small = plan_of(h100, 8);
  EXPECT_EQ(small.algorithm, "ring");
  EXPECT_EQ(small.protocol, "LL");
  CollectivePlan large = plan_of(h100, 1073741824);
  EXPECT_EQ(large.algorithm, "nvls");
  EXPECT_EQ(large.protocol, "Simple");
  EXPECT_EQ(plan_of(resolve_topology("dgx-a100"), 1073741824).algorithm, "ring");
  EXPECT_EQ(plan_of(resolve_topology("dgx-a100"), 1073741824).protocol, "Simple");
  // Two servers: the tree's log2(2) network steps beat the ring's 2 at 8 B; the NVLS tree at
  // 1 GiB (its 8 channels x 57.7 GB/s beat the ring's NICs once its latency is paid).
  const Machine cluster = resolve_topology("ib-cluster:2x8");
  EXPECT_EQ(plan_of(cluster, 8).algorithm, "tree");
  EXPECT_EQ(plan_of(cluster, 8).protocol, "LL");
  EXPECT_EQ(plan_of(cluster, 1073741824).algorithm, "nvls_tree");
  EXPECT_EQ(plan_of(cluster, 1073741824).protocol, "Simple");
  // Ten servers: each NVLS tree channel gets 45.5 GB/s, 364 in all, below the ring's eight
  // NICs (380): the ring again from 2 GiB, where its longer latency no longer counts.
  const Machine ten = resolve_topology("ib-cluster:10x8");
  EXPECT_EQ(plan_of(ten, 1073741824).algorithm, "nvls_tree");
  EXPECT_EQ(plan_of(ten, 4294967296).algorithm, "ring");
  // A protocol given is kept; auto picks the algorithm for it.
  EXPECT_EQ(plan_of(h100, 8, "auto", "Simple").protocol, "Simple");
}

TEST(Collectives, ChoosingIsMakingWithoutTheGraph) {
  const Machine h100 = resolve_topology("dgx-h100");
  for (double bytes : {8.0, 2097152.0, 1073741824.0}) {
    SCOPED_TRACE(bytes);
    CollectiveOptions options;
    options.bytes = bytes;
    const CollectivePlan chosen = choose_collective("allreduce", h100, options);
    const CollectivePlan made = make_collective("allreduce", h100, options);
    EXPECT_EQ(chosen.algorithm, made.algorithm);
    EXPECT_EQ(chosen.protocol, made.protocol);
    EXPECT_DOUBLE_EQ(chosen.estimate_s, made.estimate_s);
    EXPECT_EQ(chosen.graph.size(), 0u);
    EXPECT_GT(made.graph.size(), 0u);
  }
  CollectiveOptions nvls;
  nvls.algorithm = "nvls";
  EXPECT_THROW(choose_collective("allreduce", resolve_topology("dgx-a100"), nvls), InputError);
}

TEST(Collectives, AProtocolListIsWhatTheTunerChoosesFrom) {
  // NCCL_PROTO=LL,Simple (or an NCCL before 2.5): at 2 MiB on dgx1-v100 the tuner's LL128
  // is out of reach, so it takes the better of LL and Simple by its own estimate.
  const Machine v100 = resolve_topology("dgx1-v100");
  const double bytes = 2097152;
  EXPECT_EQ(plan_of(v100, bytes).protocol, "LL128");
  const CollectivePlan ll = plan_of(v100, bytes, "ring", "LL");
  const CollectivePlan simple = plan_of(v100, bytes, "ring", "Simple");
  const CollectivePlan listed = plan_of(v100, bytes, "ring", "LL,Simple");
  EXPECT_EQ(listed.protocol, ll.estimate_s < simple.estimate_s ? "LL" : "Simple");
  EXPECT_DOUBLE_EQ(listed.estimate_s, std::min(ll.estimate_s, simple.estimate_s));
  EXPECT_EQ(plan_of(v100, bytes, "ring", "Simple,LL128").protocol, "LL128");
  // nvls runs Simple only: a list without it is refused for nvls, one with it keeps Simple.
  const Machine h100 = resolve_topology("dgx-h100");
  EXPECT_EQ(plan_of(h100, 1073741824, "nvls", "LL,Simple").protocol, "Simple");
  EXPECT_THROW(plan_of(h100, 1073741824, "nvls", "LL,LL128"), InputError);
  for (const char* bad : {"LL,", ",LL", "LL,LL", "LL;Simple", "ll", "LL,wire", "auto,LL"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(protocol_choice_error(bad).empty());
    EXPECT_THROW(plan_of(v100, bytes, "ring", bad), InputError);
  }
  EXPECT_EQ(protocol_choice_error("LL,LL"), "protocol 'LL' is listed twice");
}

TEST(Collectives, LlKeepsWithinNcclsLlMaxBusBandwidth) {
  // dgx1-v100: NCCL's tuner caps ring LL at 39 GB/s of bus bandwidth on a Volta server, so
  // 64 MiB with LL takes at least 2(n-1)/n S / 39 GB/s, in the estimate and the simulation,
  // although its links at half their rate would move it faster.
  const Machine v100 = resolve_topology("dgx1-v100");
  const double bytes = 67108864;
  const double capped_s = 2 * 7.0 / 8 * bytes / 39e9;
  const CollectivePlan ll = plan_of(v100, bytes, "ring", "LL");
  EXPECT_GE(ll.estimate_s, capped_s);
  EXPECT_LT(ll.estimate_s, capped_s + 30e-6);  // the cap and the steps' latency
  const double ll_s = simulate_s(v100, "allreduce", bytes, 0, "ring", "LL");
  EXPECT_GE(ll_s, capped_s);
  EXPECT_LT(ll_s, 1.02 * capped_s + 30e-6);
  // Without the cap (collectives.ll_max_busbw: 0) the links alone set LL's rate.
  Machine free = v100;
  free.mutable_collectives().ll_max_busbw_bytes_per_s = 0;
  EXPECT_LT(simulate_s(free, "allreduce", bytes, 0, "ring", "LL"), 0.8 * capped_s);
  // Across servers the cap is the CPU's: 20.4 GB/s from three servers on (Intel).
  const Machine cluster = resolve_topology("ib-cluster:4x8");
  const double cluster_capped_s = 2 * 31.0 / 32 * bytes / 20.4e9;
  EXPECT_GE(plan_of(cluster, bytes, "ring", "LL").estimate_s, cluster_capped_s);
  EXPECT_GE(simulate_s(cluster, "allreduce", bytes, 0, "ring", "LL"), cluster_capped_s);
  // The tree turns bus into algorithm bandwidth by 1/2: S / (20.4 GB/s / 2).
  EXPECT_GE(plan_of(cluster, bytes, "tree", "LL").estimate_s, bytes / (20.4e9 / 2));
}

TEST(Collectives, AcrossServersTheRingEstimatePaysNcclsNetworkPostsAndPlateau) {
  // ib-cluster:2x8 (16 GPUs, 2 servers): NCCL's tuner has the ring post each of its 28 steps
  // inside the servers at no less than getNetOverhead (1 us, 3 for Simple) and stretches a
  // Simple allreduce's latency by 1.4. Against a machine without either, only the latency
  // moves: LL at 8 B by 28 x (1.0 - 0.6) us; Simple at 1 GiB by 0.4 x (8.4 + 28 x 3.4 + 2 x 14).
  const Machine cluster = resolve_topology("ib-cluster:2x8");
  Machine plain = cluster;
  plain.mutable_collectives().network_post_overhead_s = 0;
  plain.mutable_collectives().ring_plateau_factor = 1;
  const auto estimate = [](const Machine& m, double bytes, const char* protocol) {
    return plan_of(m, bytes, "ring", protocol).estimate_s;
  };
  EXPECT_NEAR(estimate(cluster, 8, "LL") - estimate(plain, 8, "LL"), 28 * 0.4e-6, 1e-9);
  EXPECT_NEAR(estimate(cluster, 1073741824, "Simple") - estimate(plain, 1073741824, "Simple"),
              0.4 * (8.4e-6 + 28 * 3.4e-6 + 2 * 14e-6), 1e-9);
  // At 32 KiB auto takes the tree, as NCCL does: LL's cap bounds the tree's whole pipeline,
  // not each of its 16 hops.
  EXPECT_EQ(plan_of(cluster, 32768).algorithm, "tree");
  // The simulation pays its steps as they come, not the tuner's constants.
  EXPECT_DOUBLE_EQ(simulate_s(cluster, "allreduce", 8, 0, "ring", "LL"),
                   simulate_s(plain, "allreduce", 8, 0, "ring", "LL"));
}

TEST(Collectives, WithOneGpuPerServerTheRingEstimateTakesTheTreesNetworkLatency) {
  // ib-cluster:10x8 with one GPU per server: NCCL's tuner prices each of the ring's 18 steps
  // across servers at the tree's network latency (LL128: 8.5 us, not the ring's 4.0), so
  // the allreduce leaves LL128 for Simple by 64 MiB, where the published run's 47.5 GB/s
  // busbw is above anything LL128's 120 of 128 bytes could carry over a 400 Gb/s NIC.
  const Machine cluster = resolve_topology("ib-cluster:10x8@400");
  CollectiveOptions options;
  options.gpus = first_gpus_per_server(cluster, 1);
  options.bytes = 8;
  options.algorithm = "ring";
  options.protocol = "LL128";
  const double one_per_server_s = choose_collective("allreduce", cluster, options).estimate_s;
  options.gpus = first_gpus_per_server(cluster, 2);
  const double two_per_server_s = choose_collective("allreduce", cluster, options).estimate_s;
  const CollectiveModel& m = cluster.collectives();
  // 2 per server: 20 steps inside the servers at max(1.9 us, 1 us of posts), 18 across at 4.0.
  EXPECT_NEAR(two_per_server_s, m.ring_ll128_base_s + 20 * 1.9e-6 + 18 * 4.0e-6, 1e-9);
  EXPECT_NEAR(one_per_server_s, m.ring_ll128_base_s + 18 * m.tree_ll128_network_step_s, 1e-9);
  options.gpus = first_gpus_per_server(cluster, 1);
  options.algorithm = "auto";
  options.protocol = "auto";
  options.bytes = 32 * 1048576.0;
  EXPECT_EQ(choose_collective("allreduce", cluster, options).protocol, "LL128");
  options.bytes = 64 * 1048576.0;
  EXPECT_EQ(choose_collective("allreduce", cluster, options).protocol, "Simple");
}

TEST(Collectives, RingStepsAcrossServersPayTheirLatencyOnTheFirstSliceOnly) {
  // One GPU per server on ib-cluster:4x8, Simple: every hop crosses the network, and each NIC
  // carries two of NCCL's ring channels. A step of 16 MiB (8 MiB a channel) is forwarded
  // slice by slice (NCCL's 1 MiB), so the 6 steps after the first hide their 14 us, the
  // route's latency within it, behind the previous step's slices in flight; a step of
  // 256 KiB is one slice a channel and pays what the other channel does not hide of it
  // (two_channel_wait_s). (The slowest channel's lag aside.)
  const Machine cluster = without_straggle(resolve_topology("ib-cluster:4x8"));
  const CollectiveModel& m = cluster.collectives();
  CollectiveOptions options;
  options.gpus = first_gpus_per_server(cluster, 1);
  options.algorithm = "ring";
  options.protocol = "Simple";
  const DeviceId a = options.gpus[0];
  const DeviceId b = options.gpus[1];
  const double rate = cluster.route_bytes_per_s(a, b) * m.network_efficiency;
  const double route_s = cluster.route_latency_s(a, b);
  const auto overhead_s = [&](double bytes) {
    options.bytes = bytes;
    const double makespan_s =
        simulate_isolated(cluster, make_collective("allreduce", cluster, options).graph).makespan_s;
    return makespan_s - 6 * bytes / 4 / rate;  // beyond the links' time for 2(n-1) chunks
  };
  const double sliced_s = overhead_s(64 * 1048576.0);
  const double whole_s = overhead_s(1048576.0);
  const double step_s = m.ring_simple_network_step_s;
  const double channel_wire_s = 1048576.0 / 4 / 2 / rate;  // a channel's half of a chunk
  const double whole_step_s = collectives::two_channel_wait_s(step_s, channel_wire_s);
  EXPECT_GT(whole_s, m.ring_simple_base_s + 6 * whole_step_s - 1e-9);
  EXPECT_LT(whole_s, m.ring_simple_base_s + 6 * whole_step_s + 3 * route_s);
  ASSERT_GT(route_s, 1e-6);
  EXPECT_LT(sliced_s, m.ring_simple_base_s + step_s + 3 * route_s);  // not 6 routes more
  EXPECT_GT(sliced_s, m.ring_simple_base_s + step_s);
}

TEST(Collectives, RingsAcrossEightGpuServersRunOneChannelPerNic) {
  // NCCL doubles a ring graph of at most 4 channels, so with 4 GPUs (NICs) per server each
  // NIC carries two ring channels and the NIC bounds them; with 8 it carries one, which
  // moves ring_network_channel_bandwidth beyond each step's first slice. All-gather of 4 GiB
  // on 4 x 8 H100, Simple.
  const Machine cluster = resolve_topology("ib-cluster:4x8@400");
  const CollectiveModel& m = cluster.collectives();
  ASSERT_LT(m.ring_network_channel_bytes_per_s, 48e9);
  CollectiveOptions options;
  options.bytes = 4294967296.0;
  options.algorithm = "ring";
  options.protocol = "Simple";
  const auto busbw = [&](int per_server) {
    options.gpus = first_gpus_per_server(cluster, per_server);
    const double n = static_cast<double>(options.gpus.size());
    const double s =
        simulate_isolated(cluster, make_collective("all_gather", cluster, options).graph)
            .makespan_s;
    return options.bytes / s * (n - 1) / n;
  };
  const double nic_bytes_per_s = 50e9 * m.network_efficiency;
  EXPECT_NEAR(busbw(4), 4 * nic_bytes_per_s, 0.03 * 4 * nic_bytes_per_s);
  // A step of 16 MiB per channel: its latency and first slice at the NIC's rate, then the
  // rest at the channel's (ARingChannelAloneOnItsNicPaysItsStepLatencyEveryStep).
  const double step_bytes = options.bytes / 32 / 8;
  const double step_s =
      m.ring_simple_network_step_s + m.ring_simple_slice_bytes / nic_bytes_per_s +
      (step_bytes - m.ring_simple_slice_bytes) / m.ring_network_channel_bytes_per_s;
  EXPECT_NEAR(busbw(8), 8 * step_bytes / step_s, 0.03 * 8 * step_bytes / step_s);
  // The tuner, as NCCL's, reckons with the NICs alone.
  options.gpus = first_gpus_per_server(cluster, 8);
  const double estimate_s = choose_collective("all_gather", cluster, options).estimate_s;
  EXPECT_LT(estimate_s, options.bytes * 63 / 64 / (8 * nic_bytes_per_s) * 1.02);
}

TEST(Collectives, ARingChannelAloneOnItsNicPaysItsStepLatencyEveryStep) {
  // All-gather on 4 x 8 H100, Simple, 1 MiB steps (one slice each): with 8 GPUs per server
  // each NIC carries one ring channel, whose 31 steps across the NIC follow one another, each
  // after its 14 us and at the NIC's rate (a step's first slice does not keep to the channel
  // rate). With 4 per server two channels share each NIC, 512 KiB a step each, and each
  // hides much of the other's latency (two_channel_wait_s).
  const Machine cluster = without_straggle(resolve_topology("ib-cluster:4x8@400"));
  Machine no_network_step = cluster;
  no_network_step.mutable_collectives().ring_simple_network_step_s = 0;
  const CollectiveModel& m = cluster.collectives();
  CollectiveOptions options;
  options.algorithm = "ring";
  options.protocol = "Simple";
  const auto seconds = [&](const Machine& machine, int per_server) {
    options.gpus = first_gpus_per_server(machine, per_server);
    options.bytes = 1048576.0 * static_cast<double>(options.gpus.size()) * per_server;
    return simulate_isolated(machine, make_collective("all_gather", machine, options).graph)
        .makespan_s;
  };
  const double nic_bytes_per_s = 50e9 * m.network_efficiency;
  const double lone_s = 31 * (m.ring_simple_network_step_s + 1048576.0 / nic_bytes_per_s);
  EXPECT_GT(seconds(cluster, 8), lone_s);
  EXPECT_LT(seconds(cluster, 8), 1.03 * lone_s);
  // Without the step latency other hops bound it; with it every step adds most of it.
  EXPECT_GT(seconds(cluster, 8) - seconds(no_network_step, 8),
            0.5 * 31 * m.ring_simple_network_step_s);
  const DeviceId a = first_gpus_per_server(cluster, 4)[3];
  const DeviceId b = first_gpus_per_server(cluster, 4)[7];
  ASSERT_EQ(collectives::link_class(cluster, a, b), collectives::LinkClass::kNetwork);
  const double route_s = cluster.route_latency_s(a, b);
  const double channel_wire_s = 524288.0 / m.network_efficiency / 50e9;
  const double paired_s =
      15 * (collectives::two_channel_wait_s(m.ring_simple_network_step_s, channel_wire_s) -
            collectives::two_channel_wait_s(route_s, channel_wire_s));
  EXPECT_NEAR(seconds(cluster, 4) - seconds(no_network_step, 4), paired_s, 0.05 * paired_s);
  EXPECT_LT(paired_s, 0.5 * 15 * m.ring_simple_network_step_s);
}

TEST(Collectives, TwoChannelsOnANicHideOnAverageWhatTheirOffsetLetsThemHide) {
  // Two channels run the same steps on one NIC, each moving its share in t alone, after a
  // latency l. With the second offset by d they overlap while d < min(t, l), and a period is
  // 2t + l - d; beyond, the NIC idles between them (l + t) or never (2t). The mean over d
  // uniform in [0, half a period], by the midpoint rule, less the wire's 2t:
  const auto mean_wait_s = [](double l, double t) {
    const double apart_s = std::max(2 * t, l + t);
    const double half_s = apart_s / 2;
    const int points = 200000;
    double sum_s = 0;
    for (int i = 0; i < points; ++i) {
      const double d = (i + 0.5) * half_s / points;
      sum_s += d < std::min(t, l) ? 2 * t + l - d : apart_s;
    }
    return sum_s / points - 2 * t;
  };
  for (const auto& [l, t] : std::vector<std::pair<double, double>>{
           {5.2e-6, 2.37e-6}, {5.2e-6, 4.75e-6}, {5.2e-6, 9.5e-6}, {14e-6, 1e-6}, {3e-6, 3e-6}})
    EXPECT_NEAR(collectives::two_channel_wait_s(l, t), mean_wait_s(l, t), 1e-11) << l << " " << t;
  // Its bounds: no less than a perfect stagger's max(0, l - t), no more than the latency.
  EXPECT_NEAR(collectives::two_channel_wait_s(5e-6, 1e-9), 5e-6, 1e-8);
  EXPECT_NEAR(collectives::two_channel_wait_s(1e-6, 1e-3), 0, 1e-8);
  EXPECT_DOUBLE_EQ(collectives::two_channel_wait_s(0, 1e-6), 0);
  EXPECT_DOUBLE_EQ(collectives::two_channel_wait_s(4e-6, 0), 4e-6);
}

TEST(Collectives, AcrossServersTheTunerCapsRingLl128AtNcclsPerChannelBusBandwidth) {
  // NCCL's tuner grants a ring with LL128 at most perChMaxRingLL128Bw (36.7 GB/s on Hopper)
  // per channel of its graph: 8 channels on ten 8-GPU servers, 294 GB/s, where Simple gets
  // the NICs' 384. So from 256 MiB it takes Simple (the published all-gather slows down
  // there). The simulation does not keep to that cap: LL128 moves as its links allow.
  Machine cluster = resolve_topology("ib-cluster:10x8@400");
  CollectiveOptions options;
  options.bytes = 268435456;
  options.protocol = "auto";
  options.algorithm = "ring";
  EXPECT_EQ(choose_collective("all_gather", cluster, options).protocol, "Simple");
  options.protocol = "LL128";
  const CollectivePlan capped = choose_collective("all_gather", cluster, options);
  const double n = 80;
  EXPECT_GT(capped.estimate_s, options.bytes * (n - 1) / n / (8 * 36.7e9));
  const auto simulated_s = [&] {
    return simulate_isolated(cluster, make_collective("all_gather", cluster, options).graph)
        .makespan_s;
  };
  const double with_cap_s = simulated_s();

  cluster.mutable_collectives().ring_ll128_channel_busbw_bytes_per_s = 0;
  EXPECT_LT(choose_collective("all_gather", cluster, options).estimate_s, capped.estimate_s);
  EXPECT_DOUBLE_EQ(simulated_s(), with_cap_s);
  options.protocol = "auto";
  EXPECT_EQ(choose_collective("all_gather", cluster, options).protocol, "LL128");
}

TEST(Collectives, AutoWeighsTheTreesPipelineFillAsTheSimulationPaysIt) {
  // One server of 256 GPUs on an NVLink ring: the tree is a chain of 255 hops, whose
  // pipeline fill the simulation pays; auto must not prefer it to the ring at 1 GiB.
  const Machine ring = resolve_topology("nvlink-ring:256");
  const CollectivePlan chosen = plan_of(ring, 1073741824, "auto", "Simple");
  EXPECT_EQ(chosen.algorithm, "ring");
  const CollectivePlan tree = plan_of(ring, 1073741824, "tree", "Simple");
  EXPECT_GT(tree.estimate_s, chosen.estimate_s);
}

TEST(Collectives, TheSlowestChannelLagsByTheSquareRootOfEachGpusShare) {
  // dgx-h100 sets straggle_after_gib: a ring all-gather or all-reduce ends that much later
  // once each GPU's share (S/n) is 1 GiB, half as much at 1/4 GiB, on 4 GPUs as on 8; a
  // pipelined broadcast passes all of S through each GPU. Without it, exactly that less.
  const Machine h100 = resolve_topology("dgx-h100");
  const double lag_s = h100.collectives().straggle_after_gib_s;
  ASSERT_GT(lag_s, 50e-6);
  const Machine flat = without_straggle(h100);
  const double gib = 1073741824;
  const auto extra_s = [&](std::string_view op, double bytes, std::size_t gpus) {
    CollectiveOptions options;
    options.bytes = bytes;
    options.algorithm = "ring";
    options.protocol = "Simple";
    const std::vector<DeviceId> all = h100.gpus();
    options.gpus.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(gpus));
    return simulate_isolated(h100, make_collective(op, h100, options).graph).makespan_s -
           simulate_isolated(flat, make_collective(op, flat, options).graph).makespan_s;
  };
  for (const std::size_t gpus : {4, 8}) {
    SCOPED_TRACE(gpus);
    const double n = static_cast<double>(gpus);
    EXPECT_NEAR(extra_s("all_gather", n * gib, gpus), lag_s, 0.02 * lag_s);
    EXPECT_NEAR(extra_s("all_gather", n * gib / 4, gpus), lag_s / 2, 0.02 * lag_s);
    EXPECT_NEAR(extra_s("allreduce", n * gib, gpus), lag_s, 0.02 * lag_s);
  }
  EXPECT_NEAR(extra_s("broadcast", gib, 8), lag_s, 0.02 * lag_s);
  // One op per GPU after the last copies into it, so pipelined pieces do not add it up: the
  // hierarchical allreduce across 4 servers pays it once.
  const Machine cluster = resolve_topology("ib-cluster:4x8");
  const auto hierarchical_s = [](const Machine& machine) {
    return simulate_s(machine, "allreduce", 1073741824, 0, "hierarchical", "Simple");
  };
  EXPECT_NEAR(hierarchical_s(cluster) - hierarchical_s(without_straggle(cluster)),
              lag_s * std::sqrt(1.0 / 32), 0.01 * lag_s);
  // Not sends, whose channel rate holds it; not NVLS, whose chunk costs do; not bare links.
  EXPECT_EQ(simulate_s(h100, "sendrecv", gib, 0, "", "Simple"),
            simulate_s(flat, "sendrecv", gib, 0, "", "Simple"));
  EXPECT_EQ(simulate_s(h100, "allreduce", gib, 0, "nvls", "Simple"),
            simulate_s(flat, "allreduce", gib, 0, "nvls", "Simple"));
  EXPECT_EQ(simulate_s(h100, "all_gather", gib, 0, "ring", "wire"),
            simulate_s(flat, "all_gather", gib, 0, "ring", "wire"));
  // The tuner's estimate, as NCCL's, does not know it.
  CollectiveOptions options;
  options.bytes = gib;
  EXPECT_EQ(choose_collective("all_gather", h100, options).estimate_s,
            choose_collective("all_gather", flat, options).estimate_s);
}

TEST(Collectives, SendRecvMovesSOverOneHop) {
  // Each GPU sends S to the next at once: S/B through the book's switch.
  const Machine m = resolve_topology("pcie-switch-4gpu");
  expect_time(simulate_s(m, "sendrecv", 160e6), 160e6 / kPcie);
}

TEST(Collectives, SendRecvInsideAServerRunsOnNcclsChannelsForItsSize) {
  // NCCL's addP2pToPlan with 32 channels: on 8 ranks a peer's part starts on 32/8 = 4 and
  // doubles while a channel's share passes 16 MiB, up to 32; on 4 ranks it starts on 8.
  const Machine h100 = without_straggle(resolve_topology("dgx-h100"));
  const CollectiveModel& model = h100.collectives();
  const double mib = 1048576;
  const std::pair<double, std::size_t> eight[] = {{64 * 1024, 1},  {32 * mib, 4},   {64 * mib, 4},
                                                  {128 * mib, 8},  {256 * mib, 16}, {512 * mib, 32},
                                                  {4096 * mib, 32}};
  for (const auto& [bytes, channels] : eight)
    EXPECT_EQ(collectives::p2p_channels_for(model, bytes, 8), channels) << bytes;
  EXPECT_EQ(collectives::p2p_channels_for(model, 32 * mib, 4), 8u);
  EXPECT_EQ(collectives::p2p_channels_for(model, 32 * mib, 80), 2u);  // 1, doubled past 16 MiB
  // Each channel moves at most p2p_channel_bandwidth (20.4 GB/s on the H100 preset): 32 MiB
  // on 4 channels, past the links' 370.8 GB/s.
  const double bytes = 32 * mib;
  const double channels_s = bytes / (4 * model.p2p_channel_bytes_per_s);
  const double capped_s = simulate_s(h100, "sendrecv", bytes, 0, "", "Simple");
  EXPECT_GE(capped_s, channels_s);
  EXPECT_LT(capped_s, channels_s + 15e-6);
  // Without a channel rate (0) the links alone set it.
  Machine free = h100;
  free.mutable_collectives().p2p_channel_bytes_per_s = 0;
  EXPECT_LT(simulate_s(free, "sendrecv", bytes, 0, "", "Simple"), 0.3 * capped_s);
  // The tuner's estimate pays the same channels.
  CollectiveOptions options;
  options.bytes = bytes;
  options.protocol = "Simple";
  EXPECT_NEAR(choose_collective("sendrecv", h100, options).estimate_s, capped_s, 0.05 * capped_s);
  // A channel's rate is of wire bytes: LL, half of them flags, gets half the payload rate,
  // so auto takes Simple for large sends.
  const double ll_s = simulate_s(h100, "sendrecv", bytes, 0, "", "LL");
  EXPECT_NEAR(ll_s, 2 * channels_s, 0.05 * channels_s);
  options.protocol = "auto";
  EXPECT_EQ(choose_collective("sendrecv", h100, options).protocol, "Simple");
}

TEST(Collectives, ASendInsideAnA100ServerStopsAtItsPeakOnManyChannels) {
  // dgx-a100: 13.9 GB/s a channel, at most 195 GB/s a send. 128 MiB runs on 8 channels
  // (111 GB/s, below the peak); 1 GiB on 32 (445 GB/s of channels, past the links' 240 GB/s)
  // stops at the peak.
  const Machine a100 = without_straggle(resolve_topology("dgx-a100"));
  const CollectiveModel& model = a100.collectives();
  ASSERT_GT(model.p2p_peak_bytes_per_s, 0);
  const double mib = 1048576;
  const double small = 128 * mib;
  const double small_s = simulate_s(a100, "sendrecv", small, 0, "", "Simple");
  EXPECT_GE(small_s, small / (8 * model.p2p_channel_bytes_per_s));
  EXPECT_LT(small_s, small / (8 * model.p2p_channel_bytes_per_s) + 15e-6);
  const double large = 1024 * mib;
  const double peak_s = simulate_s(a100, "sendrecv", large, 0, "", "Simple");
  EXPECT_GE(peak_s, large / model.p2p_peak_bytes_per_s);
  EXPECT_LT(peak_s, large / model.p2p_peak_bytes_per_s + 15e-6);
  // Without the peak (0) the links bound it, 240 GB/s: faster.
  Machine no_peak = a100;
  no_peak.mutable_collectives().p2p_peak_bytes_per_s = 0;
  EXPECT_LT(simulate_s(no_peak, "sendrecv", large, 0, "", "Simple"), 0.9 * peak_s);
  // A peak alone, without a channel rate, bounds a send too.
  Machine peak_only = no_peak;
  peak_only.mutable_collectives().p2p_channel_bytes_per_s = 0;
  peak_only.mutable_collectives().p2p_peak_bytes_per_s = 100e9;
  EXPECT_NEAR(simulate_s(peak_only, "sendrecv", large, 0, "", "Simple"), large / 100e9, 15e-6);
}

TEST(Collectives, SendRecvAcrossServersRunsOnNcclsNetworkChannelsAndPipelinesItsRelay) {
  // NCCL starts a network peer on 4 channels (a 400 Gb/s NIC over 14 GB/s) and halves them
  // while a round of all ranks, 8 a batch, would need more than the comm's p2p channels (its
  // ring channels doubled): 2 on ten servers with 1, 2 or 4 GPUs each, 1 with 8.
  const Machine cluster = without_straggle(resolve_topology("ib-cluster:10x8@400"));
  const CollectiveModel& model = cluster.collectives();
  EXPECT_EQ(collectives::p2p_network_channels_for(model, 10, 1), 2u);
  EXPECT_EQ(collectives::p2p_network_channels_for(model, 20, 2), 2u);
  EXPECT_EQ(collectives::p2p_network_channels_for(model, 40, 4), 2u);
  EXPECT_EQ(collectives::p2p_network_channels_for(model, 80, 8), 1u);
  EXPECT_EQ(collectives::p2p_network_channels_for(model, 4, 1), 4u);
  CollectiveOptions across;
  across.bytes = 1073741824;
  across.protocol = "Simple";
  for (const std::size_t per_server : {1, 2, 4, 8}) {
    SCOPED_TRACE(per_server);
    // Each GPU sends 1 GiB to the next; with 2 or more per server the last GPU's send
    // leaves by another rail's NIC (PXN): over NVLink to that rail's GPU first, which
    // forwards each piece as it lands, so the NVLink hop (3 ms here) hides behind the
    // network's 43 ms but for one piece.
    across.gpus = first_gpus_per_server(cluster, static_cast<int>(per_server));
    const double channels = static_cast<double>(
        collectives::p2p_network_channels_for(model, across.gpus.size(), per_server));
    // The channels in parallel, then the stage they share.
    const double wire_s = across.bytes / (channels * model.p2p_network_channel_bytes_per_s) +
                          across.bytes / model.p2p_network_shared_bytes_per_s;
    const double across_s =
        simulate_isolated(cluster, make_collective("sendrecv", cluster, across).graph).makespan_s;
    EXPECT_GT(across_s, wire_s);
    EXPECT_LT(across_s, wire_s * 1.01 + 100e-6);
  }
}

TEST(Collectives, AllToAllAcrossServersIsBoundByItsPeersChannelsWhereItHasFewPeers) {
  // Two servers of one GPU: each GPU's one remote peer runs on 4 channels, which move less
  // than the NIC (the same rate as a sendrecv between them). Ten servers: two peers at once
  // on 2 channels each, more than the NIC, so the NIC bounds it.
  const Machine cluster = resolve_topology("ib-cluster:10x8@400");
  const CollectiveModel& m = cluster.collectives();
  CollectiveOptions options;
  options.bytes = 4294967296.0;
  options.protocol = "Simple";
  const auto seconds = [&](std::string_view op, std::size_t servers) {
    options.gpus = first_gpus_per_server(cluster, 1);
    options.gpus.resize(servers);
    return simulate_isolated(cluster, make_collective(op, cluster, options).graph).makespan_s;
  };
  const double four_channels_bytes_per_s =
      1 / (1 / (4 * m.p2p_network_channel_bytes_per_s) + 1 / m.p2p_network_shared_bytes_per_s);
  const double nic_bytes_per_s = 50e9 * m.network_efficiency;
  ASSERT_LT(four_channels_bytes_per_s, 0.9 * nic_bytes_per_s);
  const double two_s = seconds("all_to_all", 2);
  // Before its send each GPU copies its own S/2 on the same channels (out of place).
  const double self_copy_s = options.bytes / 2 / m.p2p_self_copy_bytes_per_s;
  EXPECT_NEAR(two_s, options.bytes / 2 / four_channels_bytes_per_s + self_copy_s, 0.01 * two_s);
  EXPECT_NEAR(seconds("sendrecv", 2), options.bytes / four_channels_bytes_per_s, 0.02 * two_s);
  const double ten_s = seconds("all_to_all", 10);
  EXPECT_NEAR(ten_s, options.bytes * 0.9 / nic_bytes_per_s, 0.03 * ten_s);
}

TEST(Collectives, AnAllToAllsCopyToItselfHoldsUpItsSendsOnlyWhereTheirChannelsBindThem) {
  // Out of place each GPU also copies its own S/n, on the channels of its sends. Two servers
  // of one GPU: those channels bind the send, so the copy adds its S/2 at
  // p2p_self_copy_bandwidth. One server of eight: the NVLinks bind, the copy runs beside.
  const auto seconds = [](Machine machine, std::size_t servers, double self_copy_bytes_per_s) {
    machine.mutable_collectives().p2p_self_copy_bytes_per_s = self_copy_bytes_per_s;
    CollectiveOptions options;
    options.bytes = 1 << 30;
    options.protocol = "Simple";
    options.gpus = first_gpus_per_server(machine, servers == 1 ? 8 : 1);
    options.gpus.resize(servers == 1 ? 8 : servers);
    return simulate_isolated(machine, make_collective("all_to_all", machine, options).graph)
        .makespan_s;
  };
  const Machine cluster = resolve_topology("ib-cluster:2x8@400");
  const double slow_copy_bytes_per_s = 100e9;
  const double two_servers_s = seconds(cluster, 2, slow_copy_bytes_per_s);
  EXPECT_NEAR(two_servers_s - seconds(cluster, 2, 0), (1 << 30) / 2 / slow_copy_bytes_per_s,
              0.02 * two_servers_s);
  const double one_server_s = seconds(cluster, 1, slow_copy_bytes_per_s);
  EXPECT_NEAR(one_server_s, seconds(cluster, 1, 0), 0.005 * one_server_s);
  EXPECT_GT(one_server_s, (1 << 30) / 8 / slow_copy_bytes_per_s);  // the copy fits beside
}

TEST(Collectives, TreesAcrossServersUseEveryRail) {
  // A pair of trees per rail, each server's chain starting at the rail's GPU: on 4 x 8 H100
  // the tree of 1 GiB keeps pace with the rail rings (with one pair it used 2 of 8 NICs and
  // took over 5 times as long).
  const Machine m = resolve_topology("ib-cluster:4x8@400");
  const double s = 1 << 30;
  const double tree = simulate_s(m, "allreduce", s, 0, "tree");
  const double ring = simulate_s(m, "allreduce", s, 0, "ring");
  EXPECT_LT(tree, 1.2 * ring);
  EXPECT_GT(tree, s / 8 / 50e9);  // every NIC carries at least its rail's S/8 each way
}

TEST(Collectives, AcrossServersSendsTakeTheReceiversRailAsNcclsPxn) {
  // ib-cluster:2x8@400: a send to the other server's GPU of another rail goes over NVLink to
  // the local GPU of that rail, then through its NIC: no copy crosses servers between rails
  // (where opsim's shortest route would climb a CPU's PCIe root, 3x slower), and the
  // all-to-all runs near the NICs' rate: each NIC carries the S/2 its rail receives from the 8
  // other-server GPUs (the rounds leave a relay idle until its first piece: within 30 %).
  const Machine m = resolve_topology("ib-cluster:2x8@400");
  const std::vector<DeviceId> gpus = m.gpus();
  auto rail = [&](DeviceId gpu) {
    return static_cast<std::size_t>(std::find(gpus.begin(), gpus.end(), gpu) - gpus.begin()) % 8;
  };
  for (const char* op : {"all_to_all", "sendrecv"}) {
    SCOPED_TRACE(op);
    CollectiveOptions options;
    options.bytes = 1 << 30;
    options.protocol = "wire";
    const CollectivePlan plan = make_collective(op, m, options);
    for (OpId id = 0; id < plan.graph.size(); ++id) {
      const Op& copy = plan.graph.op(id);
      if (m.device(copy.device).node != m.device(copy.peer).node) {
        EXPECT_EQ(rail(copy.device), rail(copy.peer)) << plan.graph.name(id);
      }
    }
  }
  const double s = 1 << 30;
  const double t = simulate_s(m, "all_to_all", s);
  EXPECT_GE(t, s / 2 / 50e9);
  EXPECT_LE(t, 1.3 * s / 2 / 50e9);
}

TEST(Collectives, ProtocolValuesComeFromTheTopologyFile) {
  const char* yaml = R"(
name: two
devices:
  - {name: cpu0, kind: cpu}
  - {name: sw0, kind: switch, in_switch_reduction: true}
  - {name: gpu0, kind: gpu}
  - {name: gpu1, kind: gpu}
links:
  - {between: [gpu0, sw0], type: nvlink}
  - {between: [gpu1, sw0], type: nvlink}
  - {between: [sw0, cpu0], type: pcie}
collectives: {ring_ll_nvlink_step: 5us, ring_ll_base_latency: 0, nvlink_efficiency: 1}
)";
  const Machine m = parse_topology_yaml(yaml, "two.yaml");
  EXPECT_DOUBLE_EQ(m.collectives().ring_ll_nvlink_step_s, 5e-6);
  EXPECT_TRUE(m.device(*m.find_device("sw0")).reduces_in_switch);
  // Two steps of 5 us (the links' own 1.4 us within them).
  EXPECT_NEAR(simulate_s(m, "allreduce", 8, 0, "ring", "LL"), 2 * 5e-6, 20e-9);
  EXPECT_EQ(plan_of(m, 1e9, "nvls").algorithm, "nvls");  // its switch reduces
  // Written back only where it differs from NCCL's values, and read back the same.
  const std::string text = dump_topology_yaml(m);
  EXPECT_NE(text.find("ring_ll_nvlink_step: 5us"), std::string::npos) << text;
  EXPECT_EQ(text.find("ring_ll128_nvlink_step"), std::string::npos) << text;
  EXPECT_DOUBLE_EQ(parse_topology_yaml(text, "again.yaml").collectives().ring_ll_nvlink_step_s,
                   5e-6);
  EXPECT_THROW(parse_topology_yaml(std::string(yaml) + "  extra: 1\n", "bad.yaml"), InputError);
  const std::string bad = std::string(yaml).replace(std::string(yaml).find("nvlink_efficiency: 1"),
                                                    20, "nvlink_efficiency: 2");
  EXPECT_THROW(parse_topology_yaml(bad, "bad.yaml"), InputError);
}

TEST(Collectives, HostLaunchesFloorAnIterationWithSeveralGpusPerThread) {
  // nccl-tests -g 8: one thread launches 8 kernels of 5 us each (GpuModel::launch_s).
  const Machine m = resolve_topology("dgx-a100");
  CollectiveOptions options;
  options.bytes = 8;
  options.gpus_per_thread = 8;
  const CollectivePlan plan = make_collective("allreduce", m, options);
  EXPECT_NEAR(simulate_isolated(m, plan.graph).makespan_s, 8 * 5e-6, 1e-9);
  options.gpus_per_thread = 9;
  EXPECT_THROW((void)make_collective("allreduce", m, options), InputError);
}

}  // namespace
}  // namespace opsim
