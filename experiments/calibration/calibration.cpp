#include "experiments/calibration/calibration.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

#include "engine/exec/cpu_kernels.hpp"
#include "engine/exec/disk_file.hpp"
#include "engine/exec/gpu_runtime.hpp"
#include "engine/exec/operand_pair.hpp"
#include "engine/exec/real_backend.hpp"
#include "engine/frontend/context.hpp"
#include "engine/frontend/host_machine.hpp"
#include "experiments/calibration/accuracy.hpp"
#include "experiments/calibration/cpu_topology.hpp"
#include "experiments/calibration/memcpy_sizes.hpp"

namespace opsim::calibration {
namespace {

using M = MeasurementId;

using Clock = std::chrono::steady_clock;

// Random disk requests, as calibrated: 4 KiB each.
constexpr double kRandomBlockBytes = 4096;

// The disk model charges a random op its requests at the drive's IOPS and then its bytes at
// the sequential rate (DiskModel::request_time_s); a measured request's time holds both, so
// the profile's IOPS is the rate of the requests' own part, the block's transfer taken out.
double random_request_access_s(double measured_request_s, double bytes_per_s) {
  return std::max(0.05 * measured_request_s, measured_request_s - kRandomBlockBytes / bytes_per_s);
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Runs `body` (which does `work` units) until at least `min_s` passed; returns units per s.
// First, untimed, it runs `body` once and on until `warm_s` passed: caches, threads and page
// mappings warm, and a core that idled up to speed (rate_over_cores).
template <typename F>
double rate(double work, double min_s, F&& body, double warm_s = 0) {
  const auto warm_start = Clock::now();
  do body();
  while (seconds_since(warm_start) < warm_s);
  const auto t0 = Clock::now();
  int iterations = 0;
  double elapsed = 0;
  do {
    body();
    ++iterations;
    elapsed = seconds_since(t0);
  } while (elapsed < min_s);
  return work * iterations / elapsed;
}

struct Plan {
  std::vector<std::size_t> gemm_sizes;
  std::size_t memcpy_bytes;
  std::size_t chase_bytes;
  std::uint64_t disk_bytes;
  int random_reads;
  int dispatch_ops;
  double min_s;
  int repeats;
};

Plan plan_for(const CalibrationOptions& o) {
  Plan p;
  if (o.quick) {
    p = {{256, 512}, 32u << 20, 32u << 20, 32u << 20, 500, 5000, 0.1, 3};
  } else {
    p = {{256, 512, 1024, 2048}, 128u << 20, 128u << 20, 128u << 20, 2000, 20000, 0.2, 5};
  }
  if (o.repeats > 0) p.repeats = o.repeats;
  return p;
}

// The every-core GEMM's size (a 1024 GEMM, ~20 ms here; the largest size when smaller).
std::size_t every_core_gemm_size(const Plan& p) {
  return std::min<std::size_t>(1024, p.gemm_sizes.back());
}

double gemm_rate(std::size_t n, int threads, double min_s, double warm_s = 0) {
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.f);
  cpu::set_blas_threads(threads);
  return rate(
      2.0 * n * n * n, min_s, [&] { cpu::sgemm(a.data(), b.data(), c.data(), n, n, n); }, warm_s);
}

// One thread's GEMM rate while `threads` threads each run their own single-threaded GEMMs,
// as the executor's compute streams do: each thread multiplies back to back for `min_s`, and
// the slowest thread's rate is the answer (two chains of GEMMs end with the slower one).
std::vector<double> gemm_every_core_rates(std::size_t n, int threads, double min_s) {
  cpu::set_blas_threads(1);
  std::barrier<> start(threads);
  std::vector<double> per_thread(static_cast<std::size_t>(threads), 0.0);
  auto multiply_until = [&](int t) {
    std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.f);
    cpu::sgemm(a.data(), b.data(), c.data(), n, n, n);  // warm: OpenBLAS's buffers, pages
    start.arrive_and_wait();
    const auto t0 = Clock::now();
    int done = 0;
    double elapsed = 0;
    do {
      cpu::sgemm(a.data(), b.data(), c.data(), n, n, n);
      ++done;
      elapsed = seconds_since(t0);
    } while (elapsed < min_s);
    per_thread[static_cast<std::size_t>(t)] = 2.0 * n * n * n * done / elapsed;
  };
  {
    std::vector<std::jthread> others;
    for (int t = 1; t < threads; ++t) others.emplace_back(multiply_until, t);
    multiply_until(0);
  }
  return per_thread;
}

double gemm_every_core_rate(std::size_t n, int threads, double min_s) {
  const std::vector<double> rates = gemm_every_core_rates(n, threads, min_s);
  return *std::min_element(rates.begin(), rates.end());
}

// Cores that a disk read takes from busy cores: one-thread GEMMs on every core, alone and
// then while `read_beside` reads the disk; the cores' worth of GEMM work lost meanwhile.
double disk_io_cores(std::size_t n, int threads, double min_s,
                     const std::function<void(const std::atomic<bool>&)>& read_beside) {
  auto total = [&] {
    const std::vector<double> rates = gemm_every_core_rates(n, threads, min_s);
    return std::accumulate(rates.begin(), rates.end(), 0.0);
  };
  const double alone = total();
  std::atomic<bool> stop{false};
  std::thread reader([&] { read_beside(stop); });
  const double beside = total();
  stop = true;
  reader.join();
  return std::clamp(threads * (1.0 - beside / alone), 0.0, static_cast<double>(threads));
}

// A sequential transfer's rate while `threads` one-thread GEMMs run (as the executor's compute
// streams), a fraction of its rate alone just before and just after.
double disk_speed_beside_gemms(std::size_t n, int threads, const std::function<void()>& transfer) {
  const auto timed_s = [&] {
    const auto s = Clock::now();
    transfer();
    return seconds_since(s);
  };
  const double before_s = timed_s();
  cpu::set_blas_threads(1);
  std::atomic<bool> stop{false};
  std::atomic<int> multiplying{0};
  std::vector<std::jthread> gemms;
  for (int t = 0; t < threads; ++t)
    gemms.emplace_back([&] {
      std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.f);
      cpu::sgemm(a.data(), b.data(), c.data(), n, n, n);  // warm: OpenBLAS's buffers, pages
      multiplying.fetch_add(1);
      while (!stop.load(std::memory_order_relaxed))
        cpu::sgemm(a.data(), b.data(), c.data(), n, n, n);
    });
  while (multiplying.load() < threads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double beside_s = timed_s();
  stop = true;
  gemms.clear();  // joins
  const double after_s = timed_s();
  return 0.5 * (before_s + after_s) / beside_s;
}

// A one-thread GEMM's speed while another thread busy-waits on the clock, as the program's
// host dispatch does, against the same GEMM alone (half before, half after): 1 where the
// wait contends for nothing the GEMM needs, about 1/2 where the two threads share a core.
double gemm_speed_beside_busy_wait(std::size_t n, double min_s) {
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.f);
  cpu::set_blas_threads(1);
  const auto multiply = [&] { cpu::sgemm(a.data(), b.data(), c.data(), n, n, n); };
  const double before = rate(1.0, min_s / 4, multiply);
  std::atomic<bool> stop{false};
  std::thread waiter([&] {
    while (!stop.load(std::memory_order_relaxed)) cpu::busy_wait(200e-6);
  });
  const double beside = rate(1.0, min_s / 2, multiply);
  stop = true;
  waiter.join();
  const double after = rate(1.0, min_s / 4, multiply);
  return beside / (0.5 * (before + after));
}

