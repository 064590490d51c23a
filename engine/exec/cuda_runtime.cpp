// gpu_runtime() with CUDA: pooled device and pinned memory, cuBLAS and the kernels of
// cuda_kernels.cu, and GpuStreams over CUDA streams with event timing. A completion thread
// polls each op's end event (cudaEventQuery) while ops are in flight, as StarPU's CUDA
// workers do, and reports it: the next op of a dependent chain is enqueued a few
// microseconds after its predecessor ended. Woken by cudaLaunchHostFunc instead, the
// reports came 150-300 us late on an H100 host (the driver's callback thread, then ours,
// each woken from sleep), more the longer the op ran. Polling costs the thread a core
// while the GPU works; RealBackend leaves it one.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/exec/cuda_kernels.cuh"
#include "engine/exec/gpu_runtime.hpp"

namespace opsim {

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS status " +
                             std::to_string(static_cast<int>(status)));
}

cudaStream_t as_stream(void* stream) {
  return static_cast<cudaStream_t>(stream);
}

void pause_cpu() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Freed blocks by exact size, per memory (a GPU, or pinned host memory): cudaFree and
// cudaFreeHost synchronize the whole device, which would serialize an asynchronous run. A
// block comes back only when its last owner (a kernel closure, kept until its op completed,
// or an array handle) lets go, so no queued work can still use it.
class BlockPool {
 public:
  using Allocate = float* (*)(std::size_t bytes);
  explicit BlockPool(Allocate allocate) : allocate_(allocate) {}

  std::shared_ptr<float> get(std::size_t floats) {
    // Rounded up to 256 floats (1 KiB), so that arrays of nearly the same size share blocks.
    const std::size_t size = std::max<std::size_t>(1, (floats + 255) / 256) * 256;
    float* block = nullptr;
    {
      std::lock_guard lock(mutex_);
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        block = it->second.back();
        it->second.pop_back();
      }
    }
    if (block == nullptr) block = allocate_(size * sizeof(float));
    return std::shared_ptr<float>(block, [this, size](float* p) {
      std::lock_guard lock(mutex_);
      free_[size].push_back(p);
    });
  }

 private:
  Allocate allocate_;
  std::mutex mutex_;
  std::map<std::size_t, std::vector<float*>> free_;
};

// Blocks stay with the process: the runtime lives until exit, as the CUDA context does.
float* device_block(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc");
  return static_cast<float*>(p);
}

float* pinned_block(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMallocHost(&p, bytes), "cudaMallocHost");
  return static_cast<float*>(p);
}

class CudaRuntime;

// Scratch memory that only grows, for ops that come with no kernel (workload files): their
// values do not matter, only the work's size. It lives as long as the runtime, so that a
// warm-up run allocates it and timed runs reuse it: allocating and pinning 256 MB inside an
// op took ~100 ms on an H100 host, 20x the copy itself.
struct Scratch {
  float* ptr = nullptr;
  std::size_t floats = 0;
  float* get(std::size_t n, float* (*allocate)(std::size_t)) {
    if (n <= floats) return ptr;
    // Frees synchronize the device: scratch grows a few times per run at most.
    if (ptr != nullptr) allocate == &pinned_block ? cudaFreeHost(ptr) : cudaFree(ptr);
    ptr = allocate(std::max<std::size_t>(n, 1) * sizeof(float));
    floats = n;
    return ptr;
  }
};

class CudaStreams final : public GpuStreams {
 public:
  CudaStreams(CudaRuntime& runtime, GpuPlacement placement, GpuCompletion done);
  ~CudaStreams() override;
  void enqueue(OpId id, const Op& op, StreamIndex stream, StreamKernel kernel) override;

 private:
  struct Gpu {
    int ordinal = -1;
    cudaEvent_t base = nullptr;  // event times are measured from it
    std::int64_t base_steady_ns = 0;
    std::vector<cudaEvent_t> spare_events;  // completion thread returns them; under mutex_
  };
  struct Pending {
    OpId id;
    StreamIndex stream;
    Gpu* gpu;
    cudaEvent_t start, end;
    StreamKernel kernel;  // owns the op's buffers until it completed
  };

  void completion_loop();
  // Reports an op whose end event was queried (`status`: success, or the GPU's error).
  void report(std::unique_ptr<Pending> p, cudaError_t status);
  cudaEvent_t take_event(Gpu& gpu);
  // The CUDA stream of scheduler stream `s`, created on the current device, which the caller
  // set to the stream's GPU.
  cudaStream_t cuda_stream(StreamIndex s);
  void enqueue_scratch(const Op& op, Gpu& gpu, cudaStream_t s);

