// A parameter that is parsed must change the simulation or be refused. For every row of every
// hardware parameter table, a probe sets a distinct valid value through `--set` on a small
// machine and simulates a small workload that exercises it: the makespan must change, or, for
// a row that only bounds a workload, the bound must refuse it. A row without a probe fails the
// test with its key, so a new parameter needs an effect before it can be added.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "engine/frontend/context.hpp"
#include "engine/workload_file.hpp"
#include "experiments/cli/what_if.hpp"
#include "hw_models/model_parameters.hpp"
#include "sim/simulate.hpp"

namespace opsim {
namespace {

// cpu0 and two GPUs behind sw0, disk0 on cpu0. The link probes change cpu0-sw0.
Machine small_machine() {
  Machine m("effects");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId sw = m.add_switch("sw0");
  const DeviceId gpu0 = m.add_gpu("gpu0", GpuModel{});
  const DeviceId gpu1 = m.add_gpu("gpu1", GpuModel{});
  const DeviceId disk = m.add_disk("disk0", DiskModel::nvme(4, 4));
  m.add_link("gpu0-sw0", gpu0, sw, LinkModel::pcie(3, 16));
  m.add_link("gpu1-sw0", gpu1, sw, LinkModel::pcie(3, 16));
  m.add_link("cpu0-sw0", cpu, sw, LinkModel::pcie(3, 16));
  m.add_link("disk0-cpu0", disk, cpu, LinkModel::pcie(4, 4));
  m.seal();
  return m;
}

// The ops of the workloads, as in a workload file.
constexpr std::string_view kCpuGemm =
    R"({"name": "mm", "kind": "compute", "device": "cpu0", "gemm": {"m": 512, "n": 512, "k": 512}})";
constexpr std::string_view kCpuGemm2 =
    R"({"name": "mm2", "kind": "compute", "device": "cpu0", "gemm": {"m": 512, "n": 512, "k": 512}})";
// Shorter than a 256 MB disk transfer, which then runs partly beside it and partly alone.
constexpr std::string_view kShortCpuGemm =
    R"({"name": "short", "kind": "compute", "device": "cpu0", "gemm": {"m": 1024, "n": 1024, "k": 1024}})";
constexpr std::string_view kBigCpuGemm =
    R"({"name": "big", "kind": "compute", "device": "cpu0", "gemm": {"m": 4096, "n": 4096, "k": 4096}})";
constexpr std::string_view kCpuPass =
    R"({"name": "pass", "kind": "compute", "device": "cpu0", "kernel": "elementwise", "bytes": "64MB"})";
constexpr std::string_view kMemcpy =
    R"({"name": "copy", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "64MB"})";
constexpr std::string_view kMemcpy2 =
    R"({"name": "copy2", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "64MB"})";
constexpr std::string_view kSmallMemcpy =
    R"({"name": "small", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "8MB"})";
constexpr std::string_view kSmallMemcpy2 =
    R"({"name": "small2", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "8MB"})";
constexpr std::string_view kGpuGemm =
    R"({"name": "gmm", "kind": "compute", "device": "gpu0", "gemm": {"m": 2048, "n": 2048, "k": 2048}})";
constexpr std::string_view kGpuHalfGemm =
    R"({"name": "hmm", "kind": "compute", "device": "gpu0", "dtype": "f16", "gemm": {"m": 4096, "n": 4096, "k": 4096}})";
constexpr std::string_view kGpuPass =
    R"({"name": "gpass", "kind": "compute", "device": "gpu0", "kernel": "elementwise", "bytes": "256MB"})";
constexpr std::string_view kGpuTiny =
    R"({"name": "tiny", "kind": "compute", "device": "gpu0", "kernel": "fill", "bytes": "1KB"})";
constexpr std::string_view kGpuTinyAfter =
    R"({"name": "tiny2", "kind": "compute", "device": "gpu0", "kernel": "fill", "bytes": "1KB", "after": ["tiny"]})";
constexpr std::string_view kGpuTiny2 =
    R"({"name": "tiny2", "kind": "compute", "device": "gpu0", "kernel": "fill", "bytes": "1KB"})";
constexpr std::string_view kToGpu =
    R"({"name": "h2d", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": "64MB"})";
constexpr std::string_view kFromGpu =
    R"({"name": "d2h", "kind": "copy", "from": "gpu0", "to": "cpu0", "bytes": "64MB"})";
constexpr std::string_view kDiskRead =
    R"({"name": "read", "kind": "disk_read", "disk": "disk0", "to": "cpu0", "bytes": "256MB"})";
constexpr std::string_view kDiskRead2 =
    R"({"name": "read2", "kind": "disk_read", "disk": "disk0", "to": "cpu0", "bytes": "256MB"})";
