// The calibrated profile: its YAML round trip, that the simulator runs on it with the
// measured rates, and a short real calibration whose numbers are finite and plausible.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <thread>

#include "engine/workload_file.hpp"
#include "experiments/calibration/calibration.hpp"
#include "experiments/calibration/profile_changes.hpp"
#include "hw_models/model_parameters.hpp"
#include "sim/simulate.hpp"
#include "topologies/topology_catalog.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim::calibration {
namespace {

ProfileInputs sample_inputs() {
  ProfileInputs in;
  in.hardware_threads = 2;
  in.compute_streams = 2;
  in.gemm_flops_per_s_per_stream = 50e9;
  in.elementwise_bytes_per_s = 4e9;
  in.memcpy_bytes_per_s = 8e9;
  in.first_access_s = 110e-9;
  in.disk_read_bytes_per_s = 1.2e9;
  in.disk_write_bytes_per_s = 1.5e9;
  in.disk_access_s = 80e-6;
  in.disk_random_read_s = 80e-6;
  in.dispatch_s = 3e-6;
  return in;
}

TEST(Profile, RoundTripsThroughTheTopologyFile) {
  ProfileInputs in = sample_inputs();
  in.disk_io_cores = 0.7;
  in.disk_read_speed_one_busy = 0.83;
  in.disk_read_speed_all_busy = 0.65;
  in.disk_write_speed_one_busy = 0.8;
  in.disk_write_speed_all_busy = 1.2;  // measured faster beside compute: noise, kept at 1
  const Machine m = build_profile(in, "calibrated-test");
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("opsim-profile-" + std::to_string(::getpid()) + ".yaml"))
                               .string();
  save_topology_file(m, path);
  const Machine back = load_topology_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(machine_difference(m, back), "");
  EXPECT_EQ(back.name(), "calibrated-test");
  ASSERT_TRUE(back.find_device("cpu0"));
  ASSERT_TRUE(back.find_device("disk0"));
  const CpuModel& cpu = back.device(*back.find_device("cpu0")).cpu;
  EXPECT_EQ(cpu.compute_streams, 2);
  // Per stream (one core): exactly the measured single-thread GEMM rate.
  EXPECT_NEAR(cpu.peak_flops_per_s() * cpu.efficiency / cpu.compute_streams, 50e9, 1);
  EXPECT_NEAR(cpu.dram.bytes_per_s(), 16e9, 1);
  EXPECT_NEAR(cpu.efficiency, 0.25, 1e-12);  // elementwise 4 GB/s of 16 GB/s
  // 80 us a random read, of which 4096 B at 1.2 GB/s are the transfer.
  EXPECT_NEAR(back.device(*back.find_device("disk0")).disk.read_iops, 1.0 / (80e-6 - 4096 / 1.2e9),
              1e-6);
  EXPECT_EQ(cpu.copy_stream_bytes_per_s, 8e9);  // one memcpy thread
  EXPECT_EQ(cpu.disk_io_cores, 0.7);
  EXPECT_EQ(cpu.disk_read_speed_one_busy, 0.83);
  EXPECT_EQ(cpu.disk_read_speed_all_busy, 0.65);
  EXPECT_EQ(cpu.disk_write_speed_one_busy, 0.8);
  EXPECT_EQ(cpu.disk_write_speed_all_busy, 1.0);
  EXPECT_EQ(profile_inputs(back).disk_read_speed_all_busy, 0.65);
}

TEST(Profile, TwoMemcpyStreamsSetTheDramOneStreamTheCap) {
  ProfileInputs in = sample_inputs();
  in.memcpy_two_streams_bytes_per_s = 11e9;  // two threads copy more than one
  in.memory_pass_rates = {{8e6, 9e9}, {128e6, 4e9}};
  const Machine m = build_profile(in, "calibrated-test");
  const CpuModel& cpu = m.device(*m.find_device("cpu0")).cpu;
  EXPECT_NEAR(cpu.dram.bytes_per_s(), 22e9, 1);
  EXPECT_EQ(cpu.copy_stream_bytes_per_s, 8e9);
  ASSERT_EQ(cpu.memory_pass_rates.size(), 2u);
  EXPECT_EQ(cpu.memory_pass_bytes_per_s(8e6), 9e9);
  in.disk_random_read_beside_sequential_s = 480e-6;  // 80 us alone: 400 us waiting
  const Machine with_wait = build_profile(in, "x");
  EXPECT_NEAR(
      with_wait.device(*with_wait.find_device("disk0")).disk.random_read_wait_beside_sequential_s,
      400e-6, 1e-12);
  in.memcpy_two_streams_bytes_per_s = 6e9;  // a disturbed two-stream sample: never below one
  EXPECT_NEAR(build_profile(in, "x").device(0).cpu.dram.bytes_per_s(), 16e9, 1);
}

TEST(Profile, SimulatorRunsGemmsOneCorePerStream) {
  const Machine m = build_profile(sample_inputs(), "calibrated-test");
  const WorkloadFile w = parse_workload_json(R"({"name": "two", "ops": [
      {"name": "a", "kind": "compute", "device": "cpu0", "gemm": {"m": 1000, "n": 1000, "k": 1000}, "stream": 0},
      {"name": "b", "kind": "compute", "device": "cpu0", "gemm": {"m": 1000, "n": 1000, "k": 1000}, "stream": 1},
      {"name": "c", "kind": "compute", "device": "cpu0", "gemm": {"m": 1000, "n": 1000, "k": 1000}, "stream": 0, "after": ["a", "b"]},
      {"name": "d", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "80MB", "after": ["c"]},
      {"name": "e", "kind": "disk_read", "disk": "disk0", "to": "cpu0", "bytes": "120MB", "after": ["d"]},
      {"name": "f", "kind": "compute", "device": "cpu0", "kernel": "elementwise", "bytes": "40MB", "after": ["e"]}]})",
                                             "two.json");
  const OpGraph g = build_workload_graph(w, m);
  const SimulationResult r = simulate_isolated(m, g);
  // a and b run side by side, one core each (2e9 flop at 50 GFLOP/s = 40 ms), then c; then
  // the memcpy at 8 GB/s (10 ms), the read (80 us + 100 ms), the elementwise pass at 4 GB/s.
  EXPECT_NEAR(r.makespan_s, 0.040 + 0.040 + 0.010 + 80e-6 + 0.100 + 0.010, 1e-6);
}

