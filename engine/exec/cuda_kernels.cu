#include "engine/exec/cuda_kernels.cuh"
#include "engine/exec/random_values.hpp"

namespace opsim::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 ? (b == 0 ? 1 : b) : 65535);
}

// Grid-stride loops: any n with a bounded grid.
__device__ std::size_t first_index() {
  return blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ std::size_t grid_stride() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

__global__ void add_kernel(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = first_index(); i < n; i += grid_stride()) out[i] = a[i] + b[i];
}

__global__ void mul_kernel(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = first_index(); i < n; i += grid_stride()) out[i] = a[i] * b[i];
}

__global__ void axpy_kernel(float alpha, const float* x, float* y, std::size_t n) {
  for (std::size_t i = first_index(); i < n; i += grid_stride()) y[i] += alpha * x[i];
}

__global__ void fill_kernel(float* out, std::size_t n, float value) {
  for (std::size_t i = first_index(); i < n; i += grid_stride()) out[i] = value;
}

// The function cpu::fill_random uses, so that a seed gives the same array anywhere.
__global__ void fill_random_kernel(float* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = first_index(); i < n; i += grid_stride()) out[i] = random_value(seed, i);
}

__global__ void sum_kernel(const float* x, std::size_t n, float* out) {
  __shared__ float partial[kThreads];
  float s = 0.0f;
  for (std::size_t i = first_index(); i < n; i += grid_stride()) s += x[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

}  // namespace

void add(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream) {
  add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, out, n);
}

void mul(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream) {
  mul_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, out, n);
}

void axpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  axpy_kernel<<<blocks_for(n), kThreads, 0, stream>>>(alpha, x, y, n);
}

void fill(float* out, std::size_t n, float value, cudaStream_t stream) {
  fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out, n, value);
}

void fill_random(float* out, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  fill_random_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out, n, seed);
}

void sum(const float* x, std::size_t n, float* out, cudaStream_t stream) {
  cudaMemsetAsync(out, 0, sizeof(float), stream);
  // Few blocks: each adds its partial sum atomically, so fewer blocks, fewer atomics.
  const unsigned blocks = blocks_for(n) < 1024 ? blocks_for(n) : 1024;
  sum_kernel<<<blocks, kThreads, 0, stream>>>(x, n, out);
}

}  // namespace opsim::cuda
