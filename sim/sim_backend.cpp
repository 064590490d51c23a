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
    // Memory-bound passes run at the rate measured for their working set (cache or DRAM);
    // the roofline divides the bandwidth it is given by the efficiency, so undo that here.
    const CpuModel& c = d.cpu;
    const double streams = std::max(1, c.compute_streams);
    const double memory_bytes_per_s =
        c.memory_pass_bytes_per_s(op.bytes) * core_pass_speed / c.efficiency;
    return roofline_time_s(op.flops, op.bytes, c.peak_flops_per_s() * core_gemm_speed / streams,
                           memory_bytes_per_s, 0.0, c.efficiency);
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
  Impl& m = *impl_;
  const Op& op = *launch.op;
  switch (op.kind) {
    case OpKind::kCompute: {
      const Device& d = m.machine->device(launch.device);
      double seconds = compute_time_s(*m.machine, op, launch.device,
                                      m.core_speed(launch, &CpuModel::core_pass_speeds),
                                      m.core_speed(launch, &CpuModel::core_gemm_speeds));
      if (d.kind == DeviceKind::kGpu)
        seconds = gpu_op_time_s(d.gpu, seconds - d.gpu.launch_s, m.waited_s(launch));
      if (seconds > 0) {
        m.start_exec(slot, m.compute_host[launch.device], seconds, m.exec_bound[launch.device]);
        if (m.machine->device(launch.device).kind == DeviceKind::kCpu) {
          m.slots[slot].computing_on = launch.device;
          ++m.compute_ops_on[launch.device];
          m.compute_load_changed(launch.device);
        }
      } else
        m.delay_then_finish(slot, 0);
      break;
    }
    case OpKind::kHostDispatch: {
      sg4::Host* host = m.options.dispatch_on_compute_cores &&
                                m.machine->device(launch.device).kind == DeviceKind::kCpu
                            ? m.compute_host[launch.device]
                            : m.program_host[launch.device];
      if (host == nullptr)
        throw std::invalid_argument("SimBackend: host dispatch on '" +
                                    m.machine->device(launch.device).name + "', not a CPU");
      const bool pooled = host == m.compute_host[launch.device] && m.exec_bound[launch.device] > 0;
      if (op.seconds > 0) {
        m.start_exec(slot, host, op.seconds, pooled ? m.exec_bound[launch.device] : 0.0,
                     /*first=*/true);
        if (pooled) {
          if (m.dispatches_on[launch.device]++ == 0) host->set_pstate(1);
          m.slots[slot].dispatch_on = launch.device;
        }
      } else
        m.delay_then_finish(slot, 0);
      break;
    }
    case OpKind::kCopy: {
      const Device& src = m.machine->device(op.device);
      if (m.options.cpu_copies_on_compute_cores && op.device == op.peer &&
          src.kind == DeviceKind::kCpu) {
        // A memcpy is a CPU thread's work: it takes a core at half the DRAM bandwidth.
        double bytes_per_s = src.cpu.dram.bytes_per_s() / 2;
        if (src.cpu.copy_stream_bytes_per_s_for(op.bytes) > 0)
          bytes_per_s = std::min(bytes_per_s, src.cpu.copy_stream_bytes_per_s_for(op.bytes));
        bytes_per_s *= m.core_speed(launch, &CpuModel::core_copy_speeds);
        const double seconds = op.bytes / bytes_per_s;
        if (seconds > 0)
          m.start_exec(slot, m.compute_host[op.device], seconds, m.exec_bound[op.device]);
        else
          m.delay_then_finish(slot, 0);
        break;
      }
      std::uint32_t route = m.find_route(op.device, op.peer, kCopyRoute);
      Slot& s = m.slots[slot];
      if (op.device == op.peer && src.kind == DeviceKind::kCpu) {
        s.flow_cap_bytes_per_s = src.cpu.copy_stream_bytes_per_s_for(op.bytes) *
                                 m.core_speed(launch, &CpuModel::core_copy_speeds);
        // A free lane keeps that rate beside other copies (SimGrid ignores Comm::set_rate).
        const auto& lanes = m.copy_lanes[op.device];
        for (int lane = 0; lane < static_cast<int>(lanes.size()); ++lane) {
          if (m.copy_lanes_busy[op.device] & (1u << lane)) continue;
          m.copy_lanes_busy[op.device] |= 1u << lane;
          s.copy_lane = lane;
          s.copy_on = op.device;
          // Copies of a size that runs faster together share the membus faster: the copy
          // moves its bytes scaled by its size's DRAM use, and its lane by as much, so that
          // alone it still keeps its own rate.
          const double dram_use = src.cpu.copy_dram_use_per_byte(op.bytes);
          s.bytes *= dram_use;
          s.flow_cap_bytes_per_s *= dram_use;
          if (s.flow_cap_bytes_per_s > 0) lanes[lane]->set_bandwidth(s.flow_cap_bytes_per_s);
          route =
              m.find_route(op.device, op.peer, static_cast<std::uint8_t>(kCopyLaneRoute + lane));
          break;
        }
      }
      s.route = route;
      // A GPU's copy engine drives it: the source's, else the destination's.
      // A copy that waited behind its engine was enqueued meanwhile: the wait hides its launch.
      const Device& dst = m.machine->device(op.peer);
      const double copy_launch_s = src.kind == DeviceKind::kGpu   ? src.gpu.copy_launch_s
                                   : dst.kind == DeviceKind::kGpu ? dst.gpu.copy_launch_s
                                                                  : 0.0;
      const double launch_s = launch_left_s(copy_launch_s, m.waited_s(launch));
      m.start_op_flow(slot, m.routes[route].latency_s + launch_s);
      break;
    }
    case OpKind::kDiskRead:
    case OpKind::kDiskWrite: {
      const bool write = op.kind == OpKind::kDiskWrite;
      const std::uint32_t route = write ? m.find_route(op.peer, op.device, kDiskWriteRoute)
                                        : m.find_route(op.device, op.peer, kDiskReadRoute);
      const DiskModel& disk = m.machine->device(op.device).disk;
      const bool random = op.pattern == AccessPattern::kRandom && op.block_bytes > 0;
      Slot& s = m.slots[slot];
      s.route = route;
      const Device& memory = m.machine->device(op.peer);
      if (memory.kind == DeviceKind::kCpu && memory.cpu.disk_io_cores > 0) {
        s.io_cpu = op.peer;
        m.disk_io_started(op.peer);
      }
      if (m.sequential_reads.size() < m.machine->devices().size()) {
        m.sequential_reads.resize(m.machine->devices().size(), 0);
        m.random_reads.resize(m.machine->devices().size(), 0);
        m.sequential_writes.resize(m.machine->devices().size(), 0);
      }
      // Counted first, so that transfers already running see this one (and it them).
      if (!random && !write) {
        s.sequential_on = op.device;
        s.read_to = op.peer;
        s.disk_speed = m.disk_speed(op.peer, false);
        if (m.sequential_reads[op.device]++ <= 1) m.reroute_disk_transfers(op.device);
        s.route = m.sequential_read_route(op.device, op.peer);
      }
      if (!random && write) {
        s.write_on = op.device;
        s.write_from = op.peer;
        s.disk_speed = m.disk_speed(op.peer, true);
        if (m.sequential_writes[op.device]++ == 0) m.reroute_disk_transfers(op.device);
        s.route = m.sequential_write_route(op.device, op.peer);
      }
      if (random && !write) {
        s.random_on = op.device;
        if (m.random_reads[op.device]++ == 0) m.reroute_disk_transfers(op.device);
      }
      s.bytes /= s.disk_speed;
      const double requests = random ? std::ceil(op.bytes / op.block_bytes) : 0;
      if (random && !write && disk.random_read_wait_beside_sequential_s > 0 && requests >= 1) {
        // Request by request: each waits behind whatever sequential reads run at its time.
        s.phase = Phase::kDiskRequests;
        s.requests_left = static_cast<std::uint32_t>(std::min(requests, 4e9));
        s.disk = op.device;
        m.set_timer(sg4::Engine::get_clock() + m.random_read_s(op.device), slot);
        break;
      }
      double access_s = disk.access_s;
      if (random) access_s = requests / (write ? disk.write_iops : disk.read_iops);
      m.start_op_flow(slot, access_s + m.routes[route].latency_s);
      break;
    }
  }
}

void SimBackend::on_timer(std::uint32_t slot) {
  Impl& m = *impl_;
  m.retired.reset();  // safe: no activity's completion is being signalled now
  Slot& s = m.slots[slot];
  s.timer = nullptr;  // SimGrid deletes a timer once it has fired
  if (s.phase == Phase::kDiskRequests) {
    if (--s.requests_left > 0)
      m.set_timer(sg4::Engine::get_clock() + m.random_read_s(s.disk), slot);
    else  // all requests served: the bytes still cross the disk's link to memory
      m.start_op_flow(slot, m.routes[s.route].latency_s);
    return;
  }
  if (s.phase == Phase::kDelayThenComm)
    m.start_comm(slot);
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
  return seconds_to_ns(sg4::Engine::get_clock());
}

std::size_t SimBackend::host_count() const {
  return impl_->engine->get_host_count();
}
std::size_t SimBackend::link_count() const {
  return impl_->engine->get_link_count();
}

}  // namespace opsim