// The arrays a memory measurement runs on, one block per measuring thread (`index`) kept for
// the process, each size laid out in it as the executor lays out a pair of that size
// (OperandPair::lay_out). Why kept: a VM whose balloon reports freed pages to its host
// (virtio-balloon free page reporting) gives memory mapped afresh back at
// ~27 us per 4 KiB page on first touch (0.1 GB/s): allocated per measurement, 2 x 128 MiB
// took a second or more in the kernel each time, and the host's reclaiming of what a pass
// had freed ran on into the real runs after it. Why laid out per size, not the largest
// pair's layout reused: the destination's distance from the source matters (an 8 MiB pass
// in a pair laid out for 128 MiB ran at 15-18 GB/s where the executor's layout gave 21-25).
OperandPair& kept_operands(std::size_t index, std::size_t floats) {
  static std::mutex mutex;
  static std::map<std::size_t, OperandPair> blocks;  // stable nodes
  std::lock_guard lock(mutex);
  OperandPair& pair = blocks[index];
  pair.lay_out(floats);
  return pair;
}

// Aggregate bytes copied per second by `streams` threads, each copying its own buffers (laid
// out as the executor's copy streams' are: OperandPair). One stream copies on the calling
// thread (rate_over_cores pins it); more run as the executor's copy streams do: persistent
// threads, each pinned to its stream's core (pinned_core(): counting down from the last),
// copying back to back for `min_s`; the sum of their rates. (A thread started per copy and
// left to float may begin on its partner's core: two copies of 32 MiB take ~3 ms here.)
double memcpy_rate(std::size_t bytes, int streams, double min_s, double warm_s = 0) {
  const auto copy_until = [bytes, warm_s](OperandPair& o, double seconds) {
    return rate(
        static_cast<double>(bytes), seconds,
        [&] { std::memcpy(o.destination(), o.source(), bytes); }, warm_s);
  };
  std::vector<OperandPair*> operands;
  for (int s = 0; s < streams; ++s)
    operands.push_back(
        &kept_operands(static_cast<std::size_t>(s), (bytes + sizeof(float) - 1) / sizeof(float)));
  if (streams == 1) return copy_until(*operands[0], min_s);
  const std::vector<int> cores = allowed_cpus();
  std::barrier<> start(streams);
  std::vector<double> per_stream(operands.size(), 0.0);
  {
    std::vector<std::jthread> threads;
    for (int s = 0; s < streams; ++s)
      threads.emplace_back([&, s] {
        const int count = static_cast<int>(cores.size());
        if (count > 1) run_on({cores[static_cast<std::size_t>(count - 1 - s % count)]});
        start.arrive_and_wait();
        per_stream[static_cast<std::size_t>(s)] =
            copy_until(*operands[static_cast<std::size_t>(s)], min_s);
      });
  }
  return std::accumulate(per_stream.begin(), per_stream.end(), 0.0);
}

// Bytes touched per second by one thread's elementwise pass, as RealBackend runs it (on the same
// layout): add over n floats reads n and writes n (8n bytes).
double elementwise_rate(std::size_t bytes, double min_s, double warm_s = 0) {
  const std::size_t n = bytes / 8;
  OperandPair& operands = kept_operands(0, n);
  return rate(
      8.0 * n, min_s,
      [&] { cpu::add(operands.source(), operands.source(), operands.destination(), n); }, warm_s);
}

// Seconds per dependent load over a random cyclic permutation of cache lines.
double chase_latency(std::size_t bytes, double min_s) {
  constexpr std::size_t kLine = 64 / sizeof(std::size_t);
  const std::size_t lines = bytes / 64;
  // Kept between passes, as kept_operands() is.
  static std::vector<std::size_t> order, next;
  order.resize(lines);
  std::iota(order.begin(), order.end(), 0);
  std::uint64_t rng = 88172645463325252ull;
  for (std::size_t i = lines - 1; i > 0; --i) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    std::swap(order[i], order[rng % (i + 1)]);
  }
  next.assign(lines * kLine, 0);
  for (std::size_t i = 0; i < lines; ++i) next[order[i] * kLine] = order[(i + 1) % lines] * kLine;
  std::size_t at = 0;
  const std::size_t steps = lines;
  const double per_s = rate(static_cast<double>(steps), min_s, [&] {
    for (std::size_t i = 0; i < steps; ++i) at = next[at];
  });
  if (at == SIZE_MAX) std::abort();  // keeps the chase from being optimized away
  return 1.0 / per_s;
}

// The rates the profile takes from the chains, which the table shows as seconds per op.
std::string sgemm_note(const GpuInputs& g) {
  std::string sizes, rates;
  for (const GemmRate& r : g.sgemm_rates) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.1f", r.flops_per_s / 1e12);
    sizes += (sizes.empty() ? "" : "/") + std::to_string(static_cast<long>(r.n));
    rates += (rates.empty() ? "" : " / ") + std::string(rate);
  }
  return "; SGEMM " + rates + " TFLOP/s at " + sizes + " (after the " +
         std::to_string(static_cast<int>(std::lround(g.launch_s * 1e6))) + " us launch latency)";
}

}  // namespace

// Why over every core: on a VM each vCPU may sit on a host core of its own with its own memory
// bandwidth (here one 96 MiB memcpy ran at 10.5 GB/s pinned to vCPU 0 and 15.4 on vCPU 1, and
// minutes later at 18 and 15): the mean time over the cores is what a floating worker takes
// on average, and each core's own rate is what a worker pinned there takes (pinned_core()).
// Why each core runs the measurement untimed first: a vCPU that idled (while the other core
// was measured) ran slow for its first 100-300 ms on a 2-vCPU Zen 5 VM (an 8 MB pass in 25 ms
// slices: 14.9, 16.3, 17.5 ... 18.7 GB/s on the slower vCPU, flat on the faster), while an
// executor's stream keeps its core busy: timed cold, the slower core read 10-20 % slow.
double rate_over_cores(double min_s, const CoreMeasure& measure, std::vector<double>* core_rates) {
  if (core_rates != nullptr) core_rates->clear();
  const std::vector<int> cores = allowed_cpus();
  if (cores.size() <= 1) {
    const double rate = measure(min_s, 0.0);
    if (core_rates != nullptr) core_rates->push_back(rate);
    return rate;
  }
  double seconds_per_unit = 0;
  const double per_core_s = min_s / static_cast<double>(cores.size());
  for (const int c : cores) {
    run_on({c});
    const double rate = measure(per_core_s, per_core_s);  // warmed as long first (see above)
    if (core_rates != nullptr) core_rates->push_back(rate);
    seconds_per_unit += 1.0 / rate;
  }
  run_on(cores);
  return static_cast<double>(cores.size()) / seconds_per_unit;
}

