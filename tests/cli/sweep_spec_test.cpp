// The sweep spec in process: grid order, zip groups, point keys that depend on the
// parameters only, and the layout of a row.
#include "experiments/cli/sweep_spec.hpp"

#include <gtest/gtest.h>

#include <set>

#include "common/input_error.hpp"
#include "experiments/cli/sweep_table.hpp"

namespace opsim {
namespace {

std::vector<std::string> described(const SweepSpec& spec) {
  std::vector<std::string> out;
  for (const SweepPoint& point : sweep_points(spec)) out.push_back(describe_point(spec, point));
  return out;
}

TEST(SweepSpec, TheLastAxisVariesFastestInTheTablesOrderWhateverTheKeyOrder) {
  const SweepSpec spec = parse_sweep_spec(
      "strategies: [tree, ring]\nbytes: [1KiB, 2KiB]\ntopologies: [pcie-switch-4gpu]\n", "s.yaml");
  EXPECT_EQ(described(spec), (std::vector<std::string>{
                                 "topology=pcie-switch-4gpu, bytes=1024, strategy=tree",
                                 "topology=pcie-switch-4gpu, bytes=1024, strategy=ring",
                                 "topology=pcie-switch-4gpu, bytes=2048, strategy=tree",
                                 "topology=pcie-switch-4gpu, bytes=2048, strategy=ring",
                             }));
}

TEST(SweepSpec, AZipGroupMovesAsOneAxisAtItsFirstMembersPlace) {
  const SweepSpec spec = parse_sweep_spec(
      "topologies: [nvlink-ring:4, nvlink-ring:8]\ncollectives: [allreduce]\n"
      "bytes: [1MB]\nset: {gpu0.fp32_peak: [10TFLOPS, 20TFLOPS]}\ngpus: [4, 8]\n"
      "zip: [[set.gpu0.fp32_peak, topologies]]\n",
      "s.yaml");
  EXPECT_EQ(described(spec), (std::vector<std::string>{
                                 "topology=nvlink-ring:4, gpu0.fp32_peak=10TFLOPS, gpus=4, "
                                 "bytes=1000000, op=allreduce",
                                 "topology=nvlink-ring:4, gpu0.fp32_peak=10TFLOPS, gpus=8, "
                                 "bytes=1000000, op=allreduce",
                                 "topology=nvlink-ring:8, gpu0.fp32_peak=20TFLOPS, gpus=4, "
                                 "bytes=1000000, op=allreduce",
                                 "topology=nvlink-ring:8, gpu0.fp32_peak=20TFLOPS, gpus=8, "
                                 "bytes=1000000, op=allreduce",
                             }));
}

TEST(SweepSpec, KeysDependOnTheParametersNotOnSpellingOrOrder) {
  const SweepSpec a = parse_sweep_spec(
      "topologies: [pcie-switch-4gpu]\nstrategies: [tree, ring]\nbytes: [160MB]\n", "a.yaml");
  const SweepSpec b = parse_sweep_spec(
      "bytes: 160000000  # the same size, spelled out\nstrategies: [ring, tree]\n"
      "topologies: pcie-switch-4gpu\n",
      "b.yaml");
  std::set<std::string> keys_a, keys_b;
  std::vector<std::string> ordered_a, ordered_b;
  for (const SweepPoint& p : sweep_points(a)) ordered_a.push_back(point_key(a, p));
  for (const SweepPoint& p : sweep_points(b)) ordered_b.push_back(point_key(b, p));
  keys_a.insert(ordered_a.begin(), ordered_a.end());
  keys_b.insert(ordered_b.begin(), ordered_b.end());
  EXPECT_EQ(keys_a, keys_b);
  EXPECT_EQ(keys_a.size(), 2u);
  EXPECT_EQ(ordered_a.front().size(), 16u);
  // Another order of the points is another sweep: its rows are not this one's.
  EXPECT_NE(sweep_fingerprint(ordered_a), sweep_fingerprint(ordered_b));
}

TEST(SweepSpec, TheHeaderIsKeyAxesMetricsBookkeeping) {
  const SweepSpec spec = parse_sweep_spec(
      "topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [1MB]\n"
      "set: {gpu0-sw0.bandwidth: [8GB/s]}\n",
      "s.yaml");
  EXPECT_EQ(sweep_header(spec),
            "key,topology,bytes,gpu0-sw0.bandwidth,strategy,makespan_s,lower_bound_s,algbw_GBps,"
            "busbw_GBps,bytes_moved,busiest_link,busiest_link_utilization,ops,gpus_used,"
            "sim_wall_s,error,point,points,sweep");
}

TEST(SweepSpec, SplitCsvLineReadsQuotedFields) {
  std::vector<std::string> fields;
  EXPECT_TRUE(split_csv_line("a,\"b, c\",\"say \"\"hi\"\"\",", fields));
  EXPECT_EQ(fields, (std::vector<std::string>{"a", "b, c", "say \"hi\"", ""}));
  EXPECT_FALSE(split_csv_line("a,\"open", fields));
}

TEST(SweepSpec, TooManyPointsAreRefusedBeforeAnyIsListed) {
  std::string spec = "topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [";
  for (int i = 1; i <= 4000; ++i) spec += (i > 1 ? ", " : "") + std::to_string(i) + "KiB";
  spec += "]\nlink_bandwidth_scale: [";
  for (int i = 1; i <= 4000; ++i) spec += (i > 1 ? ", " : "") + std::to_string(i);
  spec += "]\n";
  try {
    parse_sweep_spec(spec, "big.yaml");
    FAIL() << "16 million points accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "big.yaml:1:1: spec: 16000000 points, more than the 10000000 one sweep runs; "
                 "split it");
  }
}

}  // namespace
}  // namespace opsim