  CudaRuntime& runtime_;
  GpuPlacement placement_;
  GpuCompletion done_;
  std::vector<std::unique_ptr<Gpu>> gpus_;  // by CUDA device
  std::vector<cudaStream_t> cuda_streams_;

  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Pending*> enqueued_;  // mutex_: not yet taken by the completion thread
  std::uint64_t in_flight_ = 0;     // mutex_: enqueued, not yet reported
  bool stop_ = false;               // mutex_
  std::thread thread_;
};

class CudaRuntime final : public GpuRuntime {
 public:
  explicit CudaRuntime(int devices) : pinned_(&pinned_block) {
    for (int d = 0; d < devices; ++d) {
      check(cudaSetDevice(d), "cudaSetDevice");
      Device& dev = *devices_.emplace_back(std::make_unique<Device>());
      cudaDeviceProp prop{};
      check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
      dev.name = prop.name;
      dev.memory_bytes = static_cast<double>(prop.totalGlobalMem);
      check(cublasCreate(&dev.blas), "cublasCreate");
      // Direct copies between GPUs where the hardware allows (NVLink, one PCIe switch).
      for (int peer = 0; peer < devices; ++peer) {
        int can = 0;
        if (peer != d && cudaDeviceCanAccessPeer(&can, d, peer) == cudaSuccess && can != 0)
          cudaDeviceEnablePeerAccess(peer, 0);
      }
    }
    cudaGetLastError();  // an "already enabled" peer error is not a failure
  }

  int device_count() const override { return static_cast<int>(devices_.size()); }
  std::string device_name(int gpu) const override { return devices_.at(gpu)->name; }
  double memory_bytes(int gpu) const override { return devices_.at(gpu)->memory_bytes; }

  std::shared_ptr<float> allocate_device(int gpu, std::size_t floats) override {
    check(cudaSetDevice(gpu), "cudaSetDevice");
    return devices_.at(gpu)->pool.get(floats);
  }
  std::shared_ptr<float> allocate_pinned_host(std::size_t floats) override {
    return pinned_.get(floats);
  }
  void copy_now(float* dst, const float* src, std::size_t floats) override {
    check(cudaMemcpy(dst, src, floats * sizeof(float), cudaMemcpyDefault), "cudaMemcpy");
  }

  void fill_random(float* out, std::size_t n, std::uint64_t seed, void* stream) override {
    cuda::fill_random(out, n, seed, as_stream(stream));
    check(cudaGetLastError(), "fill_random kernel launch");
  }
  void fill(float* out, std::size_t n, float value, void* stream) override {
    cuda::fill(out, n, value, as_stream(stream));
    check(cudaGetLastError(), "fill kernel launch");
  }
  void sgemm(int gpu, const float* a, const float* b, float* c, std::size_t m, std::size_t n,
             std::size_t k, bool transpose_a, bool transpose_b, void* stream) override {
    // cuBLAS is column-major: a row-major matrix is its transpose there, so row-major
    // C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
    Device& dev = *devices_.at(gpu);
    const float one = 1.0f, zero = 0.0f;
    const int lda = static_cast<int>(transpose_a ? m : k);
    const int ldb = static_cast<int>(transpose_b ? k : n);
    std::lock_guard lock(dev.blas_mutex);  // one handle per GPU, shared by every stream
    check(cublasSetStream(dev.blas, as_stream(stream)), "cublasSetStream");
    check(cublasSgemm(dev.blas, transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                      transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
                      static_cast<int>(m), static_cast<int>(k), &one, b, ldb, a, lda, &zero, c,
                      static_cast<int>(n)),
          "cublasSgemm");
  }
  void add(const float* a, const float* b, float* out, std::size_t n, void* stream) override {
    cuda::add(a, b, out, n, as_stream(stream));
    check(cudaGetLastError(), "add kernel launch");
  }
  void mul(const float* a, const float* b, float* out, std::size_t n, void* stream) override {
    cuda::mul(a, b, out, n, as_stream(stream));
    check(cudaGetLastError(), "mul kernel launch");
  }
  void axpy(float alpha, const float* x, float* y, std::size_t n, void* stream) override {
    cuda::axpy(alpha, x, y, n, as_stream(stream));
    check(cudaGetLastError(), "axpy kernel launch");
  }
  void sum(const float* x, std::size_t n, float* out, void* stream) override {
    cuda::sum(x, n, out, as_stream(stream));
    check(cudaGetLastError(), "sum kernel launch");
  }
  void copy(float* dst, const float* src, std::size_t floats, void* stream) override {
    check(cudaMemcpyAsync(dst, src, floats * sizeof(float), cudaMemcpyDefault, as_stream(stream)),
          "cudaMemcpyAsync");
  }

