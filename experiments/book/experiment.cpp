#include "experiments/book/experiment.hpp"

#include <array>
#include <chrono>
#include <nlohmann/json.hpp>

#include "common/input_error.hpp"
#include "engine/exec/gpu_runtime.hpp"
#include "engine/exec/real_backend.hpp"
#include "engine/frontend/context.hpp"
#include "engine/frontend/host_machine.hpp"
#include "engine/trace_recorder.hpp"
#include "experiments/book/programs.hpp"
#include "experiments/sync/sync_strategy.hpp"
#include "sim/isolated_run.hpp"
#include "sim/sim_backend.hpp"

namespace opsim::book {

using frontend::Context;
using frontend::ContextOptions;
using frontend::DeviceRef;
using frontend::Mode;

namespace {

constexpr std::array<std::string_view, 5> kNames = {"async", "cpu-gpu", "compute-copy",
                                                    "mlp-memory", "data-parallel"};

using Program = std::function<void(Context&)>;

// "no usable GPU (<why>)", as a note says it.
std::string no_gpu_here() {
  std::string why;
  gpu_runtime(&why);
  const std::string prefix = "no usable GPU: ";
  if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
  return "no usable GPU (" + why + ")";
}

// What a scheduler reports, as JSON arrays: [op, device, stream, start, end] per finished op,
// [device, bytes, at] per memory change.
struct EventLog final : SchedulerObserver {
  nlohmann::json events = nlohmann::json::array();
  void on_op_finished(OpId op, DeviceId device, StreamIndex stream, TimeNs start_ns,
                      TimeNs end_ns) override {
    events.push_back({op, device, stream, start_ns, end_ns});
  }
  void on_memory_changed(DeviceId device, double bytes_in_use, TimeNs at_ns) override {
    events.push_back({device, bytes_in_use, at_ns});
  }
};

// Runs `program` once as the options ask and measures it.
class Runner {
 public:
  Runner(std::string_view experiment, const ExperimentOptions& options)
      : experiment_(experiment), options_(options) {
    if (options.backend != "real" && options.backend != "sim")
      throw InputError("experiment " + std::string(experiment) + ": unknown backend '" +
                       options.backend + "' (expected real or sim)");
    machine_ = real() || !options.machine ? frontend::host_machine() : *options.machine;
  }

  bool real() const { return options_.backend == "real"; }
  bool sim() const { return options_.backend == "sim"; }
  const Machine& machine() const { return machine_; }
  std::size_t gpu_count() const { return machine_.gpus().size(); }

  /// Runs `program` once; `caller_polls`: how a real run's blocking waits wait (see
  /// RealBackendOptions::caller_polls).
  Variant run(std::string name, const Program& program, DeviceRef memory_device,
              std::uint32_t window = 0, bool caller_polls = true) const {
    if (!real() || options_.repeats <= 1)
      return run_once(std::move(name), program, memory_device, window, caller_polls);
    // The fastest of several real runs: on a shared host, other work only ever adds time.
    Variant best = run_once(name, program, memory_device, window, caller_polls);
    for (int i = 1; i < options_.repeats; ++i) {
      Variant v = run_once(name, program, memory_device, window, caller_polls);
      if (v.wall_s < best.wall_s) best = std::move(v);
    }
    return best;
  }

  Variant run_once(std::string name, const Program& program, DeviceRef memory_device,
                   std::uint32_t window, bool caller_polls) const {
    ContextOptions copts;
    copts.cpu.caller_polls = caller_polls;
    copts.max_in_flight_ops = window;
    copts.dispatch_s = options_.dispatch_s;
    Variant v;
    v.name = std::move(name);
    const std::string title = std::string(experiment_) + ": " + v.name;
    if (real()) {
      copts.mode = Mode::kReal;
      Context ctx(machine_, copts);
      TraceRecorder recorder(machine_, ctx.graph(), ctx.scheduler()->streams(), title, "real");
      ctx.add_observer(recorder);
      const auto t0 = std::chrono::steady_clock::now();
      program(ctx);
      ctx.waitall();
      v.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      v.peak_memory_bytes = ctx.peak_memory_bytes(memory_device);
      v.trace = recorder.finish();
      return v;
    }
    copts.mode = Mode::kRecord;
    Context ctx(machine_, copts);
    program(ctx);
    simulate_graph(v, ctx.graph(), ctx.resolve(memory_device));
    return v;
  }

