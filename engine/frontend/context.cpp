#include "engine/frontend/context.hpp"

#include <algorithm>
#include <cstring>

#include "engine/exec/cpu_kernels.hpp"
#include "engine/frontend/host_buffer_pool.hpp"

namespace opsim::frontend {

/// An op's real work: on the host, or enqueued on a GPU stream.
struct Work {
  Kernel host;
  StreamKernel gpu;
};

struct ContextImpl {
  Machine machine;
  ContextOptions options;
  OpGraph graph;
  KernelTable kernels;
  // Real mode on a machine with GPUs: what runs them (null: why_no_gpu says why), and each
  // device's CUDA ordinal (-1 for non-GPUs).
  std::shared_ptr<GpuRuntime> gpus;
  std::string why_no_gpu;
  std::vector<int> gpu_ordinal;
  std::unique_ptr<RealBackend> backend;  // real mode; destroyed after the scheduler
  std::unique_ptr<Scheduler> scheduler;  // real mode
  DeviceId host_cpu = kNoDevice;
  double dispatch_s = 0;
  // Recording: the program's host-thread chain and what a waitall must wait for.
  OpId prev_host = ArrayState::kNone;
  std::vector<OpId> since_barrier;
  std::vector<OpId> program_ops;  // issued program ops, in order (window when recording)
  std::vector<OpId> deps;
  int stream_hint = -1;

  ContextImpl(Machine m, ContextOptions o) : machine(std::move(m)), options(std::move(o)) {
    const auto cpus = machine.cpus();
    if (cpus.empty())
      throw NoSuchDevice("machine '" + machine.name() + "' has no CPU to run the program on");
    host_cpu = cpus.front();
    dispatch_s =
        options.dispatch_s >= 0 ? options.dispatch_s : machine.device(host_cpu).cpu.dispatch_s;
    gpu_ordinal.assign(machine.devices().size(), -1);
    const auto machine_gpus = machine.gpus();
    for (std::size_t i = 0; i < machine_gpus.size(); ++i)
      gpu_ordinal[machine_gpus[i]] = static_cast<int>(i);
    if (options.mode == Mode::kReal) {
      if (!machine_gpus.empty()) {
        gpus = options.cpu.gpu_runtime ? options.cpu.gpu_runtime : gpu_runtime(&why_no_gpu);
        options.cpu.gpu_runtime = gpus;  // the backend runs the GPU streams on the same one
      }
      backend = std::make_unique<RealBackend>(&kernels, options.cpu);
      scheduler = std::make_unique<Scheduler>(machine, graph, *backend);
    }
  }

  ~ContextImpl() {
    if (!scheduler) return;
    // Until nothing is in flight: workers report to the scheduler, which dies first. Each
    // kernel error is rethrown once, so this ends.
    for (;;) {
      try {
        scheduler->run_until([] { return false; });
        return;
      } catch (...) {  // a kernel failed and nobody waited: nothing left to report it to
      }
    }
  }

  bool real() const { return options.mode == Mode::kReal; }

  /// Real mode; call holding scheduler->lock() (or from a run_until condition).
  std::size_t unfinished() const {
    return scheduler->submitted_count() - scheduler->finished_count();
  }

  OpId add_host_op(double seconds, std::string_view name, std::span<const OpId> after) {
    Op op;
    op.kind = OpKind::kHostDispatch;
    op.device = host_cpu;
    op.seconds = seconds;
    const OpId id = graph.add(op, name);
    if (prev_host != ArrayState::kNone) graph.add_dependency(prev_host, id);
    for (OpId a : after) graph.add_dependency(a, id);
    prev_host = id;
    return id;
  }

