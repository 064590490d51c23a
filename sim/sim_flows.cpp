// The flow engine: what each launched op starts (an exec, a flow, a timer), execs on
// compute hosts, comms and closed-form flows over routes, and what happens when an op ends.
#include <algorithm>
#include <cmath>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <stdexcept>
#include <utility>

#include "hw_models/gpu_op_time.hpp"
#include "sim/sim_backend_impl.hpp"
#include "sim/simulated_time.hpp"

namespace opsim {

using namespace sim_internals;

std::uint32_t SimBackend::Impl::find_route(DeviceId src, DeviceId dst, std::uint8_t tag) const {
  for (const RouteEntry& e : routes_from[src])
    if (e.dst == dst && e.tag == tag) return e.route;
  throw std::invalid_argument("SimBackend: no route prepared from '" + machine->device(src).name +
                              "' to '" + machine->device(dst).name +
                              "' (op added after prepare() on a large machine?)");
}

std::uint32_t SimBackend::Impl::alloc_slot() {
  if (!free_slots.empty()) {
    const std::uint32_t s = free_slots.back();
    free_slots.pop_back();
    return s;
  }
  slots.emplace_back();
  return static_cast<std::uint32_t>(slots.size() - 1);
}

// The most a flow may take, and its rate alone on its path.
double SimBackend::Impl::flow_cap(const Slot& s) const {
  return s.flow_cap_bytes_per_s > 0 ? s.flow_cap_bytes_per_s : routes[s.route].flow_cap_bytes_per_s;
}

double SimBackend::Impl::alone_bytes_per_s(const Slot& s) const {
  const Route& r = routes[s.route];
  return s.flow_cap_bytes_per_s > 0 ? std::min(r.path_bytes_per_s, s.flow_cap_bytes_per_s)
                                    : r.bytes_per_s;
}

std::uint64_t TimerQueue::push(double date_s, std::uint32_t slot) {
  const PendingTimer timer{date_s, ++last_id_, slot};
  if (lane_count_ == 0 || date_s >= lane_back().date_s) {
    if (lane_count_ == lane_.size()) grow_lane();
    lane_[(lane_head_ + lane_count_) & (lane_.size() - 1)] = timer;
    ++lane_count_;
  } else {
    heap_.push_back(timer);
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  return last_id_;
}

void TimerQueue::pop() {
  if (!from_lane()) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
    return;
  }
  lane_head_ = (lane_head_ + 1) & (lane_.size() - 1);
  --lane_count_;
}

void TimerQueue::grow_lane() {
  std::vector<PendingTimer> larger(std::max<std::size_t>(1024, 2 * lane_.size()));
  for (std::size_t i = 0; i < lane_count_; ++i)
    larger[i] = lane_[(lane_head_ + i) & (lane_.size() - 1)];
  lane_.swap(larger);
  lane_head_ = 0;
}

void SimBackend::Impl::set_timer(double date_s, std::uint32_t slot) {
  slots[slot].timer = timers.push(date_s, slot);
  if (!running_timers) schedule_engine_timer();
}

void SimBackend::Impl::cancel_timer(std::uint32_t slot) {
  slots[slot].timer = 0;  // its entry stays queued, dead
  if (!running_timers) schedule_engine_timer();
}

void SimBackend::Impl::schedule_engine_timer() {
  // Dead timers on top go now: the SimGrid timer must not stop the engine at their date
  // (an extra stop splits the models' progress and can change the last bits of their times).
  while (!timers.empty() && slots[timers.top().slot].timer != timers.top().id) timers.pop();
  if (engine_timer != nullptr) {
    if (!timers.empty() && engine_timer_date_s == timers.top().date_s) return;
    engine_timer->remove();
    engine_timer = nullptr;
  }
  if (timers.empty()) return;
  engine_timer_date_s = timers.top().date_s;
  engine_timer = simgrid::kernel::timer::Timer::set(engine_timer_date_s, [this] {
    engine_timer = nullptr;  // SimGrid deletes a timer once it has fired
    run_due_timers();
  });
}

void SimBackend::Impl::run_due_timers() {
  const double now_s = sg4::Engine::get_clock();
  timers_now_s = now_s;
  running_timers = true;
  // As SimGrid's Timer::execute_all(): every timer due, earliest first, each taken off before
  // it runs; one set meanwhile for now runs in this pass too.
  while (!timers.empty() && timers.top().date_s <= now_s) {
    const PendingTimer due = timers.top();
    timers.pop();
    if (slots[due.slot].timer != due.id) continue;  // cancelled
    slots[due.slot].timer = 0;
    g_active_backend->on_timer(due.slot);
  }
  running_timers = false;
  schedule_engine_timer();
}

// `bound` > 0: the host is a pooled CPU (exec_bound). `first` (host dispatch: a busy wait
// on the wall clock, slowed by nothing) takes its bound before the other execs share the rest.
void SimBackend::Impl::start_exec(std::uint32_t slot, sg4::Host* host, double seconds, double bound,
                                  bool first) {
  sg4::ExecPtr exec = sg4::Exec::init();
  exec->set_flops_amount(seconds * kWorkPerSecond);
  exec->set_host(host);
  if (bound > 0) exec->set_bound(bound);
  if (bound > 0 && first) exec->set_priority(kFirstPriority);
  exec->set_data(slot_to_data(slot));
  Slot& s = slots[slot];
  s.phase = Phase::kActivity;
  s.activity = exec;
  exec->start();
}

void SimBackend::Impl::start_comm(std::uint32_t slot) {
  Slot& s = slots[slot];
  const auto bytes =
      static_cast<std::uint64_t>(static_cast<std::int64_t>(whole_bytes(s.bytes)));  // as llround
  if (bytes == 0) {  // never a 0-byte comm: the op ends after its delay
    finish(slot);
    return;
  }
  sg4::CommPtr comm = sg4::Comm::sendto_init();
  // SimGrid 3.32 drops this bound for host-to-host comms (s4u::Comm::start never hands
  // rate_ to the CommImpl): a capped flow is capped only in closed form, alone on its links.
  // Copies within one CPU's memory, the only capped routes, share a membus sized so that
  // the cap does not bind while two run together; a copy left running alone after sharing
  // gets the whole membus (the two-stream rate when that is higher) unless it holds a copy
  // lane (kCopyLaneRoute). A bound that must hold beside other flows is a link on the route
  // (kDiskReadBesideRandomRoute, the copy lanes).
  if (flow_cap(s) > 0) comm->set_rate(flow_cap(s));
  comm->set_source(routes[s.route].source)->set_destination(sink_host);
  comm->set_payload_size(bytes);
  comm->set_data(slot_to_data(slot));
  s.phase = Phase::kActivity;
  s.activity = comm;
  comm->start();
}

// Ends `slot` after `delay_s` (never synchronously inside launch()).
void SimBackend::Impl::delay_then_finish(std::uint32_t slot, double delay_s) {
  slots[slot].phase = Phase::kDelayThenFinish;
  set_timer(clock_s() + std::max(delay_s, 0.0), slot);
}

// An op that moves bytes: a flow, or only its delay when it moves none (no 0-byte comms).
void SimBackend::Impl::start_op_flow(std::uint32_t slot, double delay_s) {
  if (whole_bytes(slots[slot].bytes) <= 0)
    delay_then_finish(slot, delay_s);
  else
    start_flow(slot, delay_s);
}

// A flow of `slots[slot].bytes` over its route after `delay_s`. Alone on all its links, its
// time is closed-form (bytes / narrowest bandwidth) and needs no SimGrid comm: that is
// what max-min sharing would give. When another flow later joins one of its links, it
// becomes a SimGrid comm for its remaining bytes, so SimGrid does every real sharing. It
// takes its links when its bytes start to move: during its delay it shares nothing, so a
// flow that starts meanwhile may still run alone.
void SimBackend::Impl::start_flow(std::uint32_t slot, double delay_s) {
  Slot& s = slots[slot];
  s.bytes = whole_bytes(s.bytes);
  if (delay_s > 0) {
    s.comm_start_s = clock_s() + delay_s;
    s.phase = Phase::kDelayThenFlow;
    set_timer(s.comm_start_s, slot);
    return;
  }
  const Route& r = routes[s.route];
  const std::uint32_t* first = route_links.data() + r.link_begin;
  const std::uint32_t* last = first + r.link_count;
  bool alone = options.closed_form_uncontended;
  for (const std::uint32_t* l = first; l != last && alone; ++l) alone = links[*l].flows == 0;
  if (!alone)
    for (const std::uint32_t* l = first; l != last; ++l)
      if (links[*l].closed_form != kNoSlot) to_comm(links[*l].closed_form);
  for (const std::uint32_t* l = first; l != last; ++l) {
    ++links[*l].flows;
    if (alone) links[*l].closed_form = slot;
  }
  Slot& t = slots[slot];  // to_comm() may have grown nothing, but stay safe
  t.holds_links = true;
  t.comm_start_s = clock_s();
  if (alone) {
    t.phase = Phase::kClosedForm;
    set_timer(t.comm_start_s + t.bytes / alone_bytes_per_s(t), slot);
  } else {
    start_comm(slot);
  }
}

// A closed-form flow gets company: hand its remaining bytes to SimGrid.
void SimBackend::Impl::to_comm(std::uint32_t slot) {
  Slot& s = slots[slot];
  const Route& r = routes[s.route];
  for (std::uint32_t i = 0; i < r.link_count; ++i) {
    LinkState& link = links[route_links[r.link_begin + i]];
    if (link.closed_form == slot) link.closed_form = kNoSlot;
  }
  const double now_s = clock_s();
  const double remaining = s.bytes - (now_s - s.comm_start_s) * alone_bytes_per_s(s);
  if (remaining < 1) return;  // ends now anyway: let its timer end it
  cancel_timer(slot);
  s.bytes = remaining;
  start_comm(slot);
}

void SimBackend::Impl::release_links(std::uint32_t slot) {
  Slot& s = slots[slot];
  if (!s.holds_links) return;
  const Route& r = routes[s.route];
  for (std::uint32_t i = 0; i < r.link_count; ++i) {
    LinkState& link = links[route_links[r.link_begin + i]];
    --link.flows;
    if (link.closed_form == slot) link.closed_form = kNoSlot;
  }
  s.holds_links = false;
}

void SimBackend::Impl::finish(std::uint32_t slot) {
  Slot& s = slots[slot];
  release_links(slot);
  if (s.copy_lane >= 0) {
    copy_lanes_busy[s.copy_on] &= ~(1u << s.copy_lane);
    s.copy_lane = -1;
  }
  if (s.io_cpu != kNoDevice) {
    disk_io_ended(s.io_cpu);
    s.io_cpu = kNoDevice;
  }
  if (s.dispatch_on != kNoDevice) {
    if (--dispatches_on[s.dispatch_on] == 0) compute_host[s.dispatch_on]->set_pstate(0);
    s.dispatch_on = kNoDevice;
  }
  if (s.computing_on != kNoDevice) {
    const DeviceId cpu = std::exchange(s.computing_on, kNoDevice);
    --compute_ops_on[cpu];
    compute_load_changed(cpu);
  }
  if (s.sequential_on != kNoDevice) {
    const DeviceId disk = s.sequential_on;
    s.sequential_on = kNoDevice;
    // From one read to none (writes change route) or from two to one (reads do).
    if (--sequential_reads[disk] <= 1) reroute_disk_transfers(disk);
  }
  if (s.write_on != kNoDevice) {
    const DeviceId disk = s.write_on;
    s.write_on = kNoDevice;
    if (--sequential_writes[disk] == 0) reroute_disk_transfers(disk);
  }
  if (s.random_on != kNoDevice) {
    const DeviceId disk = s.random_on;
    s.random_on = kNoDevice;
    if (--random_reads[disk] == 0) reroute_disk_transfers(disk);
  }
  s.timer = 0;
  const OpId op = s.op;
  const TimeNs start_ns = s.start_ns;
  s.phase = Phase::kFree;
  free_slots.push_back(slot);
  --in_flight;
  if (error) return;  // a failed run drains without reporting
  // An exception must not unwind through SimGrid's run loop (it leaves the engine broken
  // and the process crashes at exit): keep it, drain, and rethrow from run_until_idle().
  try {
    const double now_s = clock_s();
    const TimeNs end_ns =
        now_s <= kMostSimulatedSeconds ? clock_ns() : simulated_ns(now_s, *graph, op);
    sink->on_op_completed(op, start_ns, end_ns);
  } catch (...) {
    error = std::current_exception();
  }
}

// How long a launched op waited for its stream after it became ready.
double SimBackend::Impl::waited_s(const OpLaunch& launch) const {
  const TimeNs waited_ns = clock_ns() - launch.ready_ns;
  return waited_ns > 0 ? ns_to_seconds(waited_ns) : 0.0;
}

// A compute op: its roofline time (GPUs: less what waiting for its stream hid) as work on
// its device's host.
void SimBackend::Impl::launch_compute(std::uint32_t slot, const OpLaunch& launch) {
  const Op& op = *launch.op;
  if (op.fixed_time) return delay_then_finish(slot, op.seconds);  // recorded: shares nothing
  const Device& d = machine->device(launch.device);
  double seconds = SimBackend::compute_time_s(*machine, op, launch.device,
                                              core_speed(launch, &CpuModel::core_pass_speeds),
                                              core_speed(launch, &CpuModel::core_gemm_speeds));
  if (d.kind == DeviceKind::kGpu)
    seconds = gpu_op_time_s(d.gpu, seconds - d.gpu.launch_s, waited_s(launch));
  if (seconds > 0) {
    start_exec(slot, compute_host[launch.device], seconds, exec_bound[launch.device]);
    if (machine->device(launch.device).kind == DeviceKind::kCpu) {
      slots[slot].computing_on = launch.device;
      ++compute_ops_on[launch.device];
      compute_load_changed(launch.device);
    }
  } else
    delay_then_finish(slot, 0);
}

// A host dispatch: the program thread's time, on its own host or on the compute cores.
void SimBackend::Impl::launch_host_dispatch(std::uint32_t slot, const OpLaunch& launch) {
  const Op& op = *launch.op;
  if (op.fixed_time) return delay_then_finish(slot, op.seconds);  // one recorded thread's time
  sg4::Host* host =
      options.dispatch_on_compute_cores && machine->device(launch.device).kind == DeviceKind::kCpu
          ? compute_host[launch.device]
          : program_host[launch.device];
  if (host == nullptr)
    throw std::invalid_argument("SimBackend: host dispatch on '" +
                                machine->device(launch.device).name + "', not a CPU");
  const bool pooled = host == compute_host[launch.device] && exec_bound[launch.device] > 0;
  if (op.seconds > 0) {
    start_exec(slot, host, op.seconds, pooled ? exec_bound[launch.device] : 0.0,
               /*first=*/true);
    if (pooled) {
      if (dispatches_on[launch.device]++ == 0) host->set_pstate(1);
      slots[slot].dispatch_on = launch.device;
    }
  } else
    delay_then_finish(slot, 0);
}

// A copy: its route's latency and the copy engine's launch, then its bytes as a flow; a
// memcpy within one CPU's memory as a CPU thread's work or on a copy lane of its own.
void SimBackend::Impl::launch_copy(std::uint32_t slot, const OpLaunch& launch) {
  const Op& op = *launch.op;
  const Device& src = machine->device(op.device);
  if (options.cpu_copies_on_compute_cores && op.device == op.peer && src.kind == DeviceKind::kCpu) {
    // A memcpy is a CPU thread's work: it takes a core at half the DRAM bandwidth.
    double bytes_per_s = src.cpu.dram.bytes_per_s() / 2;
    if (src.cpu.copy_stream_bytes_per_s_for(op.bytes) > 0)
      bytes_per_s = std::min(bytes_per_s, src.cpu.copy_stream_bytes_per_s_for(op.bytes));
    bytes_per_s *= core_speed(launch, &CpuModel::core_copy_speeds);
    // A host memcpy first pays a DRAM first access, as a memory-bound pass does.
    const double seconds = src.cpu.dram.first_access_s + op.bytes / bytes_per_s;
    if (op.bytes > 0)
      start_exec(slot, compute_host[op.device], seconds, exec_bound[op.device]);
    else
      delay_then_finish(slot, 0);
    return;
  }
  std::uint32_t route = find_route(op.device, op.peer, kCopyRoute);
  Slot& s = slots[slot];
  if (op.device == op.peer && src.kind == DeviceKind::kCpu) {
    s.flow_cap_bytes_per_s = src.cpu.copy_stream_bytes_per_s_for(op.bytes) *
                             core_speed(launch, &CpuModel::core_copy_speeds);
    // A free lane keeps that rate beside other copies (SimGrid ignores Comm::set_rate).
    const auto& lanes = copy_lanes[op.device];
    for (int lane = 0; lane < static_cast<int>(lanes.size()); ++lane) {
      if (copy_lanes_busy[op.device] & (1u << lane)) continue;
      copy_lanes_busy[op.device] |= 1u << lane;
      s.copy_lane = lane;
      s.copy_on = op.device;
      // Copies of a size that runs faster together share the membus faster: the copy
      // moves its bytes scaled by its size's DRAM use, and its lane by as much, so that
      // alone it still keeps its own rate.
      const double dram_use = src.cpu.copy_dram_use_per_byte(op.bytes);
      s.bytes *= dram_use;
      s.flow_cap_bytes_per_s *= dram_use;
      if (s.flow_cap_bytes_per_s > 0) lanes[lane]->set_bandwidth(s.flow_cap_bytes_per_s);
      route = find_route(op.device, op.peer, static_cast<std::uint8_t>(kCopyLaneRoute + lane));
      break;
    }
  }
  s.route = route;
  // A GPU's copy engine drives it: the source's, else the destination's.
  // A copy that waited behind its engine was enqueued meanwhile: the wait hides its launch.
  const Device& dst = machine->device(op.peer);
  const double copy_launch_s = src.kind == DeviceKind::kGpu   ? src.gpu.copy_launch_s
                               : dst.kind == DeviceKind::kGpu ? dst.gpu.copy_launch_s
                                                              : 0.0;
  const double launch_s = launch_left_s(copy_launch_s, waited_s(launch));
  // A host memcpy first pays a DRAM first access, as a memory-bound pass does.
  const bool host_memcpy = op.device == op.peer && src.kind == DeviceKind::kCpu;
  const double cold_s = host_memcpy ? src.cpu.dram.first_access_s : 0.0;
  // A kernel copy's step delay (a collective protocol's per-step cost: flags, a proxy's turn)
  // runs while the step waits behind the channel's previous one, as NCCL overlaps its steps
  // through the buffer slots it keeps per connection (unless nothing overlaps it there:
  // serial_step_delay); a DMA copy's delay is its own.
  const double step_s = op.kernel_copy && !op.serial_step_delay
                            ? launch_left_s(op.seconds, waited_s(launch))
                            : op.seconds;
  const double route_s = op.continues_transfer ? 0.0 : routes[route].latency_s;
  start_op_flow(slot, route_s + launch_s + cold_s + step_s);
}

// A disk read or write: counted on its disk first (transfers there may change route), then
// its access time and its bytes as a flow, or random reads request by request.
void SimBackend::Impl::launch_disk_op(std::uint32_t slot, const OpLaunch& launch) {
  const Op& op = *launch.op;
  const bool write = op.kind == OpKind::kDiskWrite;
  const std::uint32_t route = write ? find_route(op.peer, op.device, kDiskWriteRoute)
                                    : find_route(op.device, op.peer, kDiskReadRoute);
  const DiskModel& disk = machine->device(op.device).disk;
  const bool random = op.pattern == AccessPattern::kRandom && op.block_bytes > 0;
  Slot& s = slots[slot];
  s.route = route;
  const Device& memory = machine->device(op.peer);
  if (memory.kind == DeviceKind::kCpu && memory.cpu.disk_io_cores > 0) {
    s.io_cpu = op.peer;
    disk_io_started(op.peer);
  }
  if (sequential_reads.size() < machine->devices().size()) {
    sequential_reads.resize(machine->devices().size(), 0);
    random_reads.resize(machine->devices().size(), 0);
    sequential_writes.resize(machine->devices().size(), 0);
  }
  // Counted first, so that transfers already running see this one (and it them).
  if (!random && !write) {
    s.sequential_on = op.device;
    s.read_to = op.peer;
    s.disk_speed = disk_speed(op.peer, false);
    if (sequential_reads[op.device]++ <= 1) reroute_disk_transfers(op.device);
    s.route = sequential_read_route(op.device, op.peer);
  }
  if (!random && write) {
    s.write_on = op.device;
    s.write_from = op.peer;
    s.disk_speed = disk_speed(op.peer, true);
    if (sequential_writes[op.device]++ == 0) reroute_disk_transfers(op.device);
    s.route = sequential_write_route(op.device, op.peer);
  }
  if (random && !write) {
    s.random_on = op.device;
    if (random_reads[op.device]++ == 0) reroute_disk_transfers(op.device);
  }
  s.bytes /= s.disk_speed;
  const double requests = random ? std::ceil(op.bytes / op.block_bytes) : 0;
  if (random && !write && disk.random_read_wait_beside_sequential_s > 0 && requests >= 1) {
    // Request by request: each waits behind whatever sequential reads run at its time.
    s.phase = Phase::kDiskRequests;
    s.requests_left = static_cast<std::uint32_t>(std::min(requests, 4e9));
    s.disk = op.device;
    set_timer(clock_s() + random_read_s(op.device), slot);
    return;
  }
  double access_s = disk.access_s;
  if (random) access_s = requests / (write ? disk.write_iops : disk.read_iops);
  start_op_flow(slot, access_s + routes[route].latency_s);
}

}  // namespace opsim