  /// Scratch slot `slot` (0..2) of CUDA device `gpu`, or pinned host scratch for gpu < 0, at
  /// least `floats` long. Leaves `gpu` the current device.
  float* scratch(int gpu, int slot, std::size_t floats) {
    std::lock_guard lock(scratch_mutex_);
    if (gpu < 0) return pinned_scratch_.get(floats, &pinned_block);
    check(cudaSetDevice(gpu), "cudaSetDevice");
    return devices_.at(static_cast<std::size_t>(gpu))->scratch.at(slot).get(floats, &device_block);
  }

  std::unique_ptr<GpuStreams> open_streams(GpuPlacement placement, GpuCompletion done) override {
    for (int gpu : placement.device_gpu)
      if (gpu >= device_count())
        throw NoGpu("the machine needs CUDA device " + std::to_string(gpu) + "; this host has " +
                    std::to_string(device_count()));
    return std::make_unique<CudaStreams>(*this, std::move(placement), std::move(done));
  }

 private:
  struct Device {
    std::string name;
    double memory_bytes = 0;
    cublasHandle_t blas = nullptr;
    std::mutex blas_mutex;
    BlockPool pool{&device_block};
    std::array<Scratch, 3> scratch;  // scratch_mutex_
  };
  std::vector<std::unique_ptr<Device>> devices_;
  BlockPool pinned_;
  std::mutex scratch_mutex_;
  Scratch pinned_scratch_;  // scratch_mutex_
};

CudaStreams::CudaStreams(CudaRuntime& runtime, GpuPlacement placement, GpuCompletion done)
    : runtime_(runtime), placement_(std::move(placement)), done_(std::move(done)) {
  cuda_streams_.assign(placement_.stream_gpu.size(), nullptr);
  int used = 0;  // CUDA devices 0 .. used-1 serve the machine's GPUs
  for (int gpu : placement_.device_gpu) used = std::max(used, gpu + 1);
  for (int i = 0; i < used; ++i) {
    Gpu& g = *gpus_.emplace_back(std::make_unique<Gpu>());
    g.ordinal = i;
    check(cudaSetDevice(g.ordinal), "cudaSetDevice");
    check(cudaEventCreate(&g.base), "cudaEventCreate");
    check(cudaEventRecord(g.base, nullptr), "cudaEventRecord");
    check(cudaEventSynchronize(g.base), "cudaEventSynchronize");
    // The base event completed a few microseconds before this: event times run that early.
    g.base_steady_ns = steady_now_ns();
  }
  thread_ = std::thread([this] { completion_loop(); });
}

CudaStreams::~CudaStreams() {
  {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return in_flight_ == 0; });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  for (cudaStream_t s : cuda_streams_)
    if (s != nullptr) cudaStreamDestroy(s);
  for (const auto& g : gpus_) {
    cudaSetDevice(g->ordinal);
    cudaEventDestroy(g->base);
    for (cudaEvent_t e : g->spare_events) cudaEventDestroy(e);
  }
}

cudaEvent_t CudaStreams::take_event(Gpu& gpu) {
  {
    std::lock_guard lock(mutex_);
    if (!gpu.spare_events.empty()) {
      cudaEvent_t e = gpu.spare_events.back();
      gpu.spare_events.pop_back();
      return e;
    }
  }
  cudaEvent_t e = nullptr;
  check(cudaEventCreate(&e), "cudaEventCreate");
  return e;
}

cudaStream_t CudaStreams::cuda_stream(StreamIndex s) {
  // Non-blocking: independent of the legacy default stream, as frameworks' streams are.
  if (cuda_streams_.at(s) == nullptr)
    check(cudaStreamCreateWithFlags(&cuda_streams_[s], cudaStreamNonBlocking), "cudaStreamCreate");
  return cuda_streams_[s];
}

void CudaStreams::enqueue(OpId id, const Op& op, StreamIndex stream, StreamKernel kernel) {
  const int gpu = stream < placement_.stream_gpu.size() ? placement_.stream_gpu[stream] : -1;
  if (gpu < 0 || gpu >= static_cast<int>(gpus_.size()))
    throw std::invalid_argument("GPU streams: stream " + std::to_string(stream) +
                                " is not a GPU's");
  Gpu& g = *gpus_[static_cast<std::size_t>(gpu)];
  check(cudaSetDevice(g.ordinal), "cudaSetDevice");
  cudaStream_t s = cuda_stream(stream);
  auto pending =
      std::make_unique<Pending>(Pending{id, stream, &g, take_event(g), take_event(g), {}});
  check(cudaEventRecord(pending->start, s), "cudaEventRecord");
  if (kernel)
    kernel(s);
  else
    enqueue_scratch(op, g, s);
  check(cudaSetDevice(g.ordinal), "cudaSetDevice");  // a kernel may have switched devices
  check(cudaEventRecord(pending->end, s), "cudaEventRecord");
  pending->kernel = std::move(kernel);
  {
    std::lock_guard lock(mutex_);
    ++in_flight_;
    enqueued_.push_back(pending.release());  // the completion thread owns it now
  }
  cv_.notify_all();  // the destructor may wait on cv_ too
}