TEST(Profile, DiskIoTakesCoresFromBusyStreams) {
  // Two one-core streams; a disk read's I/O takes 0.6 of the 2 cores while it runs (100 ms).
  ProfileInputs in = sample_inputs();
  in.disk_io_cores = 0.6;
  const Machine m = build_profile(in, "calibrated-test");
  EXPECT_DOUBLE_EQ(m.device(*m.find_device("cpu0")).cpu.disk_io_cores, 0.6);
  EXPECT_DOUBLE_EQ(profile_inputs(m).disk_io_cores, 0.6);
  auto gemm_end_s = [](const Machine& profile, int gemms) {
    std::string ops =
        R"({"name": "read", "kind": "disk_read", "disk": "disk0", "to": "cpu0", "bytes": "120MB"})";
    for (int i = 0; i < gemms; ++i)
      ops +=
          R"(, {"name": "mm)" + std::to_string(i) +
          R"(", "kind": "compute", "device": "cpu0", "gemm": {"m": 1000, "n": 1000, "k": 1000}, "stream": )" +
          std::to_string(i) + "}";
    const WorkloadFile w =
        parse_workload_json(R"({"name": "io", "ops": [)" + ops + "]}", "io.json");
    const SimulationResult r = simulate_isolated(profile, build_workload_graph(w, profile));
    return static_cast<double>(r.end_ns[1]) * 1e-9;
  };
  // Both cores busy: the GEMMs share what the I/O leaves, 1.4 cores, 0.7 each: 40 / 0.7 ms.
  EXPECT_NEAR(gemm_end_s(m, 2), 0.040 / 0.7, 1e-6);
  // One GEMM: the other core holds the I/O, the GEMM keeps its own (40 ms).
  EXPECT_NEAR(gemm_end_s(m, 1), 0.040, 1e-6);
  // Without the figure (bare metal, older profiles): the I/O costs the cores nothing.
  EXPECT_NEAR(gemm_end_s(build_profile(sample_inputs(), "x"), 2), 0.040, 1e-6);
}

TEST(Profile, RandomDiskOpsTakeTheMeasuredRequestTimes) {
  // A measured random request (80 us read, 250 us write) holds its 4 KiB transfer; the model
  // moves the op's bytes after its requests, so 500 requests alone take 500 x the measured
  // time, not that plus the bytes again at the sequential rate.
  ProfileInputs in = sample_inputs();
  in.disk_random_write_s = 250e-6;
  const Machine m = build_profile(in, "calibrated-test");
  const WorkloadFile w = parse_workload_json(R"({"name": "random", "ops": [
      {"name": "r", "kind": "disk_read", "disk": "disk0", "to": "cpu0", "bytes": "2048000", "pattern": "random", "block": "4KiB"},
      {"name": "w", "kind": "disk_write", "disk": "disk0", "from": "cpu0", "bytes": "2048000", "pattern": "random", "block": "4KiB", "after": ["r"]}]})",
                                             "random.json");
  const SimulationResult r = simulate_isolated(m, build_workload_graph(w, m));
  EXPECT_NEAR(r.makespan_s, 500 * 80e-6 + 500 * 250e-6, 1e-7);
}

GpuInputs sample_gpus(int count, double peer_bytes_per_s) {
  GpuInputs g;
  g.count = count;
  g.gemm_flops_per_s = 40e12;
  g.sgemm_rates = {{512, 10e12}, {1024, 30e12}, {2048, 40e12}};
  g.memory_bytes_per_s = 2e12;
  g.memory_bytes = 80e9;
  g.launch_s = 8e-6;
  g.dependent_op_min_s = 15e-6;
  g.queued_op_min_s = 9e-6;
  g.host_to_device_bytes_per_s = 24e9;
  g.device_to_host_bytes_per_s = 26e9;
  g.copy_latency_s = 10e-6;
  g.both_directions_bytes_per_s = 22e9;
  g.peer_bytes_per_s = peer_bytes_per_s;
  return g;
}

