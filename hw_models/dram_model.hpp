// Host memory (DRAM): the first word of a random access costs ~100 ns; after it, memory
// streams at channels x per-channel bandwidth (the ~0.2 ns per following word of a burst is
// that rate: 8 bytes / 25.6 GB/s x 2 channels ~ 0.16 ns, so it is not a parameter of its own).
#pragma once

namespace opsim {

struct DramModel {
  int channels = 2;                         ///< memory channels populated
  double bytes_per_s_per_channel = 25.6e9;  ///< DDR4-3200: 25.6 GB/s per channel
  double first_access_s = 100e-9;           ///< latency to the first word of a random access
  double capacity_bytes = 64e9;             ///< installed memory

  double bytes_per_s() const { return channels * bytes_per_s_per_channel; }
};

}  // namespace opsim