  /// Runs a built graph (ops with no data: each does the work its size says) on this host's
  /// CPU and GPUs into `v`: wall_s, peak memory on `memory`, trace.
  void run_graph_for_real(Variant& v, const OpGraph& graph, DeviceId memory) const {
    const std::string title = std::string(experiment_) + ": " + v.name;
    const StreamTable streams(machine_);
    TraceRecorder recorder(machine_, graph, streams, title, "real");
    RealBackend backend;
    SchedulerObserver* observers[] = {&recorder};
    const frontend::RecordedRun summary =
        frontend::run_recorded(machine_, graph, backend, observers);
    v.wall_s = ns_to_seconds(summary.makespan_ns);
    v.peak_memory_bytes = summary.peak_memory_bytes.at(memory);
    v.trace = recorder.finish();
  }

  /// Simulates a built graph (sim mode) into `v`: wall_s, peak memory on `memory`, trace.
  void simulate_graph(Variant& v, const OpGraph& graph, DeviceId memory) const {
    const std::string title = std::string(experiment_) + ": " + v.name;
    const StreamTable streams(machine_);
    TraceRecorder recorder(machine_, graph, streams, title, "sim");
    if (options_.make_sim_backend) {
      std::unique_ptr<Backend> backend = options_.make_sim_backend(machine_);
      SchedulerObserver* observers[] = {&recorder};
      const frontend::RecordedRun summary =
          frontend::run_recorded(machine_, graph, *backend, observers);
      v.wall_s = ns_to_seconds(summary.makespan_ns);
      v.peak_memory_bytes = summary.peak_memory_bytes.at(memory);
    } else {
      // SimGrid allows one engine per process: each variant simulates in a forked child,
      // which sends back what the scheduler told its observers; the parent replays that
      // into its own recorder.
      const std::string text = run_isolated([&] {
        EventLog log;
        SimBackend backend;
        SchedulerObserver* observers[] = {&log};
        frontend::run_recorded(machine_, graph, backend, observers);
        return log.events.dump();
      });
      const nlohmann::json events = nlohmann::json::parse(text);
      double in_use_peak = 0;
      TimeNs makespan = 0;
      for (const auto& e : events) {
        if (e.size() == 5) {
          const TimeNs end = e[4].get<TimeNs>();
          makespan = std::max(makespan, end);
          recorder.on_op_finished(e[0].get<OpId>(), e[1].get<DeviceId>(), e[2].get<StreamIndex>(),
                                  e[3].get<TimeNs>(), end);
        } else {
          const DeviceId d = e[0].get<DeviceId>();
          const double bytes = e[1].get<double>();
          if (d == memory) in_use_peak = std::max(in_use_peak, bytes);
          recorder.on_memory_changed(d, bytes, e[2].get<TimeNs>());
        }
      }
      v.wall_s = ns_to_seconds(makespan);
      v.peak_memory_bytes = in_use_peak;
    }
    v.trace = recorder.finish();
  }

