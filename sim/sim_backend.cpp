#include "sim/sim_backend.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "hw_models/gpu_op_time.hpp"
#include "hw_models/roofline.hpp"
#include "sim/sim_backend_impl.hpp"
#include "sim/simulated_time.hpp"

namespace opsim {

using namespace sim_internals;

SimBackend::SimBackend(SimBackendOptions options) : impl_(std::make_unique<Impl>()) {
  if (sg4::Engine::has_instance() || g_active_backend != nullptr)
    throw std::logic_error(
        "SimBackend: SimGrid allows one Engine per process; run each simulation in its own "
        "process (sim/isolated_run.hpp)");
  impl_->options = std::move(options);
  const std::string& log = impl_->options.log_control;
  std::vector<std::string> args = {
      "opsim",
      "--log=" + (log.empty() ? std::string("root.thres:critical") : log),
      // Exact max-min sharing: no TCP factors, no cross traffic, no window bound.
      "--cfg=network/model:CM02",
      "--cfg=network/crosstraffic:0",
      "--cfg=network/TCP-gamma:" + std::to_string(kHugeTcpGamma),
  };
  for (const std::string& item : impl_->options.config) args.push_back("--cfg=" + item);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  impl_->engine = std::make_unique<sg4::Engine>(&argc, argv.data());
  g_active_backend = this;
  static bool connected = false;
  if (!connected) {
    connected = true;
    sg4::Activity::on_completion_cb([](const sg4::Activity& activity) {
      if (g_active_backend != nullptr) g_active_backend->on_activity_completed(activity);
    });
  }
}

SimBackend::~SimBackend() {
  impl_->retired.reset();
  impl_->cancelled.clear();
  impl_->slots.clear();
  g_active_backend = nullptr;
  // The Engine is intentionally left alive: SimGrid 3.32 cannot create a second one in the
  // same process anyway, and tearing it down with the platform costs time at exit.
  (void)impl_->engine.release();
}

double SimBackend::compute_time_s(const Machine& machine, const Op& op, DeviceId device,
                                  double core_pass_speed, double core_gemm_speed) {
  if (op.fixed_time) return op.seconds;
  const Device& d = machine.device(device);
  if (d.kind == DeviceKind::kGpu) {
    const GpuModel& g = d.gpu;
    double peak = op.dtype == DataType::kF16 ? g.fp16_flops_per_s : g.fp32_flops_per_s;
    if (op.kernel == KernelClass::kGemm && op.dtype == DataType::kF32)
      peak = g.sgemm_peak_flops_per_s(op.flops);  // the rate measured for its size
    return roofline_time_s(op.flops, op.bytes, peak, g.memory_bytes_per_s, g.launch_s,
                           g.efficiency);
  }
  if (d.kind == DeviceKind::kCpu) {
    // CPUs: one peak for every data type, no launch latency (a function call).
    // Each op runs on cores / compute_streams cores (CpuModel::compute_streams), so its
    // compute peak is that share; the CPU's host has one SimGrid core per stream.
    // Memory-bound passes pay a DRAM first access, then stream (CpuModel::op_time_s).
    return d.cpu.op_time_s(op.flops, op.bytes, core_pass_speed, core_gemm_speed);
  }
  throw std::invalid_argument("SimBackend: compute op placed on '" + d.name +
                              "', which is neither a CPU nor a GPU");
}

void SimBackend::prepare(const Machine& machine, const OpGraph& graph, const StreamTable& streams,
                         CompletionSink& sink) {
  Impl& m = *impl_;
  m.machine = &machine;
  m.streams = &streams;
  m.graph = &graph;
  m.sink = &sink;
  check_ops_fit_in_simulated_time(machine, graph);
  m.build_platform(graph);
  m.engine->seal_platform();
}

void SimBackend::launch(const OpLaunch& launch) {
  Impl& m = *impl_;
  const Op& op = *launch.op;
  const std::uint32_t slot = m.alloc_slot();
  {
    Slot& s = m.slots[slot];
    s.op = launch.id;
    s.start_ns = now_ns();
    s.bytes = op.bytes;
    s.flow_cap_bytes_per_s = 0;
    s.copy_lane = -1;
    s.disk_speed = 1.0;
  }
  ++m.in_flight;
  try {
    launch_into(slot, launch);
  } catch (...) {  // thrown before anything started: give the slot (and its lane) back
    Slot& s = m.slots[slot];
    if (s.copy_lane >= 0) m.copy_lanes_busy[s.copy_on] &= ~(1u << s.copy_lane);
    s.copy_lane = -1;
    s.phase = Phase::kFree;
    m.free_slots.push_back(slot);
    --m.in_flight;
    throw;
  }
}

void SimBackend::launch_into(std::uint32_t slot, const OpLaunch& launch) {
  switch (launch.op->kind) {
    case OpKind::kCompute:
      return impl_->launch_compute(slot, launch);
    case OpKind::kHostDispatch:
      return impl_->launch_host_dispatch(slot, launch);
    case OpKind::kCopy:
      return impl_->launch_copy(slot, launch);
    case OpKind::kDiskRead:
    case OpKind::kDiskWrite:
      return impl_->launch_disk_op(slot, launch);
  }
}

void SimBackend::on_timer(std::uint32_t slot) {
  Impl& m = *impl_;
  m.retired.reset();  // safe: no activity's completion is being signalled now
  Slot& s = m.slots[slot];
  if (s.phase == Phase::kDiskRequests) {
    if (--s.requests_left > 0)
      m.set_timer(m.clock_s() + m.random_read_s(s.disk), slot);
    else  // all requests served: the bytes still cross the disk's link to memory
      m.start_op_flow(slot, m.routes[s.route].latency_s);
    return;
  }
  if (s.phase == Phase::kDelayThenFlow)
    m.start_flow(slot, 0);
  else
    m.finish(slot);
}

void SimBackend::on_activity_completed(const sg4::Activity& activity) {
  Impl& m = *impl_;
  auto* data = activity.get_data<void>();
  if (data == nullptr) return;
  const auto slot = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(data) - 1);
  // Dropping the activity inside its own completion signal would free it while SimGrid still
  // uses it: keep it until the next completion or timer.
  m.retired = std::move(m.slots[slot].activity);
  m.finish(slot);
}

void SimBackend::run_until_idle() {
  Impl& m = *impl_;
  if (m.in_flight == 0) return;
  m.engine->run();
  m.retired.reset();
  m.cancelled.clear();
  if (m.error) std::rethrow_exception(std::exchange(m.error, nullptr));
  if (m.in_flight != 0)
    throw std::logic_error("SimBackend: SimGrid stopped with " + std::to_string(m.in_flight) +
                           " ops still in flight");
}

TimeNs SimBackend::now_ns() const {
  return impl_->clock_ns();
}

std::size_t SimBackend::host_count() const {
  return impl_->engine->get_host_count();
}
std::size_t SimBackend::link_count() const {
  return impl_->engine->get_link_count();
}

}  // namespace opsim