constexpr std::string_view kDiskWrite =
    R"({"name": "write", "kind": "disk_write", "disk": "disk0", "from": "cpu0", "bytes": "256MB"})";
constexpr std::string_view kRandomRead =
    R"({"name": "rread", "kind": "disk_read", "disk": "disk0", "to": "cpu0", "bytes": "4MB", "pattern": "random", "block": "4KB"})";
constexpr std::string_view kRandomRead2 =
    R"({"name": "rread2", "kind": "disk_read", "disk": "disk0", "to": "cpu0", "bytes": "4MB", "pattern": "random", "block": "4KB"})";
constexpr std::string_view kRandomWrite =
    R"({"name": "rwrite", "kind": "disk_write", "disk": "disk0", "from": "cpu0", "bytes": "4MB", "pattern": "random", "block": "4KB"})";
constexpr std::string_view kLongDispatch =
    R"({"name": "issue", "kind": "dispatch", "device": "cpu0", "seconds": "50ms"})";
constexpr std::string_view kCpuAlloc =
    R"({"name": "buffer", "kind": "compute", "device": "cpu0", "kernel": "fill", "bytes": "1GB", "alloc": "16GB"})";
constexpr std::string_view kGpuAlloc =
    R"({"name": "buffer", "kind": "compute", "device": "gpu0", "kernel": "fill", "bytes": "1GB", "alloc": "12GB"})";

enum class Effect {
  kMakespan,      ///< the simulated makespan changes
  kRefusesAlloc,  ///< reading the workload refuses an op's alloc that fits before
  kDispatchCost,  ///< a recorded program's makespan changes (its per-op dispatch cost)
};

constexpr bool kDispatchOnComputeCores = true;

struct Probe {
  std::string_view table;  ///< "cpu", "dram", "gpu", "disk", "link"
  std::string_view key;
  std::string value;  ///< as `--set` takes it
  std::vector<std::string_view> ops;
  std::vector<std::string> setup = {};  ///< `--set` assignments for both runs
  Effect effect = Effect::kMakespan;
  bool dispatch_on_compute_cores = false;  ///< SimBackendOptions' (`opsim validate` sets it)
};

