#include "engine/exec/cpu_kernels.hpp"

#include <cblas.h>

#include <chrono>

#include "engine/exec/random_values.hpp"

namespace opsim::cpu {

void sgemm(const float* a, const float* b, float* c, std::size_t m, std::size_t n, std::size_t k,
           bool transpose_a, bool transpose_b) {
  const int lda = static_cast<int>(transpose_a ? m : k);
  const int ldb = static_cast<int>(transpose_b ? k : n);
  cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
              transpose_b ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), 1.0f, a, lda, b, ldb, 0.0f, c, static_cast<int>(n));
}

void set_blas_threads(int threads) {
  openblas_set_num_threads(threads < 1 ? 1 : threads);
}
int blas_threads() {
  return openblas_get_num_threads();
}

void add(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

void mul(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
}

void fill_random(float* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = 0; i < n; ++i) out[i] = random_value(seed, i);
}

void fill(float* out, std::size_t n, float value) {
  for (std::size_t i = 0; i < n; ++i) out[i] = value;
}

float sum(const float* a, std::size_t n) {
  double total = 0;
  constexpr std::size_t kBlock = 4096;
  for (std::size_t i = 0; i < n; i += kBlock) {
    double block = 0;
    const std::size_t end = i + kBlock < n ? i + kBlock : n;
    for (std::size_t j = i; j < end; ++j) block += a[j];
    total += block;
  }
  return static_cast<float>(total);
}

void busy_wait(double seconds) {
  if (seconds <= 0) return;
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::nanoseconds(static_cast<std::int64_t>(seconds * 1e9));
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace opsim::cpu