TEST(Profile, CalibratedGpusSitBehindAPcieSwitchWithTheMeasuredRates) {
  ProfileInputs in = sample_inputs();
  in.gpus = sample_gpus(2, 0);
  const Machine m = build_profile(in, "calibrated-test");
  ASSERT_EQ(m.gpus().size(), 2u);
  const GpuModel& g = m.device(*m.find_device("gpu1")).gpu;
  EXPECT_EQ(g.fp32_flops_per_s * g.efficiency, 40e12);
  EXPECT_EQ(g.memory_bytes_per_s * g.efficiency, 2e12);
  EXPECT_EQ(g.launch_s, 8e-6);
  EXPECT_EQ(g.dependent_op_min_s, 15e-6);
  EXPECT_EQ(g.queued_op_min_s, 9e-6);
  EXPECT_NE(m.description().find("2 GPU(s)"), std::string::npos);
  bool nvlink = false;
  for (const Link& link : m.links()) nvlink = nvlink || link.model.kind == LinkKind::kNvlink;
  EXPECT_FALSE(nvlink);  // no peer rate measured: peers go through the switch
  // Copies wait out the launch gap too; both ways at once, each moves at the measured rate.
  EXPECT_EQ(g.copy_launch_s, 8e-6);
  const Link& pcie = m.link(*m.find_link("pcie_gpu1"));
  EXPECT_EQ(pcie.model.bytes_per_s, 25e9);
  EXPECT_EQ(pcie.model.duplex_bytes_per_s, 44e9);
  EXPECT_EQ(m.link(*m.find_link("pcie_cpu0")).model.duplex_bytes_per_s, 0);
  EXPECT_EQ(calibrated_gpu_inputs(m).both_directions_bytes_per_s, 22e9);
  // The inverse, and the YAML round trip, keep every GPU figure.
  EXPECT_EQ(machine_difference(m, build_profile(profile_inputs(m), "calibrated-test")), "");
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("opsim-gpu-profile-" + std::to_string(::getpid()) + ".yaml"))
                               .string();
  save_topology_file(m, path);
  const Machine back = load_topology_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(machine_difference(m, back), "");
  // A peer rate well above PCIe (NVLink) becomes direct links between the GPUs.
  in.gpus = sample_gpus(2, 300e9);
  const Machine linked = build_profile(in, "calibrated-test");
  EXPECT_EQ(calibrated_gpu_inputs(linked).peer_bytes_per_s, 300e9);
  EXPECT_EQ(machine_difference(linked, build_profile(profile_inputs(linked), "calibrated-test")),
            "");
}

TEST(Profile, SimulatorRunsGpuOpsAtTheCalibratedRates) {
  ProfileInputs in = sample_inputs();
  in.gpus = sample_gpus(1, 0);
  const Machine m = build_profile(in, "calibrated-test");
  const WorkloadFile w = parse_workload_json(R"({"name": "gpu", "ops": [
      {"name": "mm", "kind": "compute", "device": "gpu0", "gemm": {"m": 4000, "n": 4000, "k": 4000}},
      {"name": "up", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": "250MB", "after": ["mm"]}]})",
                                             "gpu.json");
  const OpGraph g = build_workload_graph(w, m);
  EXPECT_EQ(groups_used_by(g, m), (std::vector<std::string>{"gpu"}));
  const SimulationResult r = simulate_isolated(m, g);
  // 128 GFLOP at 40 TFLOP/s after an 8 us launch; 250 MB at the links' 25 GB/s after the
  // GPU link's 10 us latency.
  EXPECT_NEAR(r.makespan_s, 8e-6 + 128e9 / 40e12 + 10e-6 + 250e6 / 25e9, 2e-5);
}

TEST(Profile, SgemmRateComesFromAChainLessTheLaunch) {
  // An H100 host's chain of SGEMMs of 1024: 74.7 us per op, 8.7 of it the launch latency.
  const GemmRate r = sgemm_rate_from_chain(1024, 74.7e-6, 8.7e-6);
  EXPECT_EQ(r.n, 1024);
  EXPECT_NEAR(r.flops_per_s, 2.0 * 1024 * 1024 * 1024 / 66e-6, 1e9);
  // A launch latency measured at the period or beyond leaves half the period as work.
  EXPECT_NEAR(sgemm_rate_from_chain(256, 20e-6, 25e-6).flops_per_s, 2.0 * 256 * 256 * 256 / 10e-6,
              1e6);
  EXPECT_EQ(measurement_name({MeasurementId::kGpuDependentGemm, 512}), "gpu dependent gemm 512");
}

TEST(Profile, SimulatorRunsEachSgemmAtItsSizesRate) {
  // Dependent GEMMs (each waits for the one before: its launch is not hidden): a GEMM of 512
  // at the 512 rate, 10 TFLOP/s, not the best rate over sizes; one of 1448 (about the flops of
  // 1024 x 1024 x 2896) between the 1024 and 2048 rates.
  ProfileInputs in = sample_inputs();
  in.gpus = sample_gpus(1, 0);
  in.gpus.dependent_op_min_s = 0;
  const Machine m = build_profile(in, "calibrated-test");
  auto gemm_s = [&](int n) {
    const std::string size = std::to_string(n);
    const WorkloadFile w = parse_workload_json(
        R"({"name": "mm", "ops": [{"name": "mm", "kind": "compute", "device": "gpu0", "gemm": {"m": )" +
            size + R"(, "n": )" + size + R"(, "k": )" + size + "}}]}",
        "mm.json");
    return simulate_isolated(m, build_workload_graph(w, m)).makespan_s - 8e-6;  // less launch
  };
  const double flops_512 = 2.0 * 512 * 512 * 512;
  EXPECT_NEAR(gemm_s(512), flops_512 / 10e12, 1e-7);
  EXPECT_NEAR(gemm_s(4096), 2.0 * 4096 * 4096 * 4096 / 40e12, 1e-6);  // beyond: the last rate
  const double rate_1448 = 2.0 * 1448 * 1448 * 1448 / gemm_s(1448);
  EXPECT_NEAR(rate_1448, 35e12, 0.1e12);  // halfway in log n between 30 and 40
}

TEST(Profile, EveryValidationSuiteWorkloadSimulatesOnAMatchingProfile) {
  // The CPU suite on a CPU profile, the GPU suite on one with a GPU: each file parses, names
  // only devices the profile has, and simulates to a finite makespan.
  ProfileInputs in = sample_inputs();
  const Machine cpu_profile = build_profile(in, "calibrated-test");
  in.gpus = sample_gpus(1, 0);
  const Machine gpu_profile = build_profile(in, "calibrated-test");
  std::size_t files = 0;
  for (const auto& [dir, profile] : {std::pair{"experiments/validation", &cpu_profile},
                                     std::pair{"experiments/validation-gpu", &gpu_profile},
                                     std::pair{"experiments/gpu-launch-probes", &gpu_profile}}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(OPSIM_SOURCE_DIR) / dir)) {
      const WorkloadFile w = load_workload_file(entry.path().string());
      const OpGraph g = build_workload_graph(w, *profile);
      const double makespan_s = simulate_isolated(*profile, g).makespan_s;
      EXPECT_TRUE(std::isfinite(makespan_s) && makespan_s > 0) << entry.path();
      const auto groups = groups_used_by(g, *profile);
      const bool uses_gpu = std::find(groups.begin(), groups.end(), "gpu") != groups.end();
      EXPECT_EQ(uses_gpu, profile == &gpu_profile) << entry.path();
      ++files;
    }
  }
  EXPECT_GE(files, 24u);
}