 private:
  std::string_view experiment_;
  const ExperimentOptions& options_;
  Machine machine_;
};

ExperimentResult run_async(const Runner& r, const ExperimentOptions& o) {
  ExperimentResult result;
  const DeviceRef device = r.gpu_count() > 0 && r.sim() ? frontend::gpu(0) : frontend::cpu(0);
  auto program = [&](bool sync) {
    return [&, sync](Context& ctx) { tiny_ops_program(ctx, device, o.tiny_ops, sync); };
  };
  // A warm-up run first (threads, allocator), not reported.
  r.run(
      "warm-up",
      [&](Context& ctx) { tiny_ops_program(ctx, device, std::min(o.tiny_ops, 100), false); },
      device);
  // The book's setting: a wait blocks the program thread until the op's completion wakes it.
  result.variants.push_back(r.run("sync", program(true), device, 0, false));
  result.variants.push_back(r.run("async", program(false), device, 0, false));
  if (r.real()) {
    // The same with a wait that polls for a few microseconds before sleeping: a tiny op then
    // completes while the program thread still polls, and sync costs far less.
    result.variants.push_back(r.run("sync, polling wait", program(true), device, 0, true));
    result.variants.push_back(r.run("async, polling wait", program(false), device, 0, true));
  }
  return result;
}

ExperimentResult run_cpu_gpu(const Runner& r, const ExperimentOptions& o) {
  ExperimentResult result;
  MatmulGroup a{frontend::cpu(0), 0};
  MatmulGroup b{frontend::gpu(0), 0};
  std::string b_name = "gpu";
  if (r.gpu_count() == 0) {
    b = MatmulGroup{frontend::cpu(0), 1};
    b_name = "cpu-stream1";
    result.notes.push_back(
        r.real() ? no_gpu_here() +
                       ": the GPU group is skipped; a second CPU stream runs it instead "
                       "(cpu-stream1), so the variants show CPU-CPU overlap"
                 : "the simulated machine has no GPU: a second CPU stream runs the GPU group");
  }
  const int n = o.matmuls;
  const std::size_t size = o.matmul_n;
  // A warm-up run of both groups first, not reported: a GPU's first use pays the CUDA
  // context and cuBLAS kernels loaded on first use (~100 ms on an H100 host).
  if (r.real())
    r.run(
        "warm-up", [&](Context& c) { two_groups_program(c, a, b, n, size, false); }, a.device);
  result.variants.push_back(r.run(
      "cpu", [&](Context& c) { one_group_program(c, a, n, size); }, a.device));
  result.variants.push_back(r.run(
      b_name, [&](Context& c) { one_group_program(c, b, n, size); }, b.device));
  result.variants.push_back(r.run(
      "with barrier", [&](Context& c) { two_groups_program(c, a, b, n, size, true); }, a.device));
  result.variants.push_back(r.run(
      "without barrier", [&](Context& c) { two_groups_program(c, a, b, n, size, false); },
      a.device));
  return result;
}

ExperimentResult run_compute_copy(const Runner& r, const ExperimentOptions& o) {
  ExperimentResult result;
  if (r.gpu_count() == 0) {
    result.notes.push_back(
        r.real() ? no_gpu_here() + ": compute-copy needs one; skipped"
                 : "the simulated machine has no GPU: compute-copy needs one; skipped");
    return result;
  }
  const DeviceRef g = frontend::gpu(0), h = frontend::cpu(0);
  if (r.real())  // a warm-up, not reported, as in cpu-gpu
    r.run(
        "warm-up", [&](Context& c) { compute_copy_program(c, g, h, o.matmuls, o.matmul_n, false); },
        h);
  result.variants.push_back(r.run(
      "with barrier",
      [&](Context& c) { compute_copy_program(c, g, h, o.matmuls, o.matmul_n, true); }, h));
  result.variants.push_back(r.run(
      "without barrier",
      [&](Context& c) { compute_copy_program(c, g, h, o.matmuls, o.matmul_n, false); }, h));
  return result;
}

ExperimentResult run_mlp_memory(const Runner& r, const ExperimentOptions& o) {
  ExperimentResult result;
  MlpShape shape;
  shape.batch = o.mlp_batch;
  shape.inputs = o.mlp_inputs;
  shape.hidden1 = o.mlp_hidden1;
  shape.hidden2 = o.mlp_hidden2;
  shape.batches = o.mlp_batches;
  const DeviceRef d = frontend::cpu(0);
  result.variants.push_back(r.run(
      "with barrier", [&](Context& c) { mlp_program(c, d, shape, true); }, d));
  result.variants.push_back(r.run(
      "without barrier", [&](Context& c) { mlp_program(c, d, shape, false); }, d));
  if (o.window > 0)
    result.variants.push_back(r.run(
        "without barrier, window " + std::to_string(o.window),
        [&](Context& c) { mlp_program(c, d, shape, false); }, d, o.window));
  return result;
}

// Appends `plan` to `step` (ops renumbered); returns the new ids of its sources and sinks.
struct Merged {
  std::vector<OpId> sources, sinks;
};
Merged merge(OpGraph& step, const OpGraph& plan) {
  Merged m;
  const OpId offset = static_cast<OpId>(step.size());
  for (OpId id = 0; id < plan.size(); ++id)
    step.add_memory_effect(step.add(plan.op(id), plan.name(id)), plan.memory_effect(id));
  for (OpId id = 0; id < plan.size(); ++id) {
    bool has_successor = false;
    plan.for_each_successor(id, [&](OpId s) {
      step.add_dependency(offset + id, offset + s);
      has_successor = true;
    });
    if (plan.in_degree(id) == 0) m.sources.push_back(offset + id);
    if (!has_successor) m.sinks.push_back(offset + id);
  }
  return m;
}

// One data-parallel training step on `gpus`: per GPU a backward pass of `buckets` layer
// gradients (last layer first), each bucket's gradients synchronized with `strategy`, then
// the parameter update. `overlap`: a bucket's sync starts when that bucket's gradients exist
// on every GPU; otherwise after the whole backward pass.
OpGraph data_parallel_step(const Machine& machine, const std::vector<DeviceId>& gpus,
                           const ExperimentOptions& o, bool overlap) {
  OpGraph step;
  const int buckets = std::max(1, o.dp_buckets);
  std::vector<std::vector<OpId>> backward(gpus.size());
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    for (int b = 0; b < buckets; ++b) {
      Op op;
      op.kind = OpKind::kCompute;
      op.kernel = KernelClass::kGemm;
      op.device = gpus[g];
      op.flops = o.dp_backward_flops / buckets;
      op.bytes = o.dp_gradient_bytes / buckets;
      const OpId id = step.add(op, "backward layer " + std::to_string(buckets - b));
      if (b > 0) step.add_dependency(backward[g].back(), id);
      backward[g].push_back(id);
    }
  }
  SyncOptions sync;
  sync.bytes = o.dp_gradient_bytes / buckets;
  sync.gpus = gpus;
  std::vector<OpId> synced;
  for (int b = 0; b < buckets; ++b) {
    const SyncPlan plan = make_sync_plan(o.dp_strategy, machine, sync);
    const Merged m = merge(step, plan.graph);
    for (OpId source : m.sources)
      for (const auto& chain : backward)
        step.add_dependency(overlap ? chain[b] : chain.back(), source);
    synced.insert(synced.end(), m.sinks.begin(), m.sinks.end());
  }
  for (DeviceId g : gpus) {
    Op update;
    update.kind = OpKind::kCompute;
    update.kernel = KernelClass::kElementwise;
    update.device = g;
    update.flops = 2 * o.dp_gradient_bytes / 4;
    update.bytes = 3 * o.dp_gradient_bytes;
    const OpId id = step.add(update, "update");
    for (OpId s : synced) step.add_dependency(s, id);
  }
  return step;
}

ExperimentResult run_data_parallel(const Runner& r, const ExperimentOptions& o) {
  ExperimentResult result;
  if (r.real() && r.gpu_count() < 2) {
    result.notes.push_back(r.gpu_count() == 0
                               ? no_gpu_here() + ": data-parallel needs GPUs; skipped"
                               : "this host has 1 GPU: data-parallel needs at least 2; skipped");
    return result;
  }
  std::vector<DeviceId> gpus = r.machine().gpus();
  if (o.dp_gpus > 0 && static_cast<std::size_t>(o.dp_gpus) < gpus.size())
    gpus.resize(static_cast<std::size_t>(o.dp_gpus));
  if (gpus.size() < 2)
    throw InputError("experiment data-parallel: machine '" + r.machine().name() + "' has " +
                     std::to_string(gpus.size()) + " GPU(s); data-parallel needs at least 2");
  for (bool overlap : {false, true}) {
    Variant v;
    v.name = overlap ? "backward overlapped with bucketed sync" : "sync after backward";
    const OpGraph step = data_parallel_step(r.machine(), gpus, o, overlap);
    step.validate(r.machine(), "data-parallel step");
    if (r.real())
      r.run_graph_for_real(v, step, gpus.front());
    else
      r.simulate_graph(v, step, gpus.front());
    result.variants.push_back(std::move(v));
  }
  result.notes.push_back("strategy " + o.dp_strategy + " on " + std::to_string(gpus.size()) +
                         " GPUs, " + std::to_string(o.dp_buckets) + " buckets");
  return result;
}

}  // namespace

const Variant* ExperimentResult::find(std::string_view name) const {
  for (const Variant& v : variants)
    if (v.name == name) return &v;
  return nullptr;
}

std::span<const std::string_view> experiment_names() {
  return kNames;
}

ExperimentResult run_experiment(std::string_view name, const ExperimentOptions& options) {
  bool known = false;
  std::string list;
  for (std::string_view n : kNames) {
    known = known || n == name;
    list += (list.empty() ? "" : ", ") + std::string(n);
  }
  if (!known)
    throw InputError("experiment: unknown name '" + std::string(name) + "' (known: " + list + ")");
  const Runner runner(name, options);
  ExperimentResult result;
  if (name == "async")
    result = run_async(runner, options);
  else if (name == "cpu-gpu")
    result = run_cpu_gpu(runner, options);
  else if (name == "compute-copy")
    result = run_compute_copy(runner, options);
  else if (name == "mlp-memory")
    result = run_mlp_memory(runner, options);
  else
    result = run_data_parallel(runner, options);
  result.experiment = std::string(name);
  result.backend = options.backend;
  return result;
}

}  // namespace opsim::book