const std::vector<Probe>& probes() {
  static const std::vector<Probe> kProbes = {
      {"cpu", "cores", "4", {kCpuGemm}},
      {"cpu", "clock", "1.5GHz", {kCpuGemm}},
      {"cpu", "simd_fp32_lanes", "16", {kCpuGemm}},
      {"cpu", "fma_units", "1", {kCpuGemm}},
      {"cpu", "efficiency", "0.5", {kCpuGemm}},
      {"cpu", "dispatch_latency", "1ms", {}, {}, Effect::kDispatchCost},
      // One op on half the cores.
      {"cpu", "compute_streams", "2", {kCpuGemm}},
      {"cpu", "all_streams_busy_speed", "0.5", {kCpuGemm, kCpuGemm2}, {"cpu0.compute_streams=2"}},
      // The dispatch busy-waits on a compute core (as `opsim validate` simulates a profile).
      {"cpu",
       "beside_dispatch_speed",
       "0.5",
       {kBigCpuGemm, kLongDispatch},
       {"cpu0.compute_streams=2", "cpu0.cores=2"},
       Effect::kMakespan,
       kDispatchOnComputeCores},
      {"cpu", "disk_io_cores", "4", {kBigCpuGemm, kDiskRead}},
      {"cpu",
       "disk_read_speed_one_busy",
       "0.5",
       {kShortCpuGemm, kDiskRead},
       {"cpu0.compute_streams=2"}},
      {"cpu", "disk_read_speed_all_busy", "0.5", {kShortCpuGemm, kDiskRead}},
      {"cpu",
       "disk_write_speed_one_busy",
       "0.5",
       {kShortCpuGemm, kDiskWrite},
       {"cpu0.compute_streams=2"}},
      {"cpu", "disk_write_speed_all_busy", "0.5", {kShortCpuGemm, kDiskWrite}},
      {"cpu", "copy_streams", "1", {kMemcpy, kMemcpy2}, {"cpu0.copy_stream_bandwidth=5GB/s"}},
      {"cpu", "copy_stream_bandwidth", "5GB/s", {kMemcpy}},
      {"cpu",
       "memory_pass_rates",
       "[{working_set: 8MB, bandwidth: 10GB/s}, {working_set: 128MB, bandwidth: 5GB/s}]",
       {kCpuPass}},
      {"cpu",
       "copy_stream_rates",
       "[{bytes: 8MB, bandwidth: 10GB/s}, {bytes: 128MB, bandwidth: 5GB/s}]",
       {kMemcpy}},
      // Copies take the DRAM at their size's share on copy lanes, which copy_stream_rates open.
      {"cpu",
       "copies_together_rates",
       "[{bytes: 8MB, bandwidth: 100GB/s}, {bytes: 128MB, bandwidth: 50GB/s}]",
       {kSmallMemcpy, kSmallMemcpy2},
       {"cpu0.copy_stream_rates=[{bytes: 8MB, bandwidth: 40GB/s}, {bytes: 128MB, bandwidth: "
        "40GB/s}]"}},
      {"cpu",
       "core_pass_speeds",
       "0.5,0.5",
       {kCpuPass},
       {"cpu0.cores=2", "cpu0.compute_streams=2"}},
      {"cpu",
       "core_copy_speeds",
       "0.5,0.5",
       {kMemcpy},
       {"cpu0.cores=2", "cpu0.copy_stream_bandwidth=5GB/s"}},
      {"cpu",
       "core_gemm_speeds",
       "0.5,0.5",
       {kCpuGemm},
       {"cpu0.cores=2", "cpu0.compute_streams=2"}},

      {"dram", "channels", "1", {kCpuPass}},
      {"dram", "bandwidth_per_channel", "10GB/s", {kCpuPass}},
      {"dram", "first_access", "1ms", {kCpuPass}},
      {"dram", "capacity", "8GB", {kCpuAlloc}, {}, Effect::kRefusesAlloc},

      {"gpu", "fp32_peak", "5TFLOPS", {kGpuGemm}},
      {"gpu", "fp16_peak", "50TFLOPS", {kGpuHalfGemm}},
      {"gpu", "memory_bandwidth", "100GB/s", {kGpuPass}},
      {"gpu", "memory_size", "8GB", {kGpuAlloc}, {}, Effect::kRefusesAlloc},
      {"gpu", "launch_latency", "1ms", {kGpuGemm}},
      {"gpu", "copy_launch_latency", "1ms", {kToGpu}},
      {"gpu", "min_dependent_op", "1ms", {kGpuTiny, kGpuTinyAfter}},
      {"gpu", "min_queued_op", "1ms", {kGpuTiny, kGpuTiny2}},
      // Outbound and inbound copies at once: one engine serves them one after the other.
      {"gpu", "copy_engines", "1", {kToGpu, kFromGpu}},
      // Two small kernels each on a stream of its own: neither queues behind the other.
      {"gpu", "compute_streams", "2", {kGpuTiny, kGpuTiny2}, {"gpu0.min_queued_op=1ms"}},
      {"gpu", "efficiency", "0.5", {kGpuGemm}},
      {"gpu", "sgemm_rates", "[{n: 512, rate: 5TFLOPS}, {n: 4096, rate: 10TFLOPS}]", {kGpuGemm}},

      {"disk", "access_latency", "10ms", {kDiskRead}},
      {"disk", "read_bandwidth", "1GB/s", {kDiskRead}},
      {"disk", "write_bandwidth", "0.5GB/s", {kDiskWrite}},
      {"disk", "read_iops", "1000", {kRandomRead}},
      {"disk", "write_iops", "1000", {kRandomWrite}},
      {"disk", "queues", "1", {kRandomRead, kRandomRead2}},
      {"disk", "random_read_wait_beside_sequential", "1ms", {kRandomRead, kDiskRead}},
      {"disk", "sequential_read_beside_random", "100MB/s", {kDiskRead, kRandomRead}},
      {"disk", "sequential_read_beside_write", "100MB/s", {kDiskRead, kDiskWrite}},
      {"disk", "sequential_reads_together", "100MB/s", {kDiskRead, kDiskRead2}},
      {"disk", "sequential_write_beside_read", "100MB/s", {kDiskWrite, kDiskRead}},

      {"link", "bandwidth", "1GB/s", {kToGpu}},
      {"link", "latency", "1ms", {kToGpu}},
      {"link", "full_duplex", "false", {kToGpu, kFromGpu}},
      {"link", "duplex_bandwidth", "10GB/s", {kToGpu, kFromGpu}},
  };
  return kProbes;
}

// The `--set` assignment of `probe`'s value: cpu0.KEY, cpu0.dram.KEY, gpu0.KEY, disk0.KEY,
// cpu0-sw0.KEY.
std::string assignment(const Probe& probe) {
  const std::string key(probe.key);
  if (probe.table == "cpu") return "cpu0." + key + "=" + probe.value;
  if (probe.table == "dram") return "cpu0.dram." + key + "=" + probe.value;
  if (probe.table == "gpu") return "gpu0." + key + "=" + probe.value;
  if (probe.table == "disk") return "disk0." + key + "=" + probe.value;
  return "cpu0-sw0." + key + "=" + probe.value;
}