// The simulated makespan of experiments/validation-gpu/<name>.json on the sample one-GPU
// profile (launch 8 us, 40 TFLOP/s, 2 TB/s; the CPU's GEMMs 50 GFLOP/s a stream).
double simulated_gpu_workload_s(const std::string& name) {
  ProfileInputs in = sample_inputs();
  in.gpus = sample_gpus(1, 0);
  const Machine m = build_profile(in, "calibrated-test");
  const WorkloadFile w = load_workload_file(std::string(OPSIM_SOURCE_DIR) +
                                            "/experiments/validation-gpu/" + name + ".json");
  return simulate_isolated(m, build_workload_graph(w, m)).makespan_s;
}

TEST(Profile, GpuSmallKernelChainIsLaunchBound) {
  // 200 dependent passes over 4 MB: 2 us of memory traffic at 2 TB/s each after 8 us of
  // launch, each held to the host's per-op floor for a dependent op, 15 us.
  EXPECT_NEAR(simulated_gpu_workload_s("gpu-small-kernel-chain"), 200 * 15e-6, 2e-6);
}

TEST(Profile, QueuedSmallKernelsFollowAtTheHostsEnqueuePace) {
  // 200 independent passes over 4 MB on one stream: the first waits out its launch (8 us) and
  // its work (2 us), held to the dependent-op floor (15 us); each other one waited behind the
  // stream, which hides its launch: its work, held to the host's enqueue pace (9 us).
  const WorkloadFile w = load_workload_file(std::string(OPSIM_SOURCE_DIR) +
                                            "/experiments/gpu-launch-probes/probe-queued-4m.json");
  ProfileInputs in = sample_inputs();
  in.gpus = sample_gpus(1, 0);
  const Machine m = build_profile(in, "calibrated-test");
  EXPECT_NEAR(simulate_isolated(m, build_workload_graph(w, m)).makespan_s, 15e-6 + 199 * 9e-6,
              1e-7);
}

TEST(Profile, GpuBookBTakesTheLongerChainNotTheSum) {
  // 4 CPU GEMMs of 1024 (2.1 GFLOP at 50 GFLOP/s: 42.9 ms each) beside 16 GPU GEMMs of 4096
  // (137 GFLOP at 40 TFLOP/s: 3.4 ms each).
  const double cpu_s = 4 * 2.0 * 1024 * 1024 * 1024 / 50e9;
  const double gpu_s = 16 * (8e-6 + 2.0 * 4096 * 4096 * 4096 / 40e12);
  EXPECT_NEAR(simulated_gpu_workload_s("gpu-book-b-cpu-and-gpu"), std::max(cpu_s, gpu_s), 1e-3);
}

TEST(Profile, DispatchSharesTheComputeCoreWhenAsked) {
  ProfileInputs in = sample_inputs();
  in.compute_streams = 1;  // a loaded machine: one op at a time
  const Machine m = build_profile(in, "calibrated-test");
  const WorkloadFile w = parse_workload_json(R"({"ops": [
      {"name": "issue", "kind": "dispatch", "device": "cpu0", "seconds": "10ms"},
      {"name": "mm", "kind": "compute", "device": "cpu0", "gemm": {"m": 1000, "n": 1000, "k": 1000}}]})",
                                             "w.json");
  const OpGraph g = build_workload_graph(w, m);
  SimulateOptions options;
  options.backend.dispatch_on_compute_cores = true;
  // One core: the 10 ms dispatch and the 40 ms GEMM share it, 20 ms each side by side, then
  // the GEMM's last 30 ms alone: 50 ms (a program thread of its own would give 40 ms).
  EXPECT_NEAR(simulate_isolated(m, g, options).makespan_s, 0.050, 1e-6);
  EXPECT_NEAR(simulate_isolated(m, g).makespan_s, 0.040, 1e-6);
}

TEST(Profile, MemcpySharesTheComputeCoreWhenAsked) {
  ProfileInputs in = sample_inputs();
  in.compute_streams = 1;
  const Machine m = build_profile(in, "calibrated-test");
  const WorkloadFile w = parse_workload_json(R"({"ops": [
      {"name": "copy", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "80MB"},
      {"name": "mm", "kind": "compute", "device": "cpu0", "gemm": {"m": 1000, "n": 1000, "k": 1000}}]})",
                                             "w.json");
  const OpGraph g = build_workload_graph(w, m);
  SimulateOptions options;
  options.backend.cpu_copies_on_compute_cores = true;
  // The 10 ms memcpy (8 GB/s) and the 40 ms GEMM share one core: 50 ms, not max = 40 ms.
  EXPECT_NEAR(simulate_isolated(m, g, options).makespan_s, 0.050, 1e-6);
  EXPECT_NEAR(simulate_isolated(m, g).makespan_s, 0.040, 1e-6);
}

