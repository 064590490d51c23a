// Every row of every hardware parameter table, through each place that iterates the tables:
// `--set` changes the machine, machine_difference names the key, and the topology file
// writes and reads it back unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/input_error.hpp"
#include "experiments/cli/what_if.hpp"
#include "hw_models/model_parameters.hpp"
#include "topologies/parameter_text.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim {
namespace {

// A small machine with one of each model: cpu0, gpu0 behind sw0, disk0.
Machine small_machine() {
  Machine m("rows");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId sw = m.add_switch("sw0");
  const DeviceId gpu = m.add_gpu("gpu0", GpuModel{});
  const DeviceId disk = m.add_disk("disk0", DiskModel::nvme(4, 4));
  m.add_link("gpu0-sw0", gpu, sw, LinkModel::pcie(3, 16));
  m.add_link("cpu0-sw0", cpu, sw, LinkModel::pcie(3, 16));
  m.add_link("disk0-cpu0", disk, cpu, LinkModel::pcie(4, 4));
  m.seal();
  return m;
}

// A valid value for `row` other than `current` (a scalar's), as `--set` text.
template <typename Model>
std::string other_value(const ParameterRow<Model>& row, const Model& model) {
  switch (row.unit) {
    case ParameterUnit::kSizeRates:
      return "[{" + std::string(row.item_size_key) + ": 8MB, bandwidth: 10GB/s}, {" +
             std::string(row.item_size_key) + ": 128MB, bandwidth: 5GB/s}]";
    case ParameterUnit::kGemmRates:
      return "[{n: 512, rate: 5TFLOPS}, {n: 2048, rate: 10TFLOPS}]";
    case ParameterUnit::kCoreSpeeds:
      return "0.5,1.5";
    default:
      break;
  }
  const double v = scalar_value(row, model);
  switch (row.unit) {
    case ParameterUnit::kCount:
      return std::to_string(static_cast<long>(v < row.max ? v + 1 : v - 1));
    case ParameterUnit::kFraction:
      return v == 1.0 ? "0.5" : "1";
    case ParameterUnit::kFlag:
      return v != 0 ? "false" : "true";
    default:
      break;
  }
  if (row.bounded_by_cores) return v == 1 ? "2" : "1";
  const double other = v > 0 ? v * 2 : 1.0;
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", other);
  return text;
}

template <typename Model>
void check_rows(std::span<const ParameterRow<Model>> rows, const std::string& owner,
                const std::string& key_prefix, const Model& (*model_of)(const Machine&)) {
  const Machine original = small_machine();
  for (const ParameterRow<Model>& row : rows) {
    const std::string key = key_prefix + std::string(row.key);
    SCOPED_TRACE(owner + "." + key);
    EXPECT_FALSE(row.doc.empty());
    WhatIf what_if;
    what_if.assignments = {owner + "." + key + "=" + other_value(row, model_of(original))};
    // A link is half duplex only through its own row; duplex_bandwidth needs it full.
    const Machine changed = apply_what_if(original, what_if);
    EXPECT_FALSE(same_value(row, model_of(original), model_of(changed)));
    const std::string difference = machine_difference(original, changed);
    EXPECT_NE(difference.find(key), std::string::npos) << difference;
    const Machine again = parse_topology_yaml(dump_topology_yaml(changed), "rows.yaml");
    EXPECT_EQ(machine_difference(changed, again), "");
  }
}

const CpuModel& cpu0(const Machine& m) {
  return m.device(*m.find_device("cpu0")).cpu;
}
const DramModel& dram0(const Machine& m) {
  return cpu0(m).dram;
}
const GpuModel& gpu0(const Machine& m) {
  return m.device(*m.find_device("gpu0")).gpu;
}
const DiskModel& disk0(const Machine& m) {
  return m.device(*m.find_device("disk0")).disk;
}
const LinkModel& gpu0_link(const Machine& m) {
  return m.link(*m.find_link("gpu0-sw0")).model;
}

TEST(ParameterRows, EveryCpuRowIsSetComparedAndRoundTripped) {
  check_rows(cpu_parameters(), "cpu0", "", &cpu0);
}
TEST(ParameterRows, EveryDramRowIsSetComparedAndRoundTripped) {
  check_rows(dram_parameters(), "cpu0", "dram.", &dram0);
}
TEST(ParameterRows, EveryGpuRowIsSetComparedAndRoundTripped) {
  check_rows(gpu_parameters(), "gpu0", "", &gpu0);
}
TEST(ParameterRows, EveryDiskRowIsSetComparedAndRoundTripped) {
  check_rows(disk_parameters(), "disk0", "", &disk0);
}
TEST(ParameterRows, EveryLinkRowIsSetComparedAndRoundTripped) {
  check_rows(link_parameters(), "gpu0-sw0", "", &gpu0_link);
}

// Every scalar quantity row's upper bound (its unit's, or its own): refused just above it,
// accepted at it. Rates, sizes and plain numbers must have one; durations need none (the
// simulated-time check refuses what they would push out of range).
template <typename Model>
int check_bounds(std::span<const ParameterRow<Model>> rows, const std::string& target) {
  int bounded = 0;
  for (const ParameterRow<Model>& row : rows) {
    if (is_list(row.unit) || row.unit == ParameterUnit::kCount ||
        row.unit == ParameterUnit::kFraction || row.unit == ParameterUnit::kFlag ||
        row.bounded_by_cores)
      continue;
    const std::string key = target + "." + std::string(row.key);
    SCOPED_TRACE(key);
    const double bound = std::min(row.max, unit_upper_bound(row.unit));
    if (row.unit == ParameterUnit::kDuration) {
      EXPECT_TRUE(std::isinf(bound));
      continue;
    }
    EXPECT_TRUE(std::isfinite(bound)) << "a rate, size or number without an upper bound";
    ++bounded;
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", bound);
    WhatIf at;
    at.assignments = {key + "=" + text};
    EXPECT_NO_THROW((void)apply_what_if(small_machine(), at));
    std::snprintf(text, sizeof text, "%.17g", bound * 1.5);
    WhatIf above;
    above.assignments = {key + "=" + text};
    try {
      (void)apply_what_if(small_machine(), above);
      ADD_FAILURE() << "accepted " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("must be at most"), std::string::npos) << e.what();
    }
  }
  return bounded;
}