bool Measurement::noisy() const {
  return spread > kNoisySpread;
}

const Measurement* CalibrationReport::find(const MeasurementKey& key) const {
  for (const Measurement& m : measurements)
    if (m.key == key) return &m;
  return nullptr;
}

const Measurement& CalibrationReport::get(const MeasurementKey& key) const {
  if (const Measurement* m = find(key)) return *m;
  throw std::out_of_range("no measurement '" + measurement_name(key) + "'");
}

ProfileInputs profile_inputs(const Machine& profile) {
  const auto cpu_id = profile.find_device("cpu0");
  const auto disk_id = profile.find_device("disk0");
  if (!cpu_id || !disk_id)
    throw std::invalid_argument("profile '" + profile.name() + "' has no cpu0 and disk0");
  const CpuModel& cpu = profile.device(*cpu_id).cpu;
  const DiskModel& disk = profile.device(*disk_id).disk;
  ProfileInputs in;
  in.hardware_threads = cpu.cores;
  in.compute_streams = cpu.compute_streams;
  in.all_streams_busy_speed = cpu.all_streams_busy_speed;
  in.beside_dispatch_speed = cpu.beside_dispatch_speed;
  in.gemm_flops_per_s_per_stream =
      cpu.peak_flops_per_s() * cpu.efficiency / std::max(1, cpu.compute_streams);
  in.elementwise_bytes_per_s = cpu.efficiency * cpu.dram.bytes_per_s();
  in.memory_pass_rates = cpu.memory_pass_rates;
  in.copy_stream_rates = cpu.copy_stream_rates;
  in.copies_together_rates = cpu.copies_together_rates;
  in.memcpy_two_streams_bytes_per_s = cpu.dram.bytes_per_s() / 2;
  in.memcpy_bytes_per_s = cpu.copy_stream_bytes_per_s > 0 ? cpu.copy_stream_bytes_per_s
                                                          : in.memcpy_two_streams_bytes_per_s;
  in.first_access_s = cpu.dram.first_access_s;
  in.dispatch_s = cpu.dispatch_s;
  in.core_pass_speeds = cpu.core_pass_speeds;
  in.core_copy_speeds = cpu.core_copy_speeds;
  in.core_gemm_speeds = cpu.core_gemm_speeds;
  in.disk_read_bytes_per_s = disk.read_bytes_per_s;
  in.disk_write_bytes_per_s = disk.write_bytes_per_s;
  in.disk_access_s = disk.access_s;
  in.disk_random_read_s = 1.0 / disk.read_iops + kRandomBlockBytes / disk.read_bytes_per_s;
  in.disk_random_write_s = 1.0 / disk.write_iops + kRandomBlockBytes / disk.write_bytes_per_s;
  in.disk_random_read_beside_sequential_s =
      in.disk_random_read_s + disk.random_read_wait_beside_sequential_s;
  in.disk_sequential_read_beside_random_bytes_per_s =
      disk.sequential_read_beside_random_bytes_per_s;
  in.disk_sequential_read_beside_write_bytes_per_s = disk.sequential_read_beside_write_bytes_per_s;
  in.disk_sequential_reads_together_bytes_per_s = disk.sequential_reads_together_bytes_per_s;
  in.disk_sequential_write_beside_read_bytes_per_s = disk.sequential_write_beside_read_bytes_per_s;
  in.disk_io_cores = cpu.disk_io_cores;
  in.disk_read_speed_one_busy = cpu.disk_read_speed_one_busy;
  in.disk_read_speed_all_busy = cpu.disk_read_speed_all_busy;
  in.disk_write_speed_one_busy = cpu.disk_write_speed_one_busy;
  in.disk_write_speed_all_busy = cpu.disk_write_speed_all_busy;
  in.gpus = calibrated_gpu_inputs(profile);
  return in;
}

std::vector<std::string> groups_used_by(const OpGraph& graph, const Machine& machine) {
  std::set<std::string> groups;
  auto on_gpu = [&](DeviceId d) {
    return d != kNoDevice && d < machine.devices().size() &&
           machine.device(d).kind == DeviceKind::kGpu;
  };
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    if (on_gpu(op.device) || (op.kind == OpKind::kCopy && on_gpu(op.peer))) {
      groups.insert("gpu");
      continue;
    }
    switch (op.kind) {
      case OpKind::kCompute:
        if (op.kernel == KernelClass::kGemm)
          groups.insert("gemm");
        else if (op.kernel != KernelClass::kNoop)
          groups.insert("elementwise");
        break;
      case OpKind::kCopy:
        groups.insert("memcpy");
        break;
      case OpKind::kDiskRead:
      case OpKind::kDiskWrite:
        groups.insert("disk");
        break;
      case OpKind::kHostDispatch:
        groups.insert("host dispatch");
        break;
    }
  }
  return {groups.begin(), groups.end()};
}

std::string profile_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == 0) std::strcpy(host, "host");
  std::string name = "calibrated-";
  for (const char* c = host; *c != 0; ++c)
    name += (std::isalnum(static_cast<unsigned char>(*c)) || *c == '-') ? *c : '-';
  return name;
}

double gemm_rate_per_stream(double one_thread_flops_per_s, double all_threads_flops_per_s,
                            int streams, int hw) {
  hw = std::max(1, hw);
  const int threads = std::max(1, hw / std::clamp(streams, 1, hw));
  if (threads == 1) return one_thread_flops_per_s;
  return all_threads_flops_per_s * threads / hw;
}