TEST(Profile, MemcpyTakesTheRateMeasuredAtItsSize) {
  ProfileInputs in = sample_inputs();
  in.memcpy_two_streams_bytes_per_s = 15e9;
  // glibc's memcpy below its non-temporal threshold (96 MiB) is slower than above (128 MiB).
  in.copy_stream_rates = {
      {8.0 * (1 << 20), 14e9}, {96.0 * (1 << 20), 7e9}, {128.0 * (1 << 20), 12e9}};
  in.memcpy_bytes_per_s = 12e9;
  const Machine m = build_profile(in, "calibrated-test");
  const CpuModel& cpu = m.device(*m.find_device("cpu0")).cpu;
  EXPECT_EQ(cpu.copy_stream_bytes_per_s_for(96.0 * (1 << 20)), 7e9);
  EXPECT_EQ(cpu.copy_stream_bytes_per_s_for(1 << 20), 14e9);  // below: the smallest's
  EXPECT_EQ(cpu.copy_stream_bytes_per_s_for(1e12), 12e9);     // above: the largest's
  EXPECT_NEAR(cpu.copy_stream_bytes_per_s_for(std::sqrt(96.0 * 128) * (1 << 20)), 9.5e9, 1e3);
  EXPECT_EQ(machine_difference(m, build_profile(profile_inputs(m), "calibrated-test")), "");
  auto simulated_s = [&](const std::string& ops, bool on_compute_cores) {
    const OpGraph g = build_workload_graph(parse_workload_json(ops, "w.json"), m);
    SimulateOptions options;
    options.backend.cpu_copies_on_compute_cores = on_compute_cores;
    return simulate_isolated(m, g, options).makespan_s;
  };
  for (bool on_cores : {false, true}) {
    SCOPED_TRACE(on_cores);
    // Two 96 MiB copies one after the other at 7 GB/s; one 128 MiB at 12 GB/s.
    EXPECT_NEAR(simulated_s(R"({"ops": [
        {"name": "a", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "96MiB"},
        {"name": "b", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "96MiB", "after": ["a"]}]})",
                            on_cores),
                2 * 96.0 * (1 << 20) / 7e9, 1e-6);
    EXPECT_NEAR(simulated_s(R"({"ops": [
        {"name": "a", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "128MiB"}]})",
                            on_cores),
                128.0 * (1 << 20) / 12e9, 1e-6);
  }
  // Two at once, each on its own memcpy stream: the DRAM takes 15 GB/s, each thread 7 at
  // this size, so each keeps its 7 (and a 128 MiB pair shares the 15).
  EXPECT_NEAR(simulated_s(R"({"ops": [
      {"name": "a", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "96MiB", "stream": 0},
      {"name": "b", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "96MiB", "stream": 1}]})",
                          false),
              96.0 * (1 << 20) / 7e9, 1e-6);
  EXPECT_NEAR(simulated_s(R"({"ops": [
      {"name": "a", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "128MiB", "stream": 0},
      {"name": "b", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "128MiB", "stream": 1}]})",
                          false),
              2 * 128.0 * (1 << 20) / 15e9, 1e-6);
}

// Two copies at once share the DRAM at their own size's aggregate: the 128 MiB pair's 15 GB/s
// (the DRAM's bandwidth) does not hold for a 96 MiB pair, which together copy 18.
TEST(Profile, CopiesTogetherShareTheDramAtTheirSizesRate) {
  constexpr double kMiB = 1 << 20;
  ProfileInputs in = sample_inputs();
  in.memcpy_bytes_per_s = 10e9;
  in.memcpy_two_streams_bytes_per_s = 15e9;
  in.copy_stream_rates = {{8 * kMiB, 20e9}, {96 * kMiB, 11e9}, {128 * kMiB, 10e9}};
  in.copies_together_rates = {{8 * kMiB, 44e9}, {96 * kMiB, 18e9}, {128 * kMiB, 15e9}};
  in.core_copy_speeds = {};
  const Machine m = build_profile(in, "calibrated-test");
  const CpuModel& cpu = m.device(*m.find_device("cpu0")).cpu;
  EXPECT_EQ(cpu.copies_together_rates.size(), 3u);
  EXPECT_DOUBLE_EQ(cpu.copy_dram_use_per_byte(128 * kMiB), 1.0);
  EXPECT_DOUBLE_EQ(cpu.copy_dram_use_per_byte(96 * kMiB), 15.0 / 18);
  EXPECT_EQ(machine_difference(m, build_profile(profile_inputs(m), "calibrated-test")), "");
  auto pair_s = [&](const Machine& machine, const char* bytes) {
    const std::string ops = std::string(R"({"ops": [
        {"name": "a", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": ")") +
                            bytes + R"(", "stream": 0},
        {"name": "b", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": ")" +
                            bytes + R"(", "stream": 1}]})";
    return simulate_isolated(machine,
                             build_workload_graph(parse_workload_json(ops, "w.json"), machine))
        .makespan_s;
  };
  // Together: 2 x 96 MiB at 18 GB/s (each thread could copy 11), 2 x 128 MiB at 15.
  EXPECT_NEAR(pair_s(m, "96MiB"), 2 * 96 * kMiB / 18e9, 1e-6);
  EXPECT_NEAR(pair_s(m, "128MiB"), 2 * 128 * kMiB / 15e9, 1e-6);
  // 8 MiB copies together could copy 44 GB/s: each keeps its own thread's 20.
  EXPECT_NEAR(pair_s(m, "8MiB"), 8 * kMiB / 20e9, 1e-6);
  // Alone a copy keeps its thread's rate at its size.
  const OpGraph one = build_workload_graph(
      parse_workload_json(
          R"({"ops": [{"name": "a", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "96MiB"}]})",
          "w.json"),
      m);
  EXPECT_NEAR(simulate_isolated(m, one).makespan_s, 96 * kMiB / 11e9, 1e-6);
  // Without the rates every size shares the 128 MiB pair's 15 GB/s.
  in.copies_together_rates.clear();
  EXPECT_NEAR(pair_s(build_profile(in, "calibrated-test"), "96MiB"), 2 * 96 * kMiB / 15e9, 1e-6);
}

