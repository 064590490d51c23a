// Elementwise and reduction CUDA kernels of the GPU runtime, launched on a given stream.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace opsim::cuda {

/// out[i] = a[i] + b[i] for i < n, on `stream`.
void add(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream);
/// out[i] = a[i] * b[i] for i < n, on `stream`.
void mul(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream);
/// y[i] += alpha * x[i] for i < n, on `stream`.
void axpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream);
/// out[i] = value for i < n, on `stream`.
void fill(float* out, std::size_t n, float value, cudaStream_t stream);
/// out[i] = the value cpu::fill_random gives element i for `seed` (splitmix64 of (seed, i)).
void fill_random(float* out, std::size_t n, std::uint64_t seed, cudaStream_t stream);
/// out[0] = sum of x[0..n), on `stream` (zeroes out[0] first; block sums added atomically).
void sum(const float* x, std::size_t n, float* out, cudaStream_t stream);

}  // namespace opsim::cuda