Machine build_profile(const ProfileInputs& in, const std::string& host_name) {
  const int cores = std::max(1, in.hardware_threads);
  const int streams = std::clamp(in.compute_streams, 1, cores);
  CpuModel cpu;
  cpu.cores = cores;
  cpu.simd_fp32_lanes = 16;
  cpu.fma_units = 2;
  cpu.dispatch_s = in.dispatch_s;
  cpu.compute_streams = streams;
  cpu.all_streams_busy_speed = std::clamp(in.all_streams_busy_speed, 1.0 / streams, 1.0);
  cpu.beside_dispatch_speed = std::clamp(in.beside_dispatch_speed, 1.0 / cores, 1.0);
  cpu.copy_streams = 2;
  // A memcpy reads and writes every byte: the simulator moves it at half the DRAM bandwidth.
  // One thread does not saturate the DRAM: two copy more together than one alone, so the
  // DRAM gets the two-stream rate and each copy the one-stream rate at most.
  cpu.dram.channels = 1;
  cpu.dram.bytes_per_s_per_channel =
      2.0 * std::max(in.memcpy_bytes_per_s, in.memcpy_two_streams_bytes_per_s);
  cpu.copy_stream_bytes_per_s = in.memcpy_bytes_per_s;
  cpu.dram.first_access_s = in.first_access_s;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_bytes = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_bytes > 0)
    cpu.dram.capacity_bytes = static_cast<double>(pages) * static_cast<double>(page_bytes);
  // The roofline scales both compute and memory time by `efficiency`: it is set so that
  // memory-bound kernels run at the measured elementwise rate, and the clock so that
  // peak x efficiency / streams is the measured GEMM rate of one stream.
  cpu.efficiency = in.elementwise_bytes_per_s > 0
                       ? std::clamp(in.elementwise_bytes_per_s / cpu.dram.bytes_per_s(), 1e-3, 1.0)
                       : 1.0;
  cpu.memory_pass_rates = in.memory_pass_rates;
  cpu.copy_stream_rates = in.copy_stream_rates;
  cpu.copies_together_rates = in.copies_together_rates;
  // One factor per core at most (a profile from a host with more cores keeps its first ones).
  for (auto [from, to] : {std::pair{&in.core_pass_speeds, &cpu.core_pass_speeds},
                          std::pair{&in.core_copy_speeds, &cpu.core_copy_speeds},
                          std::pair{&in.core_gemm_speeds, &cpu.core_gemm_speeds}})
    to->assign(from->begin(), from->begin() + static_cast<std::ptrdiff_t>(std::min(
                                                  from->size(), static_cast<std::size_t>(cores))));
  cpu.disk_io_cores = std::clamp(in.disk_io_cores, 0.0, static_cast<double>(cores));
  // A transfer never stops beside compute: at least a hundredth of its rate.
  cpu.disk_read_speed_one_busy = std::clamp(in.disk_read_speed_one_busy, 0.01, 1.0);
  cpu.disk_read_speed_all_busy = std::clamp(in.disk_read_speed_all_busy, 0.01, 1.0);
  cpu.disk_write_speed_one_busy = std::clamp(in.disk_write_speed_one_busy, 0.01, 1.0);
  cpu.disk_write_speed_all_busy = std::clamp(in.disk_write_speed_all_busy, 0.01, 1.0);
  cpu.clock_hz =
      in.gemm_flops_per_s_per_stream * streams /
      (cores * static_cast<double>(cpu.simd_fp32_lanes) * cpu.fma_units * 2.0 * cpu.efficiency);

  DiskModel disk;
  disk.kind = in.disk_access_s > 1e-3 ? DiskKind::kHdd : DiskKind::kSataSsd;
  disk.access_s = in.disk_access_s;
  disk.read_bytes_per_s = in.disk_read_bytes_per_s;
  disk.write_bytes_per_s = in.disk_write_bytes_per_s;
  disk.read_iops = 1.0 / random_request_access_s(in.disk_random_read_s, disk.read_bytes_per_s);
  // Profiles from before random writes were measured: as fast as random reads.
  disk.write_iops =
      1.0 / random_request_access_s(
                in.disk_random_write_s > 0 ? in.disk_random_write_s : in.disk_random_read_s,
                disk.write_bytes_per_s);
  disk.random_read_wait_beside_sequential_s =
      std::max(0.0, in.disk_random_read_beside_sequential_s - in.disk_random_read_s);
  // Beside random reads a sequential read may run faster than alone: on this project's VM
  // it read at 1.7-2.1 GB/s beside them in every round of a suite whose reads alone ran at
  // 1.2-1.5 (the host's I/O thread kept busy answers sooner), and the workload's reads did
  // too; so the measured figure holds, as for two reads together.
  disk.sequential_read_beside_random_bytes_per_s =
      in.disk_sequential_read_beside_random_bytes_per_s;
  // Never faster than alone.
  disk.sequential_read_beside_write_bytes_per_s =
      std::min(in.disk_sequential_read_beside_write_bytes_per_s, in.disk_read_bytes_per_s);
  disk.sequential_write_beside_read_bytes_per_s =
      std::min(in.disk_sequential_write_beside_read_bytes_per_s, in.disk_write_bytes_per_s);
  // Together may be faster than one alone (queues), so no bound here.
  disk.sequential_reads_together_bytes_per_s = in.disk_sequential_reads_together_bytes_per_s;
  disk.queues = 2;

  Machine m(host_name);
  m.set_description(
      "Measured by opsim calibrate: cpu0 (GEMM, memcpy, DRAM latency, dispatch) and "
      "disk0 (O_DIRECT sequential and random 4 KiB I/O)");
  const DeviceId c = m.add_cpu("cpu0", cpu);
  const DeviceId d = m.add_disk("disk0", disk);
  // The disk's own media link limits it; the host link only joins it to cpu0.
  LinkModel link;
  link.bytes_per_s = 4.0 * std::max(disk.read_bytes_per_s, disk.write_bytes_per_s);
  link.latency_s = 0;
  link.full_duplex = true;
  m.add_link("disk0-cpu0", d, c, link);
  add_calibrated_gpus(m, in.gpus);
  if (in.gpus.count > 0)
    m.set_description(
        "Measured by opsim calibrate: cpu0 (GEMM, memcpy, DRAM latency, dispatch), disk0 "
        "(O_DIRECT sequential and random 4 KiB I/O) and " +
        std::to_string(in.gpus.count) +
        " GPU(s) like gpu0 (cuBLAS SGEMM, elementwise, launch, pinned copies)");
  m.seal();
  return m;
}

// The parameters a calibration measures (the ones CalibrationOptions::only asks for) and the
// state their samples share: scratch files, a frontend Context, every sample so far.
struct Calibrator::State {
  CalibrationOptions options;
  Plan plan;
  int hw = 1;
  std::string scratch_dir;  // DiskFile regions of the process's scratch disk there
  std::vector<std::size_t> pass_sizes;
  std::vector<std::size_t> copy_sizes;  // memcpy sizes below the plan's, one stream
  std::vector<CalibrationItem> items;
  std::vector<std::vector<double>> samples;  // per item, in the order taken
  Clock::time_point t0 = Clock::now();
  std::unique_ptr<DiskFile> file, streamed,
      written;  // reads and random I/O; a second reader; writes
  std::string disk_note, gpu_note;
  std::uint64_t rng = 0x9E3779B97F4A7C15ull;
  std::unique_ptr<frontend::Context> ctx;
  std::shared_ptr<GpuRuntime> gpu_runtime_used;
  // Which of a parameter's back-to-back samples is being taken (Calibrator::sample).
  int repeat = 0;
  // Per rate measured over the cores since the pass began (take_pass clears them): each
  // core's rate / the mean core's, for the elementwise passes, memcpy and one-thread GEMMs,
  // with the repeat it was taken in.
  struct CoreRatios {
    int repeat = 0;
    std::vector<double> per_core;
  };
  std::vector<CoreRatios> pass_core_ratios, copy_core_ratios, gemm_core_ratios;

