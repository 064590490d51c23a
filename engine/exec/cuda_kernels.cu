#include "engine/exec/cuda_kernels.cuh"

namespace opsim::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 ? (b == 0 ? 1 : b) : 65535);
}

// Grid-stride loops: any n with a bounded grid.
__global__ void add_kernel(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = a[i] + b[i];
}

__global__ void mul_kernel(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = a[i] * b[i];
}

__global__ void fill_kernel(float* out, std::size_t n, float value) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = value;
}

}  // namespace

void add(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream) {
  add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, out, n);
}

void mul(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream) {
  mul_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, out, n);
}

void fill(float* out, std::size_t n, float value, cudaStream_t stream) {
  fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out, n, value);
}

}  // namespace opsim::cuda