TEST(ParameterRows, EveryRateAndSizeHasAnUpperBound) {
  EXPECT_EQ(check_bounds(cpu_parameters(), "cpu0"), 2);        // clock, copy_stream_bandwidth
  EXPECT_EQ(check_bounds(dram_parameters(), "cpu0.dram"), 2);  // bandwidth, capacity
  EXPECT_EQ(check_bounds(gpu_parameters(), "gpu0"), 4);        // peaks, bandwidth, size
  EXPECT_EQ(check_bounds(disk_parameters(), "disk0"), 8);      // bandwidths, IOPS, sequential
  EXPECT_EQ(check_bounds(link_parameters(), "gpu0-sw0"), 2);   // bandwidth, duplex
}

TEST(ParameterRows, OldSetNamesAreRefusedWithTheKey) {
  WhatIf what_if;
  what_if.assignments = {"gpu0.launch=5us"};
  try {
    (void)apply_what_if(small_machine(), what_if);
    FAIL() << "accepted an old name";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "--set gpu0.launch=5us: a gpu has no key 'launch' (did you mean "
                 "'launch_latency'?)");
  }
}

TEST(ParameterRows, Fp32PeakScalesTheSgemmRatesWithIt) {
  WhatIf what_if;
  what_if.assignments = {"gpu0.sgemm_rates=[{n: 512, rate: 5TFLOPS}, {n: 2048, rate: 10TFLOPS}]",
                         "gpu0.fp32_peak=31.4TFLOPS"};
  const Machine changed = apply_what_if(small_machine(), what_if);
  const GpuModel& gpu = gpu0(changed);
  EXPECT_EQ(gpu.fp32_flops_per_s, 31.4e12);
  EXPECT_NEAR(gpu.sgemm_rates[0].flops_per_s, 10e12, 1e3);  // 15.7 -> 31.4: twice
  EXPECT_NEAR(gpu.sgemm_rates[1].flops_per_s, 20e12, 1e3);
}

}  // namespace
}  // namespace opsim
