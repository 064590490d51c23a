// Real CPU kernels the real backend and the frontend run: OpenBLAS GEMM and plain loops for
// elementwise ops, fills and reductions. Row-major float32 throughout.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opsim::cpu {

/// c[m x n] = op(a)[m x k] * op(b)[k x n] through OpenBLAS cblas_sgemm, where op transposes
/// when asked: a is stored k x m when transpose_a, b is stored n x k when transpose_b.
void sgemm(const float* a, const float* b, float* c, std::size_t m, std::size_t n, std::size_t k,
           bool transpose_a = false, bool transpose_b = false);
/// Sets the threads each OpenBLAS call may use. OpenBLAS 0.3.21 (Debian 12) has only the
/// process-wide openblas_set_num_threads (the per-call openblas_set_num_threads_local came
/// in 0.3.27), so the backend sets it once per run: cores / concurrent compute streams.
void set_blas_threads(int threads);
int blas_threads();
void add(const float* a, const float* b, float* out, std::size_t n);
void mul(const float* a, const float* b, float* out, std::size_t n);
/// Uniform values in [-1, 1) from a counter-based hash of (seed, index): the same seed gives
/// the same array on any backend and thread count.
void fill_random(float* out, std::size_t n, std::uint64_t seed);
void fill(float* out, std::size_t n, float value);
/// Sum in double precision (pairwise blocks), returned as float.
float sum(const float* a, std::size_t n);
/// Spins (keeps a core busy) for `seconds`: the real cost of a host dispatch.
void busy_wait(double seconds);

}  // namespace opsim::cpu