TEST(Profile, ProfileInputsInvertBuildProfile) {
  ProfileInputs in = sample_inputs();
  in.memcpy_two_streams_bytes_per_s = 11e9;
  in.memory_pass_rates = {{8e6, 9e9}, {128e6, 4e9}};
  in.disk_random_read_beside_sequential_s = 480e-6;
  in.disk_random_write_s = 250e-6;
  in.disk_sequential_read_beside_random_bytes_per_s = 0.4e9;
  in.disk_sequential_read_beside_write_bytes_per_s = 0.8e9;
  in.disk_sequential_write_beside_read_bytes_per_s = 0.7e9;
  in.core_pass_speeds = {1.05, 0.95};
  in.core_copy_speeds = {0.8, 1.2, 1.1};  // from a host with more cores: the first ones kept
  in.core_gemm_speeds = {0.97, 1.03};
  const Machine m = build_profile(in, "calibrated-test");
  EXPECT_EQ(m.device(0).cpu.core_copy_speeds, (std::vector{0.8, 1.2}));
  EXPECT_EQ(profile_inputs(m).core_pass_speeds, (std::vector{1.05, 0.95}));
  EXPECT_EQ(profile_inputs(m).core_gemm_speeds, (std::vector{0.97, 1.03}));
  EXPECT_EQ(m.device(*m.find_device("disk0")).disk.sequential_write_beside_read_bytes_per_s, 0.7e9);
  EXPECT_NEAR(m.device(*m.find_device("disk0")).disk.write_iops, 1.0 / (250e-6 - 4096 / 1.5e9),
              1e-6);
  EXPECT_EQ(m.device(*m.find_device("disk0")).disk.sequential_read_beside_random_bytes_per_s,
            0.4e9);
  // Beside random reads a sequential read may run faster than alone (1.2 GB/s here).
  in.disk_sequential_read_beside_random_bytes_per_s = 2e9;
  EXPECT_EQ(build_profile(in, "x").device(1).disk.sequential_read_beside_random_bytes_per_s, 2e9);
  EXPECT_NEAR(profile_inputs(m).disk_random_write_s, 250e-6, 1e-15);
  EXPECT_EQ(machine_difference(m, build_profile(profile_inputs(m), "calibrated-test")), "");
  EXPECT_THROW(profile_inputs(resolve_topology("dgx1-v100")), std::invalid_argument);
}

TEST(Profile, TwoCalibrationsAreComparedParameterByParameter) {
  ProfileInputs in = sample_inputs();
  in.memory_pass_rates = {{8 << 20, 9e9}, {128 << 20, 4e9}};
  in.disk_random_write_s = 60e-6;
  in.disk_random_read_beside_sequential_s = 480e-6;
  in.disk_sequential_read_beside_write_bytes_per_s = 0.8e9;
  const Machine previous = build_profile(in, "calibrated-test");
  in.disk_sequential_read_beside_write_bytes_per_s = 0.6e9;  // beyond
  in.disk_sequential_write_beside_read_bytes_per_s = 0.7e9;  // new here: not compared
  in.gemm_flops_per_s_per_stream *= 1.04;                    // within 5%
  in.disk_random_read_s *= 1.10;                             // beyond
  in.memory_pass_rates[0].bytes_per_s *= 0.9;
  const Machine now = build_profile(in, "calibrated-test");
  std::vector<std::string> differ;
  for (const ParameterChange& c : profile_changes(previous, now))
    if (c.differs()) differ.push_back(c.name);
  // Named by the profile's keys, as `--set` names them.
  EXPECT_EQ(differ, (std::vector<std::string>{"cpu0.memory_pass_rates 8 MiB", "disk0.read_iops",
                                              "disk0.sequential_read_beside_write"}));
  for (const ParameterChange& c : profile_changes(previous, previous)) {
    EXPECT_EQ(c.change(), 0.0) << c.name;
    EXPECT_FALSE(c.differs()) << c.name;
  }
  EXPECT_THROW(profile_changes(previous, resolve_topology("dgx1-v100")), std::invalid_argument);
  // GPUs: SGEMM's rate size by size.
  in.gpus = sample_gpus(1, 0);
  const Machine with_gpu = build_profile(in, "calibrated-test");
  in.gpus.sgemm_rates[0].flops_per_s *= 0.8;
  differ.clear();
  for (const ParameterChange& c : profile_changes(with_gpu, build_profile(in, "calibrated-test")))
    if (c.differs()) differ.push_back(c.name);
  EXPECT_EQ(differ, (std::vector<std::string>{"gpu0.sgemm_rates 512"}));
}

TEST(Profile, WorkloadsNameTheCalibrationGroupsTheyUse) {
  const Machine m = build_profile(sample_inputs(), "calibrated-test");
  const WorkloadFile w = parse_workload_json(R"({"name": "mix", "ops": [
      {"name": "a", "kind": "compute", "device": "cpu0", "gemm": {"m": 64, "n": 64, "k": 64}},
      {"name": "d", "kind": "copy", "from": "cpu0", "to": "cpu0", "bytes": "8MB"},
      {"name": "r", "kind": "disk_read", "disk": "disk0", "to": "cpu0", "bytes": "4MB"}]})",
                                             "mix.json");
  EXPECT_EQ(groups_used_by(build_workload_graph(w, m), m),
            (std::vector<std::string>{"disk", "gemm", "memcpy"}));
}

