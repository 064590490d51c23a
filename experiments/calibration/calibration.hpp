// Measures this machine with the real executor's own code paths and turns the numbers into
// a machine profile ("calibrated-<hostname>": cpu0 with its DRAM, disk0) that the simulator
// reads like any topology file.
//
//   CalibrationOptions options;          // options.quick: ~10 s, smaller sizes, 3 repeats
//   CalibrationReport report = calibrate(options);
//   save_topology_file(report.machine, "profile.yaml");
//
// What is measured (each `repeats` times; the median is used, the spread reported):
// - GEMM: cpu::sgemm (OpenBLAS, as RealBackend runs it) for square sizes at 1 thread and at
//   all hardware threads, in flop/s;
// - memcpy bandwidth with one stream and with two concurrent streams, in bytes/s copied, and
//   one thread's elementwise pass (cpu::add, bytes touched per second);
// - DRAM first-access latency by pointer chasing over a buffer larger than the caches;
// - disk: sequential write and read and random 4 KiB reads and writes through DiskFile
//   (O_DIRECT) on a scratch file in the temp directory, and what traffic does to traffic:
//   random reads beside a sequential read (both sides' rates), a sequential read and write
//   together (both rates);
// - host dispatch cost per op (t1) through the frontend (Context) issuing tiny ops;
// - where a GPU is usable, GPU 0 and its copies (gpu_calibration.hpp); the profile then has
//   the host's GPUs behind a PCIe switch. CalibrationReport::gpu_note says what was measured,
//   or why nothing was.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/op_graph.hpp"
#include "experiments/calibration/accuracy.hpp"
#include "experiments/calibration/gpu_calibration.hpp"
#include "experiments/calibration/measurement_key.hpp"
#include "hw_models/machine.hpp"

namespace opsim::calibration {

struct CalibrationOptions {
  bool quick = false;                        ///< smaller sizes and 3 repeats: about 10 s
  int repeats = 0;                           ///< 0: 5 (3 with quick)
  Statistic statistic = Statistic::kMedian;  ///< how samples become the profile's value
  std::string scratch_dir;  ///< disk scratch files; empty: the system temp directory
  /// Called after each measured parameter (done, total) for a progress bar.
  std::function<void(std::size_t, std::size_t)> on_progress;
  /// Measure only the groups named here (measurement-name prefixes: "gemm", "elementwise",
  /// "memcpy", "dram", "disk", "host dispatch", "gpu"), taking every other parameter from `base`;
  /// empty: everything. `validate --interleave` measures what a workload uses between its runs.
  std::vector<std::string> only;
  const Machine* base = nullptr;  ///< required with `only`
};

/// One measured quantity: every sample, the median used, and whether it was noisy.
struct Measurement {
  MeasurementKey key;
  std::string name;  ///< measurement_name(key): "gemm 512 x1 thread", "memcpy 1 stream", ...
  std::string unit;  ///< measurement_unit(key.id): "flop/s", "bytes/s", "s"
  std::vector<double> samples;
  double value = 0;   ///< the samples reduced by CalibrationOptions::statistic
  double spread = 0;  ///< (max - min) / median
  bool noisy() const;
};

struct CalibrationReport {
  std::vector<Measurement> measurements;
  Machine machine;        ///< the profile: cpu0 (with DRAM) and disk0, sealed
  std::string gpu_note;   ///< which GPU was measured, or why none was
  std::string disk_note;  ///< non-empty when O_DIRECT was refused (page cache in the timings)
  double elapsed_s = 0;
  /// The measurement of `key`; nullptr when it was not measured.
  const Measurement* find(const MeasurementKey& key) const;
  /// The measurement of `key`; throws std::out_of_range when absent.
  const Measurement& get(const MeasurementKey& key) const;
};

/// A calibration taken a sample at a time, so that its samples can be interleaved with other
/// work: `opsim validate --interleave` puts a workload's real runs between passes over the
/// parameters it uses, and simulates each round on the samples taken beside it.
///
///   Calibrator c(options);            // options.only / base: the parameters to measure
///   c.take_pass(); run(); c.take_pass();
///   Machine beside = c.report(0, 2).machine;   // samples 0 and 1 of each parameter
class Calibrator {
 public:
  /// Throws std::invalid_argument when options.only is set without options.base.
  explicit Calibrator(const CalibrationOptions& options);
  ~Calibrator();
  Calibrator(const Calibrator&) = delete;
  Calibrator& operator=(const Calibrator&) = delete;

