// One program, two worlds. A Context runs an array program either for real (ops dispatched
// asynchronously through the Scheduler to the RealBackend as the program issues them; arrays
// on gpu(i) live in CUDA memory and their ops run on CUDA streams) or
// records it (Mode::kRecord) as an OpGraph that includes the program's own dispatch cost: a
// host-dispatch op of t1 seconds per issued op, in program order on the CPU's host stream,
// and its blocking waits (the next host op depends on the awaited op). The recorded graph is
// then handed to any Backend (the simulator, or the real one) with run_recorded().
//
//   Context ctx(host_machine());             // real; or Context(machine, {.mode = kRecord})
//   Array a = ctx.random(cpu(), 1024, 1024, 1);
//   Array b = ctx.dot(a, a);                 // returns at once
//   float s = ctx.item(ctx.sum(b));          // blocks until the sum is computed
//
// Dependencies are tracked per array: an op reading an array waits for its last writer; an op
// writing one (in place, or freeing it) also waits for every read since. Ops on disjoint
// arrays run concurrently on the device's streams. A window (max_in_flight_ops) makes the
// program block when that many issued ops are unfinished, which bounds queued memory.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "engine/exec/real_backend.hpp"
#include "engine/frontend/array.hpp"
#include "engine/scheduler.hpp"

namespace opsim::frontend {

enum class Mode { kReal, kRecord };

struct ContextOptions {
  Mode mode = Mode::kReal;
  /// Most issued ops not yet finished before an issuing call blocks; 0: no bound.
  std::uint32_t max_in_flight_ops = 0;
  /// Recording: host seconds per issued op (t1); negative: the CPU model's dispatch_s.
  double dispatch_s = -1;
  RealBackendOptions cpu;
};

/// Thrown when a program names a device the machine does not have (e.g. gpu(0) on a machine
/// with no GPU): the message says which and why. It is the user's input that is wrong (the
/// program or the machine chosen for it), so the CLI exits with code 2.
class NoSuchDevice : public InputError {
 public:
  using InputError::InputError;
};

class Context {
 public:
  explicit Context(Machine machine, ContextOptions options = {});
  /// Waits for all issued work (real mode).
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // --- ops: each returns at once -------------------------------------------------------
  /// rows x cols uniform values in [-1, 1) from `seed` (same seed, same values).
  Array random(DeviceRef device, std::size_t rows, std::size_t cols, std::uint64_t seed);
  Array full(DeviceRef device, std::size_t rows, std::size_t cols, float value);
  /// Matrix product op(a)[m x k] * op(b)[k x n] on a's device (OpenBLAS / cuBLAS); op
  /// transposes a (or b) when asked.
  Array dot(const Array& a, const Array& b, bool transpose_a = false, bool transpose_b = false);
  Array add(const Array& a, const Array& b);
  Array mul(const Array& a, const Array& b);
  /// 1 x 1 sum of all elements.
  Array sum(const Array& a);
  /// The array copied into memory of `device`.
  Array copy_to(const Array& a, DeviceRef device);
  /// In place: y += alpha * x (a write to y: waits for y's earlier reads and writes).
  void axpy(Array& y, float alpha, const Array& x);

  /// Ops issued from now on prefer stream `index` of their device (-1: the scheduler picks
  /// the least loaded). E.g. a data loader on one CPU stream, training on another.
  void set_stream_hint(int index);

  // --- blockers --------------------------------------------------------------------------
  void wait_to_read(const Array& a);
  void waitall();
  /// Blocks, then copies the values out (recording: zeros of the right size).
  std::vector<float> to_host(const Array& a);
  /// Blocks; the single value of a 1 x 1 array.
  float item(const Array& a);

  // --- introspection -----------------------------------------------------------------------
  /// Real mode: subscribes `observer` to the live scheduler (e.g. a trace recorder).
  void add_observer(SchedulerObserver& observer);
  Mode mode() const;
  const Machine& machine() const;
  const OpGraph& graph() const;
  /// The live scheduler of a real run (null when recording). Its state changes on worker
  /// threads while ops run: read it after a wait, or under its lock().
  const Scheduler* scheduler() const;
  DeviceId resolve(DeviceRef device) const;
  /// Real: wall time since the first op (ns). Recording: 0.
  TimeNs now_ns() const;
  /// Real: highest memory in use on `device` so far (bytes).
  double peak_memory_bytes(DeviceRef device) const;
  /// Ops issued by the program (recording: not counting host-dispatch and wait ops).
  std::size_t issued_ops() const;

 private:
  std::shared_ptr<ContextImpl> impl_;
};

/// What running a graph produced.
struct RecordedRun {
  TimeNs makespan_ns = 0;
  std::vector<double> peak_memory_bytes;  ///< per device
};

/// Runs a recorded graph on `backend` through a fresh Scheduler (submit_all, run), with
/// `observers` attached (e.g. a trace recorder). `window` bounds ops in flight (0: none).
RecordedRun run_recorded(const Machine& machine, const OpGraph& graph, Backend& backend,
                         std::span<SchedulerObserver* const> observers = {},
                         std::uint32_t window = 0);

}  // namespace opsim::frontend