TEST(Profile, ATargetedCalibrationKeepsTheRestOfTheBase) {
  const Machine base = build_profile(sample_inputs(), "calibrated-test");
  CalibrationOptions options;
  options.quick = true;
  options.repeats = 1;
  options.only = {"host dispatch per op"};  // a name prefix: not the neighbour's speed
  EXPECT_THROW(calibrate(options), std::invalid_argument);  // `only` needs a base
  options.base = &base;
  const CalibrationReport r = calibrate(options);
  ASSERT_EQ(r.measurements.size(), 1u);
  EXPECT_EQ(r.measurements[0].name, "host dispatch per op");
  const CpuModel& cpu = r.machine.device(*r.machine.find_device("cpu0")).cpu;
  EXPECT_DOUBLE_EQ(cpu.dispatch_s, r.measurements[0].value);
  // Everything not measured is the base's.
  Machine expected_shape = base;
  expected_shape.mutable_device(*expected_shape.find_device("cpu0")).cpu.dispatch_s =
      cpu.dispatch_s;
  EXPECT_EQ(machine_difference(expected_shape, r.machine, /*ignore_names=*/true), "");
}

TEST(Profile, AStreamsGemmRateFollowsItsBlasThreads) {
  // 16 cores, one thread 20 GFLOP/s, all 16 threads 192 GFLOP/s (12 each: they scale badly).
  const double one = 20e9, all = 192e9;
  EXPECT_EQ(gemm_rate_per_stream(one, all, 16, 16), one);  // a stream per core
  EXPECT_EQ(gemm_rate_per_stream(one, all, 12, 16), one);  // 12 streams of one thread each:
                                                           // not all / 12 = 16 GFLOP/s
  EXPECT_EQ(gemm_rate_per_stream(one, all, 9, 16), one);
  EXPECT_DOUBLE_EQ(gemm_rate_per_stream(one, all, 8, 16), all / 8);       // two threads each
  EXPECT_DOUBLE_EQ(gemm_rate_per_stream(one, all, 5, 16), all * 3 / 16);  // three each
  EXPECT_EQ(gemm_rate_per_stream(one, all, 1, 16), all);                  // one stream, all
  EXPECT_EQ(gemm_rate_per_stream(one, 38e9, 2, 2), one);
  EXPECT_EQ(gemm_rate_per_stream(one, 38e9, 1, 2), 38e9);
}

TEST(Profile, ATargetedCalibrationKeepsTheBasesStreams) {
  // GEMMs measured beside real runs on a base: the streams stay the base's (its real runs'
  // structure), only the rates are new: one stream per core gets the one-thread rate, one
  // stream for all cores the all-thread rate.
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int streams : {1, hw}) {
    ProfileInputs in = sample_inputs();
    in.hardware_threads = hw;
    in.compute_streams = streams;
    const Machine base = build_profile(in, "calibrated-test");
    CalibrationOptions options;
    options.quick = true;
    options.repeats = 1;
    options.only = {"gemm"};
    options.base = &base;
    const CalibrationReport r = calibrate(options);
    const CpuModel& cpu = r.machine.device(*r.machine.find_device("cpu0")).cpu;
    EXPECT_EQ(cpu.compute_streams, streams);
    const MeasurementKey rate = streams == hw || hw == 1
                                    ? MeasurementKey{MeasurementId::kGemmOneThread, 512}
                                    : MeasurementKey{MeasurementId::kGemmAllThreads, 512, hw};
    EXPECT_NEAR(cpu.peak_flops_per_s() * cpu.efficiency / streams, r.get(rate).value,
                1e-6 * r.get(rate).value)
        << measurement_name(rate);
  }
}

TEST(Profile, QuickCalibrationIsFiniteAndPlausible) {
  CalibrationOptions options;
  options.quick = true;
  std::size_t last = 0, total = 0;
  options.on_progress = [&](std::size_t done, std::size_t of) {
    EXPECT_EQ(done, last + 1);
    last = done;
    total = of;
  };
  const CalibrationReport r = calibrate(options);
  EXPECT_EQ(last, total);
  EXPECT_NE(r.gpu_note, "");
  // GPUs: measured where one is usable; otherwise the note says why.
  const bool gpu_measured = r.gpu_note.rfind("measured gpu0", 0) == 0;
  EXPECT_EQ(gpu_measured, !r.machine.gpus().empty()) << r.gpu_note;
  if (gpu_measured) {
    EXPECT_GT(r.get({MeasurementId::kGpuDependentGemm, 1024}).value, 1e-6);
    EXPECT_LT(r.get({MeasurementId::kGpuDependentGemm, 1024}).value, 1e-2);
    const GpuModel& g = r.machine.device(r.machine.gpus().front()).gpu;
    ASSERT_EQ(g.sgemm_rates.size(), 5u);  // 256 to 4096
    EXPECT_EQ(g.sgemm_rates.front().n, 256);
    double best = 0;
    for (const GemmRate& rate : g.sgemm_rates) best = std::max(best, rate.flops_per_s);
    EXPECT_EQ(g.fp32_flops_per_s * g.efficiency, best);
    EXPECT_NE(r.gpu_note.find(" TFLOP/s at 256/512/1024/2048/4096 (after the "), std::string::npos)
        << r.gpu_note;
    EXPECT_GT(r.get({MeasurementId::kGpuHostToDevice}).value, 1e9);
  } else {
    EXPECT_NE(r.gpu_note.find("no usable GPU"), std::string::npos) << r.gpu_note;
  }
  for (const Measurement& m : r.measurements) {
    ASSERT_EQ(m.samples.size(), 3u) << m.name;
    // Cores that disk I/O takes from busy ones: none at all where the host does it elsewhere.
    const bool may_be_zero = m.key.id == MeasurementId::kDiskIoCores;
    for (double s : m.samples)
      EXPECT_TRUE(std::isfinite(s) && (s > 0 || (may_be_zero && s == 0))) << m.name;
    // Repeatability: noisy exactly when the samples spread by more than 5%.
    EXPECT_EQ(m.noisy(), m.spread > 0.05) << m.name;
  }
  using M = MeasurementId;
  auto in = [&](const MeasurementKey& key, double lo, double hi) {
    const double v = r.get(key).value;
    EXPECT_GE(v, lo) << measurement_name(key);
    EXPECT_LE(v, hi) << measurement_name(key);
  };
  in({M::kGemmOneThread, 512}, 1e9, 1e13);
  in({M::kMemcpyOneStream}, 3e8, 1e12);
  in({M::kMemcpyTwoStreams}, 3e8, 1e12);
  in({M::kElementwise}, 3e8, 1e12);
  in({M::kDramFirstAccess}, 5e-9, 5e-6);
  in({M::kDiskSequentialRead}, 1e7, 1e11);
  in({M::kDiskSequentialWrite}, 1e7, 1e11);
  in({M::kDiskRandomRead}, 1e-6, 0.1);
  in({M::kDiskRandomWrite}, 1e-6, 0.1);
  const DiskModel& disk = r.machine.device(*r.machine.find_device("disk0")).disk;
  EXPECT_NEAR(disk.request_time_s(4096, true, false, 4096), r.get({M::kDiskRandomWrite}).value,
              1e-12);
  in({M::kHostDispatch}, 1e-8, 1e-3);
  EXPECT_EQ(r.machine.name().rfind("calibrated-", 0), 0u);
  const CpuModel& cpu = r.machine.device(*r.machine.find_device("cpu0")).cpu;
  EXPECT_GT(cpu.clock_hz, 0);
  EXPECT_DOUBLE_EQ(cpu.dispatch_s, r.get({M::kHostDispatch}).value);
}

}  // namespace
}  // namespace opsim::calibration