  std::size_t parameter_count() const;
  /// What each parameter measures, in the order sampled.
  std::vector<MeasurementKey> parameters() const;
  int repeats() const;  ///< samples per parameter the options ask for (5, 3 with quick)
  /// `count` samples of one parameter, back to back.
  void sample(std::size_t parameter, int count);
  /// One sample of every parameter (on_progress after each); returns the sample index taken.
  std::size_t take_pass();
  /// The measurements and profile from each parameter's samples [first, end) (all by
  /// default), reduced by options.statistic.
  CalibrationReport report(std::size_t first_sample = 0,
                           std::size_t end_sample = static_cast<std::size_t>(-1)) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Runs every measurement and builds the profile. Throws std::runtime_error when the
/// scratch directory cannot be used.
CalibrationReport calibrate(const CalibrationOptions& options);

/// What the profile is built from (separated from calibrate() for tests).
struct ProfileInputs {
  int hardware_threads = 1;
  /// Ops that really run side by side on the CPU: the 1-thread and all-thread GEMM rates'
  /// ratio, rounded, from 1 to hardware_threads (a loaded machine gives fewer than its cores).
  int compute_streams = 1;
  double gemm_flops_per_s_per_stream = 0;  ///< what one op reaches alone on its stream
  /// Each stream's speed while all are busy, a fraction of gemm_flops_per_s_per_stream.
  double all_streams_busy_speed = 1.0;
  /// A stream's speed while a host dispatch busy-waits on another core (CpuModel's).
  double beside_dispatch_speed = 1.0;
  double elementwise_bytes_per_s = 0;  ///< one thread's elementwise pass (bytes touched)
  /// The same pass by working set, smaller sets (cache) first; the largest is the DRAM one.
  std::vector<MemoryPassRate> memory_pass_rates;
  double memcpy_bytes_per_s = 0;              ///< bytes copied per second, one stream
  double memcpy_two_streams_bytes_per_s = 0;  ///< the same, two streams together (0: unknown)
  /// One stream's memcpy rate by bytes copied, increasing; the largest is memcpy_bytes_per_s's.
  std::vector<MemoryPassRate> copy_stream_rates;
  /// Two streams copying at once, their rate together, by bytes each copies, increasing; the
  /// largest is memcpy_two_streams_bytes_per_s's (CpuModel::copies_together_rates; empty: not
  /// measured).
  std::vector<MemoryPassRate> copies_together_rates;
  double first_access_s = 0;
  double disk_read_bytes_per_s = 0;
  double disk_write_bytes_per_s = 0;
  double disk_access_s = 0;
  double disk_random_read_s = 0;
  double disk_random_write_s = 0;  ///< 0: not measured (taken as the random read)
  /// The same beside a sequential read of another file (0: not measured).
  double disk_random_read_beside_sequential_s = 0;
  /// A sequential read's rate while random reads run beside it (0: not measured).
  double disk_sequential_read_beside_random_bytes_per_s = 0;
  /// Sequential reads and writes running together: each one's rate (0: not measured).
  double disk_sequential_read_beside_write_bytes_per_s = 0;
  double disk_sequential_write_beside_read_bytes_per_s = 0;
  /// Two sequential reads at once: their rate together (0: not measured).
  double disk_sequential_reads_together_bytes_per_s = 0;
  /// Cores a disk transfer takes from compute while it runs (CpuModel::disk_io_cores).
  double disk_io_cores = 0;
  /// A sequential read's (write's) rate beside one busy core and beside every core busy, a
  /// fraction of its rate alone (CpuModel::disk_read_speed_one_busy and the rest).
  double disk_read_speed_one_busy = 1.0;
  double disk_read_speed_all_busy = 1.0;
  double disk_write_speed_one_busy = 1.0;
  double disk_write_speed_all_busy = 1.0;
  double dispatch_s = 0;
  /// Per core, the elementwise passes', memcpy's and one-thread GEMMs' rate there as a
  /// multiple of the mean core's (CpuModel::core_pass_speeds, core_copy_speeds,
  /// core_gemm_speeds; empty: not measured).
  std::vector<double> core_pass_speeds;
  std::vector<double> core_copy_speeds;
  std::vector<double> core_gemm_speeds;
  GpuInputs gpus;  ///< count 0: no GPU in the profile
};
/// cpu0 gets compute_streams streams, a per-stream peak of gemm_flops_per_s_per_stream (the
/// roofline's efficiency folded into an effective clock), DRAM bandwidth 2 x the faster of the
/// one- and two-stream memcpy rates (each memcpy thread capped at the one-stream rate)
/// (a memcpy reads and writes every byte) and efficiency elementwise / DRAM bandwidth, so
/// that memory-bound kernels take bytes / elementwise_bytes_per_s, or the rate measured for
/// their working set when memory_pass_rates has some; disk0 the disk figures.
Machine build_profile(const ProfileInputs& inputs, const std::string& host_name);

/// What one compute stream's GEMM runs at: the executor gives each of `streams` streams
/// hw / streams BLAS threads (RealBackend::prepare), so one thread gets the one-thread rate,
/// all `hw` the all-thread rate, and t threads in between t / hw of it. (Streams of one thread
/// on a host with more cores than streams run at the one-thread rate, not at all / streams.)
double gemm_rate_per_stream(double one_thread_flops_per_s, double all_threads_flops_per_s,
                            int streams, int hw);

/// The inputs build_profile() turns into `profile` (its inverse): what a targeted
/// calibration keeps of a profile. Throws std::invalid_argument without cpu0 and disk0.
ProfileInputs profile_inputs(const Machine& profile);

/// Calibration groups a workload's ops depend on ("gemm", "elementwise", "memcpy", "disk",
/// "host dispatch", and "gpu" for ops on or copies to a GPU of `machine`), for
/// CalibrationOptions::only.
std::vector<std::string> groups_used_by(const OpGraph& graph, const Machine& machine);

/// Measures a rate for `timed_s` seconds after running untimed for `warm_s` (at least one
/// unit of work each); returns units per second.
using CoreMeasure = std::function<double(double timed_s, double warm_s)>;

/// A one-thread rate as an unpinned executor worker meets it: `measure` pinned to each core
/// the calling thread may use, in turn, once per core, timed for min_s / cores after as long
/// untimed (a vCPU that idled runs slow at first); the rate at the mean time per unit over
/// the cores (their harmonic mean). One call per core: a GEMM of 2048 takes ~0.3 s on one
/// core, so a separate warm-up call (two ops of its own) doubled a 16-core host's sweep. The
/// thread's affinity is restored afterwards.
/// `core_rates`, when given, receives the rate on each core, in core order.
double rate_over_cores(double min_s, const CoreMeasure& measure,
                       std::vector<double>* core_rates = nullptr);

/// The host name, made safe for a machine name ("calibrated-<hostname>").
std::string profile_name();

}  // namespace opsim::calibration