  explicit State(const CalibrationOptions& o);
  // rate_over_cores(), keeping each core's ratio to the mean in `ratios`.
  double over_cores(std::vector<CoreRatios>& ratios, double min_s, const CoreMeasure& measure) {
    std::vector<double> per_core;
    const double mean = rate_over_cores(min_s, measure, &per_core);
    for (double& rate : per_core) rate /= mean;
    ratios.push_back({repeat, std::move(per_core)});
    return mean;
  }
  // A core's speed: the geometric mean of its ratios taken in the same repeat (a full
  // calibration's n-th sample of it comes from every rate's n-th), 1 when none were kept.
  double core_speed(const std::vector<CoreRatios>& ratios, int core) const {
    double log_sum = 0;
    int count = 0;
    for (const CoreRatios& r : ratios)
      if (r.repeat == repeat && static_cast<std::size_t>(core) < r.per_core.size() &&
          r.per_core[core] > 0)
        log_sum += std::log(r.per_core[core]), ++count;
    return count > 0 ? std::exp(log_sum / count) : 1.0;
  }
  DiskFile& disk();
  double random_requests(int count, bool write);
  struct Beside {
    double random_read_s = 0;           // per random read, while the sequential read runs
    double sequential_bytes_per_s = 0;  // the sequential read's rate meanwhile
  };
  Beside random_beside_sequential(int random_reads);
  struct ReadAndWrite {
    double read_bytes_per_s = 0;   // a sequential read's rate while a write runs
    double write_bytes_per_s = 0;  // the write's rate meanwhile
  };
  ReadAndWrite read_beside_write();
  DiskFile& streamed_file();
  DiskFile& written_file();
  std::pair<double, double> sequential_read_beside(const std::function<void()>& foreground);
  CalibrationReport build(std::size_t first, std::size_t end) const;
  // The steps of build(): each takes its group's measurements, where present, into `in`.
  void take_gemm(const CalibrationReport& report, ProfileInputs& in) const;
  void take_core_speeds(const CalibrationReport& report, MeasurementId id,
                        std::vector<double>& speeds) const;
  void take_memory(const CalibrationReport& report, ProfileInputs& in) const;
  void take_disk(const CalibrationReport& report, ProfileInputs& in) const;
  void take_gpu(CalibrationReport& report, GpuInputs& g) const;
};