  /// Records `op` reading `reads` and writing `write`, with `work` as its real work.
  OpId issue(Op op, MemoryEffect memory, std::string_view name,
             std::initializer_list<ArrayState*> reads, ArrayState* write, Work work,
             bool program_op = true) {
    if (real() && options.max_in_flight_ops != 0) {
      const std::size_t window = options.max_in_flight_ops;
      const bool full = [&] {
        const auto guard = scheduler->lock();
        return unfinished() >= window;
      }();
      if (full) scheduler->run_until([&] { return unfinished() < window; });
    }
    deps.clear();
    for (ArrayState* r : reads)
      if (r->last_writer != ArrayState::kNone) deps.push_back(r->last_writer);
    if (write != nullptr) {
      if (write->last_writer != ArrayState::kNone) deps.push_back(write->last_writer);
      deps.insert(deps.end(), write->readers.begin(), write->readers.end());
    }
    if (!real()) {
      if (program_op) {
        OpId window_dep[1];
        std::span<const OpId> after;
        const std::size_t w = options.max_in_flight_ops;
        if (w != 0 && program_ops.size() >= w) {
          window_dep[0] = program_ops[program_ops.size() - w];
          after = window_dep;
        }
        deps.push_back(add_host_op(dispatch_s, "dispatch " + std::string(name), after));
      } else if (prev_host != ArrayState::kNone) {
        deps.push_back(prev_host);  // a free happens no earlier than the program reaches it
      }
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    if (op.stream < 0 && program_op) op.stream = stream_hint;
    // Worker threads read the graph, the kernel table and the scheduler as they complete ops.
    std::unique_lock<CompletionMutex> guard;
    if (real()) guard = scheduler->lock();
    const OpId id = graph.add(op, name);
    graph.add_memory_effect(id, memory);
    for (OpId d : deps) graph.add_dependency(d, id);
    for (ArrayState* r : reads) r->readers.push_back(id);
    if (write != nullptr) {
      write->last_writer = id;
      write->readers.clear();
    }
    if (program_op) {
      program_ops.push_back(id);
      since_barrier.push_back(id);
    }
    if (real()) {
      if (work.host) kernels.set(id, std::move(work.host));
      if (work.gpu) kernels.set_stream_kernel(id, std::move(work.gpu));
      scheduler->submit_locked(id, deps);
    }
    return id;
  }

  void wait_for(OpId op) {
    if (op == ArrayState::kNone) return;
    if (real()) {
      scheduler->run_until([&] { return scheduler->finished(op); });
      const auto guard = scheduler->lock();
      if (!scheduler->finished(op))
        throw std::logic_error("wait_to_read: op never finished (scheduler stalled)");
    } else {
      const OpId after[1] = {op};
      add_host_op(0, "wait_to_read", after);
    }
  }

  void wait_all() {
    if (real()) {
      scheduler->run_until([] { return false; });
      const auto guard = scheduler->lock();
      if (unfinished() != 0)
        throw std::logic_error("waitall: ops never finished (scheduler stalled)");
    } else {
      add_host_op(0, "waitall", since_barrier);
    }
    since_barrier.clear();
  }

  DeviceId resolve(DeviceRef ref) const {
    const auto list = machine.devices_of_kind(ref.kind);
    const char* kind = ref.kind == DeviceKind::kGpu ? "gpu" : "cpu";
    const std::string what = std::string(kind) + "(" + std::to_string(ref.index) + "): ";
    if (ref.index >= list.size()) {
      std::string why;
      if (ref.kind == DeviceKind::kGpu && real() && !gpu_runtime(&why)) why = " (" + why + ")";
      throw NoSuchDevice(what + "machine '" + machine.name() + "' has " +
                         std::to_string(list.size()) + " " + kind + (list.size() == 1 ? "" : "s") +
                         why);
    }
    if (real() && ref.kind == DeviceKind::kGpu && !gpus)
      throw NoSuchDevice(what + "cannot run for real: " + why_no_gpu);
    return list[ref.index];
  }

  std::shared_ptr<ArrayState> make_array(const std::shared_ptr<ContextImpl>& self, DeviceId device,
                                         std::size_t rows, std::size_t cols) {
    auto a = std::make_shared<ArrayState>();
    a->context = self;
    a->device = device;
    a->rows = rows;
    a->cols = cols;
    if (real()) {
      auto b = std::make_shared<Buffer>();
      b->size = rows * cols;
      b->gpu = gpu_ordinal[device];
      const std::size_t floats = std::max<std::size_t>(b->size, 1);
      if (b->gpu >= 0)
        b->memory = gpus->allocate_device(b->gpu, floats);
      else if (gpus)
        b->memory = gpus->allocate_pinned_host(floats);
      else
        b->memory = HostBufferPool::process().allocate(floats);  // every op writes it whole
      a->buffer = std::move(b);
    }
    return a;
  }

  void release(ArrayState& a) {
    if (a.last_writer == ArrayState::kNone && a.readers.empty()) return;
    Op op;
    op.kind = OpKind::kCompute;
    op.kernel = KernelClass::kNoop;
    op.device = a.device;
    issue(op, {.release_bytes = a.bytes()}, "free", {}, &a, Work{}, /*program_op=*/false);
  }
};

ArrayState::~ArrayState() {
  if (!context) return;
  try {
    context->release(*this);
  } catch (...) {  // destructors must not throw; the error resurfaces at the next wait
  }
}

namespace {
Op compute_op(KernelClass kernel, DeviceId device, double flops, double bytes) {
  Op op;
  op.kind = OpKind::kCompute;
  op.kernel = kernel;
  op.device = device;
  op.flops = flops;
  op.bytes = bytes;
  return op;
}

// An op that writes a new array allocates it.
MemoryEffect allocates(double bytes) {
  return {.alloc_bytes = bytes};
}

// `what` builds the message only when the check fails: these checks run on every issued op.
template <typename Message>
void require(bool ok, Message&& what) {
  if (!ok) throw std::invalid_argument(what());
}

std::string shape(const Array& a) {
  return std::to_string(a.rows()) + "x" + std::to_string(a.cols());
}
}  // namespace

Context::Context(Machine machine, ContextOptions options)
    : impl_(std::make_shared<ContextImpl>(std::move(machine), std::move(options))) {}

Context::~Context() = default;

Array Context::random(DeviceRef device, std::size_t rows, std::size_t cols, std::uint64_t seed) {
  auto out = impl_->make_array(impl_, impl_->resolve(device), rows, cols);
  Work work;
  if (const auto& b = out->buffer; b && b->gpu >= 0)
    work.gpu = [g = impl_->gpus.get(), b, seed](void* s) {
      g->fill_random(b->data(), b->size, seed, s);
    };
  else if (b)
    work.host = [b, seed] { cpu::fill_random(b->data(), b->size, seed); };
  impl_->issue(compute_op(KernelClass::kFill, out->device, 0, out->bytes()),
               allocates(out->bytes()), "random", {}, out.get(), std::move(work));
  return Array(out);
}

Array Context::full(DeviceRef device, std::size_t rows, std::size_t cols, float value) {
  auto out = impl_->make_array(impl_, impl_->resolve(device), rows, cols);
  Work work;
  if (const auto& b = out->buffer; b && b->gpu >= 0)
    work.gpu = [g = impl_->gpus.get(), b, value](void* s) {
      g->fill(b->data(), b->size, value, s);
    };
  else if (b)
    work.host = [b, value] { cpu::fill(b->data(), b->size, value); };
  impl_->issue(compute_op(KernelClass::kFill, out->device, 0, out->bytes()),
               allocates(out->bytes()), "full", {}, out.get(), std::move(work));
  return Array(out);
}

Array Context::dot(const Array& a, const Array& b, bool transpose_a, bool transpose_b) {
  const std::size_t m = transpose_a ? a.cols() : a.rows(), k = transpose_a ? a.rows() : a.cols();
  const std::size_t kb = transpose_b ? b.cols() : b.rows(), n = transpose_b ? b.rows() : b.cols();
  require(k == kb, [&] {
    return std::string("dot: shapes " + shape(a) + (transpose_a ? "^T" : "") + " and " + shape(b) +
                       (transpose_b ? "^T" : "") + " do not chain");
  });
  require(a.device() == b.device(),
          [&] { return std::string("dot: operands on different devices; copy_to() one first"); });
  auto out = impl_->make_array(impl_, a.device(), m, n);
  Work work;
  if (const auto& c = out->buffer; c && c->gpu >= 0)
    work.gpu = [g = impl_->gpus.get(), x = a.state().buffer, y = b.state().buffer, c, m, n, k,
                transpose_a, transpose_b](void* s) {
      g->sgemm(c->gpu, x->data(), y->data(), c->data(), m, n, k, transpose_a, transpose_b, s);
    };
  else if (c)
    work.host = [x = a.state().buffer, y = b.state().buffer, c, m, n, k, transpose_a, transpose_b] {
      cpu::sgemm(x->data(), y->data(), c->data(), m, n, k, transpose_a, transpose_b);
    };
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  impl_->issue(compute_op(KernelClass::kGemm, out->device, flops,
                          a.state().bytes() + b.state().bytes() + out->bytes()),
               allocates(out->bytes()), "dot", {&a.state(), &b.state()}, out.get(),
               std::move(work));
  return Array(out);
}

namespace {
using HostBinary = void (*)(const float*, const float*, float*, std::size_t);
using GpuBinary = void (GpuRuntime::*)(const float*, const float*, float*, std::size_t, void*);

Array elementwise(ContextImpl& impl, const std::shared_ptr<ContextImpl>& self, const Array& a,
                  const Array& b, std::string_view name, HostBinary on_host, GpuBinary on_gpu) {
  require(a.rows() == b.rows() && a.cols() == b.cols(), [&] {
    return std::string(std::string(name) + ": shapes " + shape(a) + " and " + shape(b) + " differ");
  });
  require(a.device() == b.device(), [&] {
    return std::string(std::string(name) + ": operands on different devices; copy_to() one first");
  });
  auto out = impl.make_array(self, a.device(), a.rows(), a.cols());
  Work work;
  if (const auto& c = out->buffer; c && c->gpu >= 0)
    work.gpu = [g = impl.gpus.get(), x = a.state().buffer, y = b.state().buffer, c,
                on_gpu](void* s) { (g->*on_gpu)(x->data(), y->data(), c->data(), c->size, s); };
  else if (c)
    work.host = [x = a.state().buffer, y = b.state().buffer, c, on_host] {
      on_host(x->data(), y->data(), c->data(), c->size);
    };
  impl.issue(compute_op(KernelClass::kElementwise, out->device, static_cast<double>(out->size()),
                        3 * out->bytes()),
             allocates(out->bytes()), name, {&a.state(), &b.state()}, out.get(), std::move(work));
  return Array(out);
}
}  // namespace

Array Context::add(const Array& a, const Array& b) {
  return elementwise(*impl_, impl_, a, b, "add", cpu::add, &GpuRuntime::add);
}
Array Context::mul(const Array& a, const Array& b) {
  return elementwise(*impl_, impl_, a, b, "mul", cpu::mul, &GpuRuntime::mul);
}

Array Context::sum(const Array& a) {
  auto out = impl_->make_array(impl_, a.device(), 1, 1);
  Work work;
  if (const auto& c = out->buffer; c && c->gpu >= 0)
    work.gpu = [g = impl_->gpus.get(), x = a.state().buffer, c](void* s) {
      g->sum(x->data(), x->size, c->data(), s);
    };
  else if (c)
    work.host = [x = a.state().buffer, c] { c->data()[0] = cpu::sum(x->data(), x->size); };
  impl_->issue(compute_op(KernelClass::kReduce, out->device, static_cast<double>(a.state().size()),
                          a.state().bytes()),
               allocates(out->bytes()), "sum", {&a.state()}, out.get(), std::move(work));
  return Array(out);
}

Array Context::copy_to(const Array& a, DeviceRef device) {
  const DeviceId dst = impl_->resolve(device);
  auto out = impl_->make_array(impl_, dst, a.rows(), a.cols());
  Work work;
  if (const auto& c = out->buffer; c && (c->gpu >= 0 || a.state().buffer->gpu >= 0))
    work.gpu = [g = impl_->gpus.get(), x = a.state().buffer, c](void* s) {
      g->copy(c->data(), x->data(), c->size, s);
    };
  else if (c)
    work.host = [x = a.state().buffer, c] {
      std::memcpy(c->data(), x->data(), c->size * sizeof(float));
    };
  Op op;
  op.kind = OpKind::kCopy;
  op.device = a.device();
  op.peer = dst;
  op.bytes = a.state().bytes();
  impl_->issue(op, allocates(out->bytes()), "copy", {&a.state()}, out.get(), std::move(work));
  return Array(out);
}

void Context::axpy(Array& y, float alpha, const Array& x) {
  require(x.rows() == y.rows() && x.cols() == y.cols(),
          [&] { return std::string("axpy: shapes " + shape(x) + " and " + shape(y) + " differ"); });
  require(x.device() == y.device(),
          [&] { return std::string("axpy: operands on different devices; copy_to() one first"); });
  Work work;
  if (const auto& yb = y.state().buffer; yb && yb->gpu >= 0)
    work.gpu = [g = impl_->gpus.get(), xb = x.state().buffer, yb, alpha](void* s) {
      g->axpy(alpha, xb->data(), yb->data(), yb->size, s);
    };
  else if (yb)
    work.host = [xb = x.state().buffer, yb, alpha] {
      float* out = yb->data();
      const float* in = xb->data();
      for (std::size_t i = 0, n = yb->size; i < n; ++i) out[i] += alpha * in[i];
    };
  impl_->issue(compute_op(KernelClass::kElementwise, y.device(),
                          2.0 * static_cast<double>(y.state().size()), 3 * y.state().bytes()),
               {}, "axpy", {&x.state()}, &y.state(), std::move(work));
}

void Context::set_stream_hint(int index) {
  impl_->stream_hint = index < 0 ? -1 : index;
}

void Context::add_observer(SchedulerObserver& observer) {
  if (impl_->scheduler) impl_->scheduler->add_observer(observer);
}

void Context::wait_to_read(const Array& a) {
  impl_->wait_for(a.state().last_writer);
}
void Context::waitall() {
  impl_->wait_all();
}

std::vector<float> Context::to_host(const Array& a) {
  wait_to_read(a);
  const Buffer* b = a.state().buffer.get();
  std::vector<float> values(a.state().size(), 0.0f);
  if (b == nullptr) return values;  // recording: no data
  if (b->gpu >= 0)
    impl_->gpus->copy_now(values.data(), b->data(), b->size);
  else
    std::memcpy(values.data(), b->data(), b->size * sizeof(float));
  return values;
}

float Context::item(const Array& a) {
  require(a.state().size() == 1,
          [&] { return std::string("item: array is " + shape(a) + ", not 1x1"); });
  return to_host(a)[0];
}

Mode Context::mode() const {
  return impl_->options.mode;
}
const Machine& Context::machine() const {
  return impl_->machine;
}
const OpGraph& Context::graph() const {
  return impl_->graph;
}
const Scheduler* Context::scheduler() const {
  return impl_->scheduler.get();
}
DeviceId Context::resolve(DeviceRef device) const {
  return impl_->resolve(device);
}
TimeNs Context::now_ns() const {
  return impl_->backend ? impl_->backend->now_ns() : 0;
}
double Context::peak_memory_bytes(DeviceRef device) const {
  if (!impl_->scheduler) return 0.0;
  const DeviceId id = resolve(device);
  const auto guard = impl_->scheduler->lock();
  return impl_->scheduler->peak_memory_bytes(id);
}
std::size_t Context::issued_ops() const {
  return impl_->program_ops.size();
}

RecordedRun run_recorded(const Machine& machine, const OpGraph& graph, Backend& backend,
                         std::span<SchedulerObserver* const> observers, std::uint32_t window) {
  Scheduler scheduler(machine, graph, backend, SchedulerOptions{window});
  for (SchedulerObserver* o : observers) scheduler.add_observer(*o);
  scheduler.submit_all();
  scheduler.run();
  RecordedRun summary;
  summary.makespan_ns = scheduler.makespan_ns();
  for (DeviceId d = 0; d < machine.devices().size(); ++d)
    summary.peak_memory_bytes.push_back(scheduler.peak_memory_bytes(d));
  return summary;
}

}  // namespace opsim::frontend
