#include "experiments/calibration/measurement_kernels.hpp"

#include <algorithm>
#include <barrier>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>

#include "engine/exec/cpu_kernels.hpp"
#include "engine/exec/operand_pair.hpp"
#include "engine/exec/real_backend.hpp"
#include "experiments/calibration/calibration.hpp"
#include "experiments/calibration/cpu_topology.hpp"

namespace opsim::calibration {
namespace {

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

}  // namespace

double gemm_rate(std::size_t n, int threads, double min_s, double warm_s) {
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

// Aggregate bytes copied per second by `streams` threads, each copying its own buffers (laid
// out as the executor's copy streams' are: OperandPair). One stream copies on the calling
// thread (rate_over_cores pins it); more run as the executor's copy streams do: persistent
// threads, each pinned to its stream's core (pinned_core(): counting down from the last),
// copying back to back for `min_s`; the sum of their rates. (A thread started per copy and
// left to float may begin on its partner's core: two copies of 32 MiB take ~3 ms here.)
double memcpy_rate(std::size_t bytes, int streams, double min_s, double warm_s) {
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
double elementwise_rate(std::size_t bytes, double min_s, double warm_s) {
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

DiskFile& ScratchDisks::disk() {
  if (!file_) {
    file_ = std::make_unique<DiskFile>(scratch_dir_);
    note_ = file_->note();
    file_->fill();  // untimed: read_next() would fill it
  }
  return *file_;
}

// Seconds per random 4 KiB read (or write: an overwrite in place), `count` of them within
// the file's first 64 MiB, as the executor's random disk ops do them.
double ScratchDisks::random_requests(int count, bool write) {
  DiskFile& f = disk();
  constexpr auto block = static_cast<std::uint64_t>(kRandomBlockBytes);
  const std::uint64_t blocks = (64u << 20) / block;
  const auto s = Clock::now();
  for (int i = 0; i < count; ++i) {
    rng_ ^= rng_ << 13, rng_ ^= rng_ >> 7, rng_ ^= rng_ << 17;
    if (write)
      f.write((rng_ % blocks) * block, block, block);
    else
      f.read((rng_ % blocks) * block, block, block);
  }
  return seconds_since(s) / count;
}

DiskFile& ScratchDisks::streamed_file() {
  disk();
  if (!streamed_) {
    streamed_ = std::make_unique<DiskFile>(scratch_dir_);
    streamed_->fill();
  }
  return *streamed_;
}

DiskFile& ScratchDisks::written_file() {
  if (!written_) {
    written_ = std::make_unique<DiskFile>(scratch_dir_);
    written_->fill();  // untimed: write_next() would fill it
  }
  return *written_;
}

// Runs `foreground` while another thread reads the streamed file sequentially (1 MiB
// requests, as the executor's sequential reads); returns the reader's rate meanwhile and
// the foreground's seconds.
ScratchDisks::ReaderBeside ScratchDisks::sequential_read_beside(
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
  constexpr double kMostExtraS = 2.0;
  const std::uint64_t bytes_before = read_bytes.load();
  const auto s = Clock::now();
  int rounds = 0;
  do {
    foreground();
    ++rounds;
  } while (read_bytes.load() - bytes_before < 2 * kRequestBytes && seconds_since(s) < kMostExtraS);
  const double window_s = seconds_since(s);
  const double read_bytes_per_s = static_cast<double>(read_bytes.load() - bytes_before) / window_s;
  stop = true;
  reader.join();
  return {read_bytes_per_s, window_s, rounds};
}

ScratchDisks::ReadAndWrite ScratchDisks::read_beside_write(std::uint64_t write_bytes) {
  DiskFile& written = written_file();
  const ReaderBeside reader = sequential_read_beside([&] { written.write_next(write_bytes, 0); });
  return {reader.bytes_per_s, static_cast<double>(write_bytes) * reader.rounds / reader.window_s};
}

ScratchDisks::Beside ScratchDisks::random_beside_sequential(int random_reads) {
  Beside result;
  result.sequential_bytes_per_s = sequential_read_beside([&] {
                                    result.random_read_s = random_requests(random_reads, false);
                                  }).bytes_per_s;
  return result;
}

void ScratchDisks::close_read_files() {
  file_.reset();
  streamed_.reset();
}

}  // namespace opsim::calibration