Calibrator::State::State(const CalibrationOptions& o)
    : options(o),
      plan(plan_for(o)),
      hw(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {
  if (!options.only.empty() && options.base == nullptr)
    throw std::invalid_argument("calibrate: measuring only some groups needs a base profile");
  // The executor's disk ops use the same scratch disk: their regions and these lie together.
  scratch_dir = options.scratch_dir;

  using Item = CalibrationItem;
  using M = MeasurementId;
  // All threads first, then one: after a multi-threaded GEMM OpenBLAS's idle helper threads
  // spin for a while (up to 2^28 cycles) on the cores, so the next group, and the real runs
  // after a pass, should not follow one directly.
  std::vector<int> thread_counts;
  if (hw > 1) thread_counts.push_back(hw);
  thread_counts.push_back(1);
  for (std::size_t n : plan.gemm_sizes)
    for (int t : thread_counts) {
      // One thread: on each core in turn (rate_over_cores), as a pinned compute stream runs.
      const MeasurementKey key =
          t > 1 ? MeasurementKey{M::kGemmAllThreads, n, t} : MeasurementKey{M::kGemmOneThread, n};
      items.push_back({key, [this, n, t, min_s = plan.min_s] {
                         if (t > 1) return gemm_rate(n, t, min_s);
                         return over_cores(gemm_core_ratios, min_s, [&](double s, double warm_s) {
                           return gemm_rate(n, 1, s, warm_s);
                         });
                       }});
      // Every core running its own one-thread GEMM, as compute streams do: what each gets.
      // After a one-thread GEMM (see above).
      if (hw > 1 && n == every_core_gemm_size(plan) && t == 1)
        items.push_back({{M::kGemmEveryCore, n}, [n, hw = hw, min_s = plan.min_s] {
                           return gemm_every_core_rate(n, hw, min_s);
                         }});
    }
  if (hw > 1)
    for (int c = 0; c < hw; ++c)
      items.push_back(
          {{M::kCoreSpeedGemm, 0, c}, [this, c] { return core_speed(gemm_core_ratios, c); }});
  const std::size_t memcpy_bytes = plan.memcpy_bytes;
  const double min_s = plan.min_s;
  items.push_back({{M::kMemcpyOneStream}, [this, memcpy_bytes, min_s] {
                     return over_cores(copy_core_ratios, min_s, [&](double s, double warm_s) {
                       return memcpy_rate(memcpy_bytes, 1, s, warm_s);
                     });
                   }});
  items.push_back(
      {{M::kMemcpyTwoStreams}, [=] { return memcpy_rate(memcpy_bytes, 2, min_s, min_s); }});
  items.push_back({{M::kElementwise}, [this, memcpy_bytes, min_s] {
                     return over_cores(pass_core_ratios, min_s, [&](double s, double warm_s) {
                       return elementwise_rate(memcpy_bytes, s, warm_s);
                     });
                   }});
  // Smaller working sets run from cache: the simulator interpolates between these.
  for (std::size_t mb : {2, 8, 32})
    if ((mb << 20) < memcpy_bytes) pass_sizes.push_back(mb << 20);
  for (std::size_t bytes : pass_sizes)
    items.push_back({{M::kElementwiseBySize, bytes}, [this, bytes, min_s] {
                       return over_cores(pass_core_ratios, min_s, [&](double s, double warm_s) {
                         return elementwise_rate(bytes, s, warm_s);
                       });
                     }});
  // memcpy's rate is not one number: smaller copies run from cache, and glibc switches to
  // non-temporal stores above a threshold, either side of which a copy that misses the cache
  // runs at its own rate (memcpy_sizes.hpp). The simulator interpolates between the sizes.
  copy_sizes = memcpy_calibration_sizes(memcpy_bytes, memcpy_non_temporal_threshold_bytes());
  for (std::size_t bytes : copy_sizes)
    items.push_back({{M::kMemcpyOneStreamBySize, bytes}, [this, bytes, min_s] {
                       return over_cores(copy_core_ratios, min_s, [&](double s, double warm_s) {
                         return memcpy_rate(bytes, 1, s, warm_s);
                       });
                     }});
  // And two streams at once at each size: the largest size's pair does not tell what a pair
  // of another size gets together (two of 96 MiB ran 1.02-1.15x two of 128 MiB on a
  // 2-vCPU VM), and the simulator shares the DRAM at the copies' own size's
  // (CpuModel::copies_together_rates).
  for (std::size_t bytes : copy_sizes)
    items.push_back({{M::kMemcpyTwoStreamsBySize, bytes},
                     [bytes, min_s] { return memcpy_rate(bytes, 2, min_s, min_s); }});
  // Each core's speed, from the rates above measured there (no measuring of its own): the
  // executor pins streams to cores, and on a VM one vCPU copies at 0.7 x the other's.
  if (hw > 1)
    for (const auto& [id, ratios] : {std::pair{M::kCoreSpeedElementwise, &pass_core_ratios},
                                     std::pair{M::kCoreSpeedMemcpy, &copy_core_ratios}})
      for (int c = 0; c < hw; ++c)
        items.push_back({{id, 0, c}, [this, ratios, c] { return core_speed(*ratios, c); }});
  items.push_back({{M::kDramFirstAccess},
                   [chase = plan.chase_bytes, min_s] { return chase_latency(chase, min_s); }});

  const std::uint64_t disk_bytes = plan.disk_bytes;
  // Sequential writes and reads go on from where the last ones ended, as the executor's do
  // (DiskFile::write_next, read_next): never the same bytes read twice in a row.
  items.push_back({{M::kDiskSequentialWrite}, [this, disk_bytes] {
                     DiskFile& f = written_file();
                     const auto s = Clock::now();
                     f.write_next(disk_bytes, 0);
                     return disk_bytes / seconds_since(s);
                   }});
  items.push_back({{M::kDiskSequentialRead}, [this, disk_bytes] {
                     DiskFile& f = disk();
                     const auto s = Clock::now();
                     f.read_next(disk_bytes, 0);
                     return disk_bytes / seconds_since(s);
                   }});
  const int random_count = plan.random_reads;
  items.push_back({{M::kDiskRandomRead},
                   [this, random_count] { return random_requests(random_count, false); }});
  items.push_back({{M::kDiskRandomWrite},
                   [this, random_count] { return random_requests(random_count, true); }});
  // The same random reads while another file is read sequentially (1 MiB requests, as the
  // executor's sequential reads): how long a small request waits behind large ones, and
  // what the sequential read keeps while small requests cut in.
  const int beside_count = std::max(1, random_count / 4);
  items.push_back({{M::kDiskRandomReadBesideSequential}, [this, beside_count] {
                     return random_beside_sequential(beside_count).random_read_s;
                   }});
  items.push_back({{M::kDiskSequentialReadBesideRandom}, [this, beside_count] {
                     return random_beside_sequential(beside_count).sequential_bytes_per_s;
                   }});
  // A sequential read and a sequential write (appending, as the executor's) at once: one
  // device serves both.
  items.push_back({{M::kDiskSequentialReadBesideWrite},
                   [this] { return read_beside_write().read_bytes_per_s; }});
  items.push_back({{M::kDiskSequentialWriteBesideRead},
                   [this] { return read_beside_write().write_bytes_per_s; }});
  // Two sequential reads of two files at once (each in 1 MiB requests): what they get
  // together, which one read's rate does not tell (a device with queues may serve both).
  items.push_back({{M::kDiskSequentialReadsTogether}, [this, disk_bytes] {
                     DiskFile& f = disk();
                     const std::uint64_t bytes = disk_bytes / 2;
                     const auto [other_bytes_per_s, window_s] =
                         sequential_read_beside([&] { f.read_next(bytes, 0); });
                     return other_bytes_per_s + static_cast<double>(bytes) / window_s;
                   }});
  // A VM's host moves the disk's data on the vCPUs' time: what busy cores lose meanwhile.
  items.push_back(
      {{M::kDiskIoCores}, [this, n = every_core_gemm_size(plan), hw = hw, min_s = plan.min_s] {
         DiskFile& read = streamed_file();
         return disk_io_cores(n, hw, min_s, [&](const std::atomic<bool>& stop) {
           while (!stop.load(std::memory_order_relaxed)) read.read_next(1 << 20, 0);
         });
       }});
  // Likewise the transfer slows down beside busy cores: a read's and a write's rate beside
  // one-thread GEMMs on one core and on every core (the simulator interpolates between).
  for (const bool write : {false, true})
    for (const int threads : hw > 1 ? std::vector<int>{1, hw} : std::vector<int>{1}) {
      const MeasurementId id =
          write
              ? (threads == hw ? M::kDiskWriteBesideEveryCoreBusy : M::kDiskWriteBesideOneBusyCore)
              : (threads == hw ? M::kDiskReadBesideEveryCoreBusy : M::kDiskReadBesideOneBusyCore);
      items.push_back({{id}, [this, write, threads, disk_bytes, n = every_core_gemm_size(plan)] {
                         return disk_speed_beside_gemms(n, threads, [&] {
                           if (write)
                             written_file().write_next(disk_bytes, 0);
                           else
                             streamed_file().read_next(disk_bytes, 0);
                         });
                       }});
    }
  const int dispatch_ops = plan.dispatch_ops;
  items.push_back({{M::kHostDispatch}, [this, dispatch_ops] {
                     // The frontend issuing tiny independent ops: t1 is the issuing cost.
                     if (!ctx) ctx = std::make_unique<frontend::Context>(frontend::host_machine());
                     frontend::Array x = ctx->full(frontend::cpu(), 1, 1, 1.0f);
                     for (int i = 0; i < 100; ++i) (void)ctx->add(x, x);  // warm the workers
                     ctx->waitall();
                     const auto s = Clock::now();
                     for (int i = 0; i < dispatch_ops; ++i) (void)ctx->add(x, x);
                     const double issue_s = seconds_since(s);
                     ctx->waitall();
                     return issue_s / dispatch_ops;
                   }});
  // What a compute stream keeps while the program busy-waits in a dispatch on another core.
  if (hw > 1)
    items.push_back(
        {{M::kHostDispatchNeighbourSpeed}, [n = every_core_gemm_size(plan), min_s = plan.min_s] {
           return gemm_speed_beside_busy_wait(n, min_s);
         }});

  std::string why_no_gpu;
  for (Item& item : gpu_calibration_items(options.quick, plan.min_s, &why_no_gpu))
    items.push_back(std::move(item));
  gpu_runtime_used = gpu_runtime();
  gpu_note = gpu_runtime_used ? "measured gpu0 (" + gpu_runtime_used->device_name(0) + ") of " +
                                    std::to_string(gpu_runtime_used->device_count()) + " GPU(s)"
                              : "no GPU measured: " + why_no_gpu;

  if (!options.only.empty()) {
    // A targeted calibration: the groups asked for; the base profile gives the rest.
    std::erase_if(items, [&](const Item& item) {
      for (const std::string& group : options.only)
        if (measurement_name(item.key).starts_with(group)) return false;
      return true;
    });
  }
  samples.resize(items.size());
}

DiskFile& Calibrator::State::disk() {
  if (!file) {
    file = std::make_unique<DiskFile>(scratch_dir);
    disk_note = file->note();
    file->fill();  // untimed: read_next() would fill it
  }
  return *file;
}

// Seconds per random 4 KiB read (or write: an overwrite in place), `count` of them within
// the file's first 64 MiB, as the executor's random disk ops do them.
double Calibrator::State::random_requests(int count, bool write) {
  DiskFile& f = disk();
  constexpr auto block = static_cast<std::uint64_t>(kRandomBlockBytes);
  const std::uint64_t blocks = (64u << 20) / block;
  const auto s = Clock::now();
  for (int i = 0; i < count; ++i) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    if (write)
      f.write((rng % blocks) * block, block, block);
    else
      f.read((rng % blocks) * block, block, block);
  }
  return seconds_since(s) / count;
}

DiskFile& Calibrator::State::streamed_file() {
  disk();
  if (!streamed) {
    streamed = std::make_unique<DiskFile>(scratch_dir);
    streamed->fill();
  }
  return *streamed;
}

