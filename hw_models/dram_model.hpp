// Host memory (DRAM): the first word of a random access costs ~100 ns, every following
// word of a burst ~0.2 ns; streaming bandwidth is channels x per-channel bandwidth.
#pragma once

namespace opsim {

struct DramModel {
  int channels = 2;                           ///< memory channels populated
  double bytes_per_s_per_channel = 25.6e9;    ///< DDR4-3200: 25.6 GB/s per channel
  double first_access_s = 100e-9;             ///< latency to the first word of a random access
  double burst_word_s = 0.2e-9;               ///< each following 64-bit word in a burst
  double capacity_bytes = 64e9;               ///< installed memory

  double bytes_per_s() const { return channels * bytes_per_s_per_channel; }
  /// Time to read `bytes` as `accesses` independent random bursts.
  double access_time_s(double bytes, double accesses) const {
    return accesses * first_access_s + (bytes / 8.0) * burst_word_s;
  }
};

}  // namespace opsim
