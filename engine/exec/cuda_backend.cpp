#include "engine/exec/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <unordered_map>

#include "engine/exec/cuda_kernels.cuh"

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

// Device memory that only grows; shared by the ops of one GPU (scratch: values do not matter).
struct Scratch {
  float* ptr = nullptr;
  std::size_t floats = 0;
  float* get(std::size_t n) {
    if (n <= floats) return ptr;
    if (ptr != nullptr) check(cudaFree(ptr), "cudaFree");  // synchronizes the device
    check(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(float)), "cudaMalloc");
    floats = n;
    return ptr;
  }
};

}  // namespace

struct CudaBackend::Impl {
  struct Gpu {
    int ordinal = -1;
    cublasHandle_t blas = nullptr;
    cudaEvent_t base = nullptr;  // recorded at prepare: event times are relative to it
    TimeNs base_ns = 0;
    Scratch a, b, c;
  };
  struct Pending {
    Impl* impl;
    OpId id;
    DeviceId device;
    cudaEvent_t start;
    cudaEvent_t end;
  };

  const Machine* machine = nullptr;
  const StreamTable* streams = nullptr;
  CompletionSink* sink = nullptr;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  std::unordered_map<DeviceId, Gpu> gpus;
  std::vector<cudaStream_t> cuda_streams;
  std::unordered_map<OpId, CudaKernel> kernels;
  float* pinned = nullptr;
  std::size_t pinned_floats = 0;
  std::uint64_t in_flight = 0;

  std::mutex done_mutex;
  std::vector<Pending*> done;
  std::atomic<std::uint32_t> done_seq{0};
  std::vector<Pending*> batch;

  static void CUDART_CB on_done(void* data) {
    auto* p = static_cast<Pending*>(data);
    Impl* impl = p->impl;
    {
      std::lock_guard lock(impl->done_mutex);
      impl->done.push_back(p);
    }
    impl->done_seq.fetch_add(1, std::memory_order_release);
    impl->done_seq.notify_one();
  }

  TimeNs now() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                t0)
        .count();
  }

  Gpu& gpu(DeviceId d) {
    auto it = gpus.find(d);
    if (it == gpus.end())
      throw std::invalid_argument("CudaBackend: device " + machine->device(d).name +
                                  " is not a GPU");
    check(cudaSetDevice(it->second.ordinal), "cudaSetDevice");
    return it->second;
  }

  cudaStream_t stream(StreamIndex s) {
    if (cuda_streams[s] == nullptr) {
      gpu(streams->info(s).device);
      check(cudaStreamCreateWithFlags(&cuda_streams[s], cudaStreamNonBlocking), "cudaStreamCreate");
    }
    return cuda_streams[s];
  }

  float* host_buffer(std::size_t n) {
    if (n > pinned_floats) {
      if (pinned != nullptr) check(cudaFreeHost(pinned), "cudaFreeHost");
      check(cudaMallocHost(&pinned, n * sizeof(float)), "cudaMallocHost");
      pinned_floats = n;
    }
    return pinned;
  }

  void enqueue_default(const Op& op, DeviceId device, cudaStream_t s) {
    switch (op.kind) {
      case OpKind::kCompute: {
        Gpu& g = gpu(device);
        if (op.kernel == KernelClass::kNoop) return;
        if (op.kernel == KernelClass::kGemm && op.flops > 0) {
          const int n = static_cast<int>(std::max(1.0, std::round(std::cbrt(op.flops / 2.0))));
          const std::size_t nn = static_cast<std::size_t>(n) * n;
          float* a = g.a.get(nn);
          float* b = g.b.get(nn);
          float* c = g.c.get(nn);
          const float one = 1.0f, zero = 0.0f;
          check(cublasSetStream(g.blas, s), "cublasSetStream");
          check(
              cublasSgemm(g.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n),
              "cublasSgemm");
          return;
        }
        const std::size_t n = static_cast<std::size_t>(op.bytes / sizeof(float) / 3);
        float* a = g.a.get(n);
        cuda::add(a, a, g.b.get(n), n, s);
        check(cudaGetLastError(), "elementwise kernel launch");
        return;
      }
      case OpKind::kCopy: {
        const std::size_t n = static_cast<std::size_t>(op.bytes / sizeof(float));
        const bool src_gpu = gpus.count(op.device) != 0, dst_gpu = gpus.count(op.peer) != 0;
        if (src_gpu && dst_gpu) {
          Gpu& dst = gpus.at(op.peer);
          float* to = (gpu(op.peer), dst.c.get(n));
          Gpu& src = gpu(op.device);
          check(
              cudaMemcpyPeerAsync(to, dst.ordinal, src.a.get(n), src.ordinal, n * sizeof(float), s),
              "cudaMemcpyPeerAsync");
        } else if (src_gpu) {
          float* from = gpu(op.device).a.get(n);
          check(cudaMemcpyAsync(host_buffer(n), from, n * sizeof(float), cudaMemcpyDeviceToHost, s),
                "cudaMemcpyAsync");
        } else if (dst_gpu) {
          float* to = gpu(op.peer).c.get(n);
          check(cudaMemcpyAsync(to, host_buffer(n), n * sizeof(float), cudaMemcpyHostToDevice, s),
                "cudaMemcpyAsync");
        } else {
          throw std::invalid_argument("CudaBackend: a copy between two non-GPU devices");
        }
        return;
      }
      default:
        throw std::invalid_argument("CudaBackend runs GPU compute and copy ops only, not " +
                                    std::string(to_string(op.kind)));
    }
  }
};

