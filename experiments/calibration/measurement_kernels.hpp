// The timed passes a calibration samples: GEMM, elementwise, memcpy, a DRAM pointer chase,
// disk I/O through DiskFile (O_DIRECT) and what traffic does to compute. Each runs the real
// executor's own code paths (cpu_kernels, OperandPair, DiskFile) and returns one number in
// the unit its name says. calibration_plan.cpp decides which run, at what sizes and in what
// order; profile_build.cpp turns their numbers into a machine.
//
//   const double flops_per_s = gemm_rate(1024, 1, 0.2);   // one thread, >= 0.2 s timed
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/exec/disk_file.hpp"

namespace opsim::calibration {

using Clock = std::chrono::steady_clock;

/// Random disk requests, as calibrated: 4 KiB each.
inline constexpr double kRandomBlockBytes = 4096;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Runs `body` (which does `work` units) until at least `min_s` passed; returns units per s.
/// First, untimed, it runs `body` once and on until `warm_s` passed: caches, threads and page
/// mappings warm, and a core that idled up to speed (rate_over_cores).
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

/// Flops per second of an n x n x n SGEMM on `threads` BLAS threads.
double gemm_rate(std::size_t n, int threads, double min_s, double warm_s = 0);
/// One thread's GEMM rate on each of `threads` threads multiplying side by side.
std::vector<double> gemm_every_core_rates(std::size_t n, int threads, double min_s);
/// The slowest of gemm_every_core_rates().
double gemm_every_core_rate(std::size_t n, int threads, double min_s);
/// Cores' worth of one-thread GEMM work lost while `read_beside` reads the disk.
double disk_io_cores(std::size_t n, int threads, double min_s,
                     const std::function<void(const std::atomic<bool>&)>& read_beside);
/// `transfer`'s speed beside `threads` one-thread GEMMs, a fraction of its speed alone.
double disk_speed_beside_gemms(std::size_t n, int threads, const std::function<void()>& transfer);
/// A one-thread GEMM's speed while another thread busy-waits, a fraction of its speed alone.
double gemm_speed_beside_busy_wait(std::size_t n, double min_s);
/// Bytes copied per second by `streams` memcpy threads together.
double memcpy_rate(std::size_t bytes, int streams, double min_s, double warm_s = 0);
/// Bytes touched per second by one thread's elementwise pass over `bytes`.
double elementwise_rate(std::size_t bytes, double min_s, double warm_s = 0);
/// Seconds per dependent load over a random cyclic permutation of cache lines.
double chase_latency(std::size_t bytes, double min_s);

/// The scratch files of the disk measurements, opened on first use in `scratch_dir`: one
/// read and randomly accessed, a second read beside it, one written.
class ScratchDisks {
 public:
  explicit ScratchDisks(std::string scratch_dir) : scratch_dir_(std::move(scratch_dir)) {}

  DiskFile& disk();
  DiskFile& streamed_file();
  DiskFile& written_file();
  /// Seconds per random 4 KiB read (or write), `count` of them.
  double random_requests(int count, bool write);
  /// What a sequential reader got beside a foreground: its rate, the window's seconds and how
  /// many times the foreground ran in that window.
  struct ReaderBeside {
    double bytes_per_s = 0;
    double window_s = 0;
    int rounds = 0;
  };
  /// Runs `foreground` beside a sequential reader of 1 MiB requests, again until the reader
  /// has finished two requests inside the window (a shorter window would read as 0 B/s: on a
  /// loaded host a write can end before one read does), for at most 2 s of further rounds.
  ReaderBeside sequential_read_beside(const std::function<void()>& foreground);
  struct Beside {
    double random_read_s = 0;           ///< per random read, while the sequential read runs
    double sequential_bytes_per_s = 0;  ///< the sequential read's rate meanwhile
  };
  Beside random_beside_sequential(int random_reads);
  struct ReadAndWrite {
    double read_bytes_per_s = 0;   ///< a sequential read's rate while a write runs
    double write_bytes_per_s = 0;  ///< the write's rate meanwhile
  };
  /// A sequential read beside a write of `write_bytes`.
  ReadAndWrite read_beside_write(std::uint64_t write_bytes);
  /// Closes the two read files (the written one stays until destruction).
  void close_read_files();
  /// Non-empty when O_DIRECT was refused (page cache in the timings).
  const std::string& note() const { return note_; }

 private:
  std::string scratch_dir_;  // DiskFile regions of the process's scratch disk there
  std::unique_ptr<DiskFile> file_, streamed_, written_;
  std::string note_;
  std::uint64_t rng_ = 0x9E3779B97F4A7C15ull;
};

}  // namespace opsim::calibration
