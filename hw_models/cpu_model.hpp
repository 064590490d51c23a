// A CPU socket: peak flops from cores x clock x SIMD lanes x FMA units x 2 (an FMA is two
// flops), and its DRAM.
#pragma once

#include <cstddef>
#include <vector>

#include "hw_models/dram_model.hpp"

namespace opsim {

/// One thread's rate on a memory-bound pass (an elementwise kernel) over `working_set_bytes`:
/// a set that fits in cache runs faster than DRAM allows. Also one memcpy thread's rate by
/// bytes copied (`CpuModel::copy_stream_rates`).
struct MemoryPassRate {
  double working_set_bytes = 0;
  double bytes_per_s = 0;
};

/// The rate at `bytes` from rates measured at increasing sizes: interpolated in log size
/// between measured points, the end points beyond them; 0 when `rates` is empty.
double rate_at_size(const std::vector<MemoryPassRate>& rates, double bytes);

struct CpuModel {
  int cores = 8;              ///< physical cores
  double clock_hz = 3.0e9;    ///< sustained all-core clock, Hz
  int simd_fp32_lanes = 8;    ///< fp32 lanes per vector register (AVX2: 8, AVX-512: 16)
  int fma_units = 2;          ///< FMA pipes per core
  double efficiency = 0.8;    ///< fraction of peak that GEMM reaches
  double dispatch_s = 10e-6;  ///< host cost to issue one op from a framework (t1)
  int compute_streams = 1;    ///< ops run at once, each on cores / compute_streams cores
  /// Each stream's speed while every compute stream is busy, as a fraction of its speed
  /// alone (0, 1]: all cores at once run at a lower clock (all-core turbo) and share caches
  /// and memory. Between, the streams share compute_streams x this of one stream's speed.
  double all_streams_busy_speed = 1.0;
  /// A compute stream's speed, as a fraction of its speed alone, while the program's host
  /// dispatch (a thread busy-waiting on the clock) runs on another core (0, 1]: 1 where the
  /// busy wait contends for nothing the stream needs, about 1/2 where the host runs the two
  /// vCPUs on one physical core. Streams beside a dispatch share the other cores' speed at this.
  double beside_dispatch_speed = 1.0;
  /// Cores that disk I/O into or out of this CPU's memory takes from its compute streams
  /// while it runs (`opsim calibrate` measures it): on a VM the host's I/O thread shares the
  /// vCPUs' time (here ~0.7 of 2 cores); 0 on bare metal, where a DMA engine moves the data.
  double disk_io_cores = 0;
  /// A sequential disk read into (write out of) this CPU's memory runs at these fractions of
  /// its rate (0, 1] while one compute stream, or every one, is busy (`opsim calibrate`
  /// measures both beside one-thread GEMMs; linear between): on a VM the host's I/O shares
  /// the vCPUs' time (here reads x0.83 beside one GEMM and x0.65 beside two, writes x0.8).
  double disk_read_speed_one_busy = 1.0;
  double disk_read_speed_all_busy = 1.0;
  double disk_write_speed_one_busy = 1.0;
  double disk_write_speed_all_busy = 1.0;
  /// The fraction for a read (or write) while `busy_streams` compute ops run.
  double disk_speed_beside_compute(bool write, int busy_streams) const {
    if (busy_streams <= 0) return 1.0;
    const double one = write ? disk_write_speed_one_busy : disk_read_speed_one_busy;
    const double all = write ? disk_write_speed_all_busy : disk_read_speed_all_busy;
    if (busy_streams >= compute_streams || compute_streams <= 1) return all;
    return one + (all - one) * (busy_streams - 1) / (compute_streams - 1);
  }
  int copy_streams = 4;  ///< concurrent host memcpy workers
  /// Most bytes per second one memcpy thread copies (one thread does not saturate DRAM);
  /// 0: no limit beyond the DRAM's.
  double copy_stream_bytes_per_s = 0;
  /// One memcpy thread's rate by bytes copied, increasing sizes (`opsim calibrate`): not
  /// monotonic, since glibc's memcpy switches to non-temporal stores above a size (99 MiB on
  /// a host with 260 MiB of L3: 7.3 GB/s at 96 MiB, 11.7 at 128). Empty: copy_stream_bytes_per_s.
  std::vector<MemoryPassRate> copy_stream_rates;
  /// Every copy stream's memcpy at once, their bytes copied per second together, by bytes
  /// each copies, increasing sizes (`opsim calibrate`: two memcpy threads side by side). The
  /// DRAM's bandwidth holds for the largest size; copies of another size take it as their
  /// size's aggregate allows (on one VM two 96 MiB copies together ran 1.07x as fast as two
  /// of 128 MiB). Empty: copies of every size take the DRAM alike.
  std::vector<MemoryPassRate> copies_together_rates;
  DramModel dram;
  /// Measured memory-bound rates by working set, increasing sizes (`opsim calibrate`).
  /// Empty: every memory-bound pass runs at DRAM bandwidth x efficiency.
  std::vector<MemoryPassRate> memory_pass_rates;

  /// Per core (the cores the process may run on, in order), a memory-bound pass's, a memcpy
  /// thread's and a one-thread GEMM's rate there as a multiple of the rates above, which hold
  /// for the mean core (`opsim calibrate` measures each on every core in turn). On a VM each
  /// vCPU sits on its own host core: one copied at 0.7 of the mean and the other at 1.3,
  /// swapping within minutes. Ops on a stream pinned to a core run at its factors
  /// (pinned_core); floating streams, and cores past a list's end, at 1.
  std::vector<double> core_pass_speeds;
  std::vector<double> core_copy_speeds;
  std::vector<double> core_gemm_speeds;
  /// The factor of `core` in `speeds` (one of the lists above); 1 for -1.
  static double core_speed(const std::vector<double>& speeds, int core) {
    if (core < 0 || static_cast<std::size_t>(core) >= speeds.size()) return 1.0;
    return speeds[static_cast<std::size_t>(core)];
  }

  double peak_flops_per_s() const {
    return static_cast<double>(cores) * clock_hz * simd_fp32_lanes * fma_units * 2.0;
  }
  /// Bytes per second of a memory-bound pass touching `bytes`: interpolated in log size
  /// between measured points, the end points beyond them; DRAM bandwidth x efficiency when
  /// none were measured.
  double memory_pass_bytes_per_s(double bytes) const;
  /// Seconds a compute op of `flops` and `bytes` holds one of compute_streams streams on a
  /// core whose pass and GEMM speeds are these factors: the roofline at `efficiency`, where a
  /// memory-bound pass (bytes > 0) first pays one DRAM first access, the cold access before
  /// it streams at its working set's rate (what the calibration's pointer chase measures).
  double op_time_s(double flops, double bytes, double pass_speed, double gemm_speed) const;
  /// Most bytes per second one memcpy thread copies when it copies `bytes`; 0: no limit.
  double copy_stream_bytes_per_s_for(double bytes) const;
  /// The DRAM bandwidth a copy of `bytes` takes per byte copied, relative to one of the
  /// largest size in copies_together_rates (that size's aggregate / this size's; 1 when empty).
  double copy_dram_use_per_byte(double bytes) const;
};

}  // namespace opsim