int CudaBackend::device_count(std::string* why) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    if (why != nullptr)
      *why = std::string("no usable GPU: cudaGetDeviceCount failed: ") + cudaGetErrorString(err);
    return 0;
  }
  if (n == 0 && why != nullptr) *why = "no usable GPU: the CUDA runtime reports 0 devices";
  return n;
}

CudaBackend::CudaBackend() : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (device_count(&why) == 0) throw NoGpu(why);
}

CudaBackend::~CudaBackend() {
  try {
    run_until_idle();
  } catch (...) {
  }
  for (cudaStream_t s : impl_->cuda_streams)
    if (s != nullptr) cudaStreamDestroy(s);
  for (auto& [d, g] : impl_->gpus) {
    cudaSetDevice(g.ordinal);
    if (g.blas != nullptr) cublasDestroy(g.blas);
    if (g.base != nullptr) cudaEventDestroy(g.base);
    for (Scratch* s : {&g.a, &g.b, &g.c})
      if (s->ptr != nullptr) cudaFree(s->ptr);
  }
  if (impl_->pinned != nullptr) cudaFreeHost(impl_->pinned);
}

void CudaBackend::set_kernel(OpId op, CudaKernel kernel) {
  impl_->kernels[op] = std::move(kernel);
}

void CudaBackend::prepare(const Machine& machine, const OpGraph& /*graph*/,
                          const StreamTable& streams, CompletionSink& sink) {
  Impl& m = *impl_;
  m.machine = &machine;
  m.streams = &streams;
  m.sink = &sink;
  m.cuda_streams.assign(streams.size(), nullptr);
  const int available = device_count();
  const auto machine_gpus = machine.gpus();
  if (static_cast<int>(machine_gpus.size()) > available)
    throw NoGpu("machine '" + machine.name() + "' has " + std::to_string(machine_gpus.size()) +
                " GPUs, this host " + std::to_string(available));
  m.t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < machine_gpus.size(); ++i) {
    Impl::Gpu& g = m.gpus[machine_gpus[i]];
    g.ordinal = static_cast<int>(i);
    check(cudaSetDevice(g.ordinal), "cudaSetDevice");
    check(cublasCreate(&g.blas), "cublasCreate");
    check(cudaEventCreate(&g.base), "cudaEventCreate");
    check(cudaEventRecord(g.base, nullptr), "cudaEventRecord");
    check(cudaEventSynchronize(g.base), "cudaEventSynchronize");
    g.base_ns = m.now();
  }
}

void CudaBackend::launch(const OpLaunch& l) {
  Impl& m = *impl_;
  const StreamInfo& info = m.streams->info(l.stream);
  Impl::Gpu& g = m.gpu(info.device);
  cudaStream_t s = m.stream(l.stream);
  auto* p = new Impl::Pending{&m, l.id, info.device, nullptr, nullptr};
  check(cudaEventCreate(&p->start), "cudaEventCreate");
  check(cudaEventCreate(&p->end), "cudaEventCreate");
  check(cudaEventRecord(p->start, s), "cudaEventRecord");
  auto it = m.kernels.find(l.id);
  if (it != m.kernels.end()) {
    it->second(s);
    m.kernels.erase(it);
  } else {
    Op op = *l.op;
    op.device = l.device;
    m.enqueue_default(op, l.device, s);
  }
  m.gpu(info.device);
  check(cudaEventRecord(p->end, s), "cudaEventRecord");
  check(cudaLaunchHostFunc(s, &Impl::on_done, p), "cudaLaunchHostFunc");
  (void)g;
  ++m.in_flight;
}

void CudaBackend::run_until_idle() {
  run_until([] { return false; });
}

void CudaBackend::run_until(const std::function<bool()>& done) {
  Impl& m = *impl_;
  if (m.sink == nullptr) return;
  for (;;) {
    const std::uint32_t seq = m.done_seq.load(std::memory_order_acquire);
    m.batch.clear();
    {
      std::lock_guard lock(m.done_mutex);
      m.batch.swap(m.done);
    }
    for (Impl::Pending* p : m.batch) {
      Impl::Gpu& g = m.gpu(p->device);
      float start_ms = 0, end_ms = 0;
      check(cudaEventElapsedTime(&start_ms, g.base, p->start), "cudaEventElapsedTime");
      check(cudaEventElapsedTime(&end_ms, g.base, p->end), "cudaEventElapsedTime");
      cudaEventDestroy(p->start);
      cudaEventDestroy(p->end);
      const OpId id = p->id;
      delete p;
      --m.in_flight;
      m.sink->on_op_completed(id, g.base_ns + static_cast<TimeNs>(std::llround(start_ms * 1e6)),
                              g.base_ns + static_cast<TimeNs>(std::llround(end_ms * 1e6)));
    }
    if (done() || m.in_flight == 0) return;
    if (m.batch.empty()) m.done_seq.wait(seq, std::memory_order_acquire);
  }
}

TimeNs CudaBackend::now_ns() const {
  return impl_->now();
}

}  // namespace opsim