void CudaStreams::enqueue_scratch(const Op& op, Gpu& g, cudaStream_t s) {
  switch (op.kind) {
    case OpKind::kCompute: {
      if (op.kernel == KernelClass::kNoop) return;
      if (op.kernel == KernelClass::kGemm && op.flops > 0) {
        const auto n = static_cast<std::size_t>(std::max(1.0, std::round(std::cbrt(op.flops / 2))));
        float* a = runtime_.scratch(g.ordinal, 0, n * n);
        float* b = runtime_.scratch(g.ordinal, 1, n * n);
        float* c = runtime_.scratch(g.ordinal, 2, n * n);
        runtime_.sgemm(g.ordinal, a, b, c, n, n, n, false, false, s);
        return;
      }
      // A pass over `bytes`: read two thirds, write one.
      const auto n = static_cast<std::size_t>(op.bytes / sizeof(float) / 3);
      float* a = runtime_.scratch(g.ordinal, 0, n);
      runtime_.add(a, a, runtime_.scratch(g.ordinal, 1, n), n, s);
      return;
    }
    case OpKind::kCopy: {
      const auto n = static_cast<std::size_t>(op.bytes / sizeof(float));
      auto memory_of = [&](DeviceId d, int slot) -> float* {
        const int gpu = d < placement_.device_gpu.size() ? placement_.device_gpu[d] : -1;
        return runtime_.scratch(gpu < 0 ? -1 : gpus_.at(static_cast<std::size_t>(gpu))->ordinal,
                                slot, n);
      };
      float* from = memory_of(op.device, 0);
      float* to = memory_of(op.peer, 2);
      check(cudaSetDevice(g.ordinal), "cudaSetDevice");
      runtime_.copy(to, from, n, s);
      return;
    }
    default:
      throw std::invalid_argument("GPU streams run compute and copy ops only");
  }
}

void CudaStreams::completion_loop() {
  // Ops in enqueue order; an op is reported only after those before it on its stream, so a
  // stream's completions reach the scheduler in order even when one poll finds several done.
  std::vector<std::unique_ptr<Pending>> polled;
  std::vector<StreamIndex> behind;  // streams with an op still running, this pass
  std::unique_lock lock(mutex_);
  for (;;) {
    if (polled.empty()) cv_.wait(lock, [&] { return stop_ || !enqueued_.empty(); });
    if (polled.empty() && enqueued_.empty()) return;  // stop_, and nothing left
    for (Pending* p : enqueued_) polled.emplace_back(p);
    enqueued_.clear();
    lock.unlock();
    bool reported = false;
    behind.clear();
    for (auto& p : polled) {
      if (std::find(behind.begin(), behind.end(), p->stream) != behind.end()) continue;
      const cudaError_t status = cudaEventQuery(p->end);
      if (status == cudaErrorNotReady) {
        behind.push_back(p->stream);
        continue;
      }
      report(std::move(p), status);  // may enqueue successors (onto enqueued_)
      reported = true;
    }
    std::erase(polled, nullptr);
    if (!reported)  // a short pause between polls, kind to a hyperthread sibling
      for (int i = 0; i < 32; ++i) pause_cpu();
    lock.lock();
  }
}

void CudaStreams::report(std::unique_ptr<Pending> p, cudaError_t status) {
  std::exception_ptr error;
  float start_ms = 0, end_ms = 0;
  try {
    check(status, "op on GPU");
    check(cudaEventElapsedTime(&start_ms, p->gpu->base, p->start), "op on GPU");
    check(cudaEventElapsedTime(&end_ms, p->gpu->base, p->end), "op on GPU");
  } catch (...) {
    error = std::current_exception();
  }
  p->kernel = nullptr;  // its buffers go back to the pools before the op counts as done
  const std::int64_t base = p->gpu->base_steady_ns;
  done_(p->id, base + std::llround(static_cast<double>(start_ms) * 1e6),
        base + std::llround(static_cast<double>(end_ms) * 1e6), error);
  std::lock_guard lock(mutex_);
  p->gpu->spare_events.push_back(p->start);
  p->gpu->spare_events.push_back(p->end);
  if (--in_flight_ == 0) cv_.notify_all();
}

}  // namespace

}  // namespace opsim

opsim::GpuRuntime* opsim_open_cuda_runtime(std::string* why) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    *why = std::string("no usable GPU: cudaGetDeviceCount failed: ") + cudaGetErrorString(err);
    return nullptr;
  }
  if (n == 0) {
    *why = "no usable GPU: the CUDA runtime reports 0 devices";
    return nullptr;
  }
  try {
    return new opsim::CudaRuntime(n);
  } catch (const std::exception& e) {
    *why = std::string("no usable GPU: ") + e.what();
    return nullptr;
  }
}