namespace opsim::calibration {
namespace {

TEST(RateOverCores, MeasuresOncePerCoreWarmedAsLongAsTimedAndAveragesTheTimes) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int cores = CPU_COUNT(&allowed);
  std::vector<int> ran_on;
  std::vector<double> timed_s, warm_s;
  // A core's rate is 1 + its number: the answer is the harmonic mean of the rates.
  std::vector<double> core_rates;
  const double rate = rate_over_cores(
      0.4,
      [&](double timed, double warm) {
        const int cpu = ::sched_getcpu();
        ran_on.push_back(cpu);
        timed_s.push_back(timed);
        warm_s.push_back(warm);
        return 1.0 + cpu;
      },
      &core_rates);
  // One call per core (a separate warm-up call ran a 2048 GEMM four times per core).
  ASSERT_EQ(static_cast<int>(ran_on.size()), cores);
  ASSERT_EQ(static_cast<int>(core_rates.size()), cores);  // each core's own rate, in core order
  double seconds_per_unit = 0;
  for (int c = 0; c < cores; ++c) {
    const int cpu = ran_on[static_cast<std::size_t>(c)];
    EXPECT_TRUE(CPU_ISSET(cpu, &allowed));
    if (c > 0) {
      EXPECT_GT(cpu, ran_on[static_cast<std::size_t>(c) - 1]);  // each core once, in order
    }
    // With several cores each is timed for its share after running as long untimed (a vCPU
    // that idled while the others were measured runs slow at first); alone, no warm-up.
    EXPECT_DOUBLE_EQ(timed_s[static_cast<std::size_t>(c)], cores > 1 ? 0.4 / cores : 0.4);
    EXPECT_DOUBLE_EQ(warm_s[static_cast<std::size_t>(c)], cores > 1 ? 0.4 / cores : 0.0);
    EXPECT_EQ(core_rates[static_cast<std::size_t>(c)], 1.0 + cpu);
    seconds_per_unit += 1.0 / (1.0 + cpu);
  }
  EXPECT_DOUBLE_EQ(rate, cores / seconds_per_unit);
  cpu_set_t after;
  CPU_ZERO(&after);
  ASSERT_EQ(::sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&after, &allowed));  // the thread may run anywhere again
}

}  // namespace
}  // namespace opsim::calibration

namespace opsim::calibration {
namespace {

// Every measurement a parameter table names as setting a CPU, DRAM or disk parameter is in
// a full calibration's plan (the GPU's where a GPU is measured), so the profile build never
// looks for one the plan lacks.
TEST(Profile, ThePlanMeasuresWhatEveryCalibratedParameterNeeds) {
  CalibrationOptions options;
  options.quick = true;
  const Calibrator calibrator(options);
  const std::vector<MeasurementKey> plan = calibrator.parameters();
  const bool one_core = std::thread::hardware_concurrency() <= 1;
  const bool gpu = std::ranges::any_of(
      plan, [](const MeasurementKey& k) { return measurement_group(k.id) == "gpu"; });
  auto planned = [&](MeasurementId id) {
    return std::ranges::any_of(plan, [&](const MeasurementKey& k) { return k.id == id; });
  };
  auto check = [&](auto rows) {
    for (const auto& row : rows) {
      if (row.measured_by == MeasurementId::kNone) continue;
      if (measurement_group(row.measured_by) == "gpu" && !gpu) continue;
      // Per-core and beside-other-cores figures need a second core.
      const std::string name = measurement_name({row.measured_by});
      if (one_core && (name.find("core") != std::string::npos ||
                       row.measured_by == MeasurementId::kHostDispatchNeighbourSpeed ||
                       row.measured_by == MeasurementId::kGemmEveryCore))
        continue;
      EXPECT_TRUE(planned(row.measured_by)) << row.key << ": " << name;
    }
  };
  check(cpu_parameters());
  check(dram_parameters());
  check(disk_parameters());
  check(gpu_parameters());
  check(link_parameters());
}

}  // namespace
}  // namespace opsim::calibration
