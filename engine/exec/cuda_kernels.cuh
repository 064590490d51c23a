// Elementwise CUDA kernels of the CUDA backend, launched on a given stream.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace opsim::cuda {

/// out[i] = a[i] + b[i] for i < n, on `stream`.
void add(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream);
/// out[i] = a[i] * b[i] for i < n, on `stream`.
void mul(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream);
/// out[i] = value for i < n, on `stream`.
void fill(float* out, std::size_t n, float value, cudaStream_t stream);

}  // namespace opsim::cuda