std::string workload_json(const Probe& probe) {
  std::string ops;
  for (std::string_view op : probe.ops) ops += (ops.empty() ? "" : ", ") + std::string(op);
  return R"({"name": "probe", "ops": [)" + ops + "]}";
}

Machine with(const std::vector<std::string>& assignments) {
  WhatIf what_if;
  what_if.assignments = assignments;
  return apply_what_if(small_machine(), what_if);
}

// A recorded program of three small CPU ops: each pays the CPU's dispatch cost first.
OpGraph recorded_program(const Machine& machine) {
  frontend::ContextOptions options;
  options.mode = frontend::Mode::kRecord;
  frontend::Context ctx(machine, options);
  frontend::Array a = ctx.full(frontend::cpu(), 4, 4, 1.0f);
  frontend::Array b = ctx.add(a, a);
  (void)ctx.sum(b);
  return ctx.graph();
}

TimeNs makespan_ns(const Probe& probe, const Machine& machine) {
  const OpGraph graph =
      probe.effect == Effect::kDispatchCost
          ? recorded_program(machine)
          : build_workload_graph(parse_workload_json(workload_json(probe), "probe.json"), machine);
  SimulateOptions options;
  options.backend.dispatch_on_compute_cores = probe.dispatch_on_compute_cores;
  return simulate_isolated(machine, graph, options).makespan_ns;
}

void expect_effect(const Probe& probe) {
  std::vector<std::string> changed_assignments = probe.setup;
  changed_assignments.push_back(assignment(probe));
  const Machine before = with(probe.setup);
  const Machine after = with(changed_assignments);
  if (probe.effect == Effect::kRefusesAlloc) {
    const WorkloadFile workload = parse_workload_json(workload_json(probe), "probe.json");
    EXPECT_NO_THROW((void)build_workload_graph(workload, before));
    EXPECT_THROW((void)build_workload_graph(workload, after), InputError)
        << "the alloc check does not use it";
    return;
  }
  const TimeNs before_ns = makespan_ns(probe, before);
  const TimeNs after_ns = makespan_ns(probe, after);
  EXPECT_GT(before_ns, 0);
  EXPECT_NE(before_ns, after_ns) << "the simulated makespan stays " << before_ns << " ns";
}

const Probe* find_probe(std::string_view table, std::string_view key) {
  for (const Probe& probe : probes())
    if (probe.table == table && probe.key == key) return &probe;
  return nullptr;
}

template <typename Model>
void expect_every_row_changes_the_simulation(std::string_view table,
                                             std::span<const ParameterRow<Model>> rows) {
  for (const ParameterRow<Model>& row : rows) {
    const std::string name = std::string(table) + "." + std::string(row.key);
    SCOPED_TRACE(name);
    const Probe* probe = find_probe(table, row.key);
    if (probe == nullptr) {
      ADD_FAILURE() << name << " has no probe: show what it changes in a simulation, or remove it";
      continue;
    }
    expect_effect(*probe);
  }
}

TEST(ParameterEffect, EveryCpuRowChangesTheSimulation) {
  expect_every_row_changes_the_simulation("cpu", cpu_parameters());
}
TEST(ParameterEffect, EveryDramRowChangesTheSimulation) {
  expect_every_row_changes_the_simulation("dram", dram_parameters());
}
TEST(ParameterEffect, EveryGpuRowChangesTheSimulation) {
  expect_every_row_changes_the_simulation("gpu", gpu_parameters());
}
TEST(ParameterEffect, EveryDiskRowChangesTheSimulation) {
  expect_every_row_changes_the_simulation("disk", disk_parameters());
}
TEST(ParameterEffect, EveryLinkRowChangesTheSimulation) {
  expect_every_row_changes_the_simulation("link", link_parameters());
}

// A probe for a row that no longer exists would test nothing.
TEST(ParameterEffect, EveryProbeNamesARow) {
  std::set<std::string> rows;
  for (const auto& row : cpu_parameters()) rows.insert("cpu." + std::string(row.key));
  for (const auto& row : dram_parameters()) rows.insert("dram." + std::string(row.key));
  for (const auto& row : gpu_parameters()) rows.insert("gpu." + std::string(row.key));
  for (const auto& row : disk_parameters()) rows.insert("disk." + std::string(row.key));
  for (const auto& row : link_parameters()) rows.insert("link." + std::string(row.key));
  for (const Probe& probe : probes())
    EXPECT_TRUE(rows.count(std::string(probe.table) + "." + std::string(probe.key)))
        << probe.table << "." << probe.key;
}

}  // namespace
}  // namespace opsim