DiskFile& Calibrator::State::written_file() {
  if (!written) {
    written = std::make_unique<DiskFile>(scratch_dir);
    written->fill();  // untimed: write_next() would fill it
  }
  return *written;
}

// Runs `foreground` while another thread reads the streamed file sequentially (1 MiB
// requests, as the executor's sequential reads); returns the reader's rate meanwhile and
// the foreground's seconds.
std::pair<double, double> Calibrator::State::sequential_read_beside(
    const std::function<void()>& foreground) {
  DiskFile& read = streamed_file();
  constexpr std::uint64_t kRequestBytes = 1 << 20;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> read_bytes{0};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      read.read_next(kRequestBytes, 0);
      read_bytes.fetch_add(kRequestBytes, std::memory_order_relaxed);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::uint64_t bytes_before = read_bytes.load();
  const auto s = Clock::now();
  foreground();
  const double window_s = seconds_since(s);
  const double read_bytes_per_s = static_cast<double>(read_bytes.load() - bytes_before) / window_s;
  stop = true;
  reader.join();
  return {read_bytes_per_s, window_s};
}

Calibrator::State::ReadAndWrite Calibrator::State::read_beside_write() {
  DiskFile& written = written_file();
  const std::uint64_t write_bytes = plan.disk_bytes / 2;
  const auto [read_bytes_per_s, window_s] =
      sequential_read_beside([&] { written.write_next(write_bytes, 0); });
  return {read_bytes_per_s, static_cast<double>(write_bytes) / window_s};
}

Calibrator::State::Beside Calibrator::State::random_beside_sequential(int random_reads) {
  Beside result;
  result.sequential_bytes_per_s = sequential_read_beside([&] {
                                    result.random_read_s = random_requests(random_reads, false);
                                  }).first;
  return result;
}

CalibrationReport Calibrator::State::build(std::size_t first, std::size_t end) const {
  CalibrationReport report;
  report.disk_note = disk_note;
  report.gpu_note = gpu_note;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::vector<double>& all = samples[i];
    Measurement m{items[i].key,
                  measurement_name(items[i].key),
                  std::string(measurement_unit(items[i].key.id)),
                  {},
                  0,
                  0};
    m.samples.assign(all.begin() + static_cast<std::ptrdiff_t>(std::min(first, all.size())),
                     all.begin() + static_cast<std::ptrdiff_t>(std::min(end, all.size())));
    if (m.samples.empty())
      throw std::logic_error("calibrate: no sample of '" + m.name + "' in the passes asked for");
    m.value = reduce(m.samples, options.statistic, m.unit != "s");
    m.spread = spread(m.samples);
    report.measurements.push_back(std::move(m));
  }
  ProfileInputs in = options.base != nullptr ? profile_inputs(*options.base) : ProfileInputs{};
  const bool gemm_measured = report.find({M::kGemmOneThread, plan.gemm_sizes.back()}) != nullptr;
  // The base's core count stays unless the GEMMs (which use every core) were measured here:
  // a targeted pass keeps every parameter it did not measure.
  if (options.base == nullptr || gemm_measured) in.hardware_threads = hw;
  if (gemm_measured) take_gemm(report, in);
  take_memory(report, in);
  take_disk(report, in);
  if (auto m = report.find({M::kHostDispatch})) in.dispatch_s = m->value;
  if (auto m = report.find({M::kHostDispatchNeighbourSpeed})) in.beside_dispatch_speed = m->value;
  if (report.find({M::kGpuDependentGemm, 1024})) take_gpu(report, in.gpus);
  report.machine = build_profile(in, profile_name());
  report.elapsed_s = seconds_since(t0);
  return report;
}

// GEMM: how many ops really run at once and what one op gets, each the median over the sizes
// from 512 up (small GEMMs are overhead-bound), which steadies them on a shared machine.
void Calibrator::State::take_gemm(const CalibrationReport& report, ProfileInputs& in) const {
  std::vector<double> one, all;
  for (std::size_t n : plan.gemm_sizes) {
    if (n < 512) continue;
    one.push_back(report.get({M::kGemmOneThread, n}).value);
    all.push_back(report
                      .get(hw > 1 ? MeasurementKey{M::kGemmAllThreads, n, hw}
                                  : MeasurementKey{M::kGemmOneThread, n})
                      .value);
  }
  const double one_rate = median(one), all_rate = median(all);
  // A targeted calibration keeps the base's streams: the real runs it is measured beside
  // are scheduled on the base. Otherwise one stream per physical core (cpu_topology.hpp):
  // the count used to come from the GEMMs side by side, which a noisy minute rounded
  // from two streams to one; how fast the streams run together is measured below.
  const int cores = physical_cores(allowed_cpus()).value_or(hw);
  in.compute_streams = std::clamp(options.base != nullptr ? in.compute_streams : cores, 1, hw);
  in.gemm_flops_per_s_per_stream = gemm_rate_per_stream(one_rate, all_rate, in.compute_streams, hw);
  // Where each stream gets one BLAS thread (more than half as many streams as cores), each
  // one's speed while all are busy: the every-core measurement, one one-thread GEMM per
  // core (with fewer streams than cores a little pessimistic). Streams of several threads:
  // their GEMMs are multi-threaded, which the every-core measurement is not, so 1.
  in.all_streams_busy_speed = 1.0;
  const Measurement* every_core = report.find({M::kGemmEveryCore, every_core_gemm_size(plan)});
  if (hw > 1 && hw / std::max(1, in.compute_streams) == 1 && every_core != nullptr)
    in.all_streams_busy_speed = std::clamp(every_core->value / one_rate, 1.0 / hw, 1.0);
  take_core_speeds(report, M::kCoreSpeedGemm, in.core_gemm_speeds);
}

// Each core's factor of `id`, when measured.
void Calibrator::State::take_core_speeds(const CalibrationReport& report, MeasurementId id,
                                         std::vector<double>& speeds) const {
  if (!report.find({id, 0, 0})) return;
  speeds.clear();
  for (int c = 0; c < hw; ++c) speeds.push_back(report.get({id, 0, c}).value);
}

