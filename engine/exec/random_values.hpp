// The values a random fill gives, as one function the CPU kernels and the CUDA kernels share
// (the same seed gives the same array on any device): element i of seed s is splitmix64 of
// (s, i) mapped to [-1, 1). Stateless, so every element is computed independently.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define OPSIM_HOST_DEVICE __host__ __device__
#else
#define OPSIM_HOST_DEVICE
#endif

namespace opsim {

OPSIM_HOST_DEVICE inline float random_value(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  // The top 24 bits over 2^23: exact in a float.
  return static_cast<float>(static_cast<double>(z >> 40) / static_cast<double>(1ull << 23)) - 1.0f;
}

}  // namespace opsim