// Elementwise passes and memcpy by size, the DRAM's first access.
void Calibrator::State::take_memory(const CalibrationReport& report, ProfileInputs& in) const {
  const auto largest = static_cast<double>(plan.memcpy_bytes);
  if (auto m = report.find({M::kElementwise})) {
    in.elementwise_bytes_per_s = m->value;
    in.memory_pass_rates.clear();
    for (std::size_t bytes : pass_sizes)
      in.memory_pass_rates.push_back(
          {static_cast<double>(bytes), report.get({M::kElementwiseBySize, bytes}).value});
    in.memory_pass_rates.push_back({largest, in.elementwise_bytes_per_s});
  }
  if (auto m = report.find({M::kMemcpyOneStream})) {
    in.memcpy_bytes_per_s = m->value;
    in.memcpy_two_streams_bytes_per_s = report.get({M::kMemcpyTwoStreams}).value;
    in.copy_stream_rates.clear();
    for (std::size_t bytes : copy_sizes)
      in.copy_stream_rates.push_back(
          {static_cast<double>(bytes), report.get({M::kMemcpyOneStreamBySize, bytes}).value});
    in.copy_stream_rates.push_back({largest, in.memcpy_bytes_per_s});
    in.copies_together_rates.clear();
    for (std::size_t bytes : copy_sizes)
      in.copies_together_rates.push_back(
          {static_cast<double>(bytes), report.get({M::kMemcpyTwoStreamsBySize, bytes}).value});
    in.copies_together_rates.push_back({largest, in.memcpy_two_streams_bytes_per_s});
  }
  take_core_speeds(report, M::kCoreSpeedElementwise, in.core_pass_speeds);
  take_core_speeds(report, M::kCoreSpeedMemcpy, in.core_copy_speeds);
  if (auto m = report.find({M::kDramFirstAccess})) in.first_access_s = m->value;
}

void Calibrator::State::take_disk(const CalibrationReport& report, ProfileInputs& in) const {
  if (report.find({M::kDiskSequentialWrite})) {
    const auto value = [&](MeasurementId id) { return report.get({id}).value; };
    in.disk_write_bytes_per_s = value(M::kDiskSequentialWrite);
    in.disk_read_bytes_per_s = value(M::kDiskSequentialRead);
    in.disk_random_read_s = value(M::kDiskRandomRead);
    in.disk_random_write_s = value(M::kDiskRandomWrite);
    in.disk_access_s = in.disk_random_read_s;
    in.disk_random_read_beside_sequential_s = value(M::kDiskRandomReadBesideSequential);
    in.disk_sequential_read_beside_random_bytes_per_s = value(M::kDiskSequentialReadBesideRandom);
    in.disk_sequential_read_beside_write_bytes_per_s = value(M::kDiskSequentialReadBesideWrite);
    in.disk_sequential_write_beside_read_bytes_per_s = value(M::kDiskSequentialWriteBesideRead);
    in.disk_sequential_reads_together_bytes_per_s = value(M::kDiskSequentialReadsTogether);
  }
  if (auto m = report.find({M::kDiskIoCores})) in.disk_io_cores = m->value;
  // One busy core is all of them on a one-core machine (only the every-core figure).
  const auto speed_beside = [&](MeasurementId one, MeasurementId all, double& one_speed,
                                double& all_speed) {
    if (auto m = report.find({all})) all_speed = one_speed = m->value;
    if (auto m = report.find({one})) one_speed = m->value;
  };
  speed_beside(M::kDiskReadBesideOneBusyCore, M::kDiskReadBesideEveryCoreBusy,
               in.disk_read_speed_one_busy, in.disk_read_speed_all_busy);
  speed_beside(M::kDiskWriteBesideOneBusyCore, M::kDiskWriteBesideEveryCoreBusy,
               in.disk_write_speed_one_busy, in.disk_write_speed_all_busy);
}

void Calibrator::State::take_gpu(CalibrationReport& report, GpuInputs& g) const {
  const auto value = [&](MeasurementId id) { return report.get({id}).value; };
  g.count = gpu_runtime_used->device_count();
  g.memory_bytes = gpu_runtime_used->memory_bytes(0);
  g.memory_bytes_per_s = value(M::kGpuElementwise);
  // The launch latency of a dependent op: a chained 32 MB pass's period less its work (the
  // gap after ms-long SGEMMs, "gpu launch gap", ran 16-20 us on an H100 host where short
  // ops waited ~11: the completion path is slower after long waits).
  g.launch_s =
      std::max(0.0, value(M::kGpuDependentPasses) - kGpuLaunchPassBytes / g.memory_bytes_per_s);
  // SGEMM by size, from the chains (in increasing size); the fp32 peak is the best of them.
  g.gemm_flops_per_s = 0;
  g.sgemm_rates.clear();
  for (const Measurement& m : report.measurements)
    if (m.key.id == M::kGpuDependentGemm) {
      g.sgemm_rates.push_back(sgemm_rate_from_chain(m.key.size, m.value, g.launch_s));
      g.gemm_flops_per_s = std::max(g.gemm_flops_per_s, g.sgemm_rates.back().flops_per_s);
    }
  report.gpu_note += sgemm_note(g);
  g.dependent_op_min_s = value(M::kGpuDependentSmallKernels);
  g.queued_op_min_s = value(M::kGpuQueuedSmallKernels);
  if (auto m = report.find({M::kGpuCopiesBothDirections})) g.both_directions_bytes_per_s = m->value;
  g.host_to_device_bytes_per_s = value(M::kGpuHostToDevice);
  g.device_to_host_bytes_per_s = value(M::kGpuDeviceToHost);
  g.copy_latency_s = value(M::kGpuCopyLatency);
  const Measurement* peer = report.find({M::kGpuPeerCopy});
  g.peer_bytes_per_s = peer != nullptr ? peer->value : 0;
}

Calibrator::Calibrator(const CalibrationOptions& options)
    : state_(std::make_unique<State>(options)) {}

Calibrator::~Calibrator() {
  state_->file.reset();
  state_->streamed.reset();
  state_->ctx.reset();
  cpu::set_blas_threads(state_->hw);
}

std::size_t Calibrator::parameter_count() const {
  return state_->items.size();
}

std::vector<MeasurementKey> Calibrator::parameters() const {
  std::vector<MeasurementKey> keys;
  for (const CalibrationItem& item : state_->items) keys.push_back(item.key);
  return keys;
}

int Calibrator::repeats() const {
  return state_->plan.repeats;
}

void Calibrator::sample(std::size_t parameter, int count) {
  State& s = *state_;
  for (int r = 0; r < count; ++r) {
    s.repeat = r;
    s.samples.at(parameter).push_back(s.items.at(parameter).sample());
  }
  // The executor sets its own thread counts per op; leave OpenBLAS as a fresh process has it.
  cpu::set_blas_threads(s.hw);
}

std::size_t Calibrator::take_pass() {
  state_->pass_core_ratios.clear();
  state_->copy_core_ratios.clear();
  state_->gemm_core_ratios.clear();
  for (std::size_t i = 0; i < parameter_count(); ++i) {
    sample(i, 1);
    if (state_->options.on_progress) state_->options.on_progress(i + 1, parameter_count());
  }
  return state_->samples.empty() ? 0 : state_->samples.front().size() - 1;
}

CalibrationReport Calibrator::report(std::size_t first_sample, std::size_t end_sample) const {
  return state_->build(first_sample, end_sample);
}

CalibrationReport calibrate(const CalibrationOptions& options) {
  Calibrator calibrator(options);
  // All samples of one parameter back to back: its spread is the host's noise over
  // seconds, not the drift over the whole calibration.
  for (std::size_t i = 0; i < calibrator.parameter_count(); ++i) {
    calibrator.sample(i, calibrator.repeats());
    if (options.on_progress) options.on_progress(i + 1, calibrator.parameter_count());
  }
  return calibrator.report();
}

}  // namespace opsim::calibration
