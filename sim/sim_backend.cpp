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

namespace sg4 = simgrid::s4u;

namespace opsim {
namespace {

// Compute hosts run "work" at this many units per simulated second, so that an op's work is
// its duration × kWorkPerSecond: large enough that SimGrid's work-amount precision (1e-5)
// is far below a nanosecond.
constexpr double kWorkPerSecond = 1e9;
// An exec's share weight that outweighs any number of others (max-min with weights: it
// reaches its bound before the rest share what is left).
constexpr double kFirstPriority = 1e6;
// Makes CM02's TCP window bound (gamma / 2·latency) irrelevant; links have zero latency.
constexpr double kHugeTcpGamma = 1e30;

// Route kinds: the same (src, dst) pair routes differently for a copy and a disk op.
// The Beside routes: a disk transfer's path plus a link of the disk's at the rate a
// sequential read keeps while random reads or writes run there, or a sequential write while
// reads run (DiskModel); a transfer moves onto one for as long as that lasts. (A link,
// because SimGrid 3.32 ignores Comm::set_rate on host-to-host comms.)
enum RouteTag : std::uint8_t {
  kCopyRoute = 0,
  kDiskReadRoute = 1,
  kDiskWriteRoute = 2,
  kDiskReadBesideRandomRoute = 3,
  kDiskReadBesideWriteRoute = 4,
  kDiskWriteBesideReadRoute = 5,
  // Two or more sequential reads at once: their path without the media's one-read rate,
  // through a link at the rate they get together.
  kDiskReadsTogetherRoute = 6,
  // A memcpy within one CPU's memory that must keep its own size's rate (one memcpy
  // thread's, CpuModel::copy_stream_rates) beside others: its membus plus a lane link of
  // its own, set to that rate while the copy runs. Tags kCopyLaneRoute .. + kCopyLanes - 1.
  kCopyLaneRoute = 7
};
constexpr int kCopyLanes = 8;
constexpr double kUnboundedLaneBytesPerS = 1e18;

struct RouteEntry {
  DeviceId dst = kNoDevice;
  std::uint8_t tag = kCopyRoute;
  std::uint32_t route = 0;
};

struct Route {
  sg4::Host* source = nullptr;   // its StarZone up-route is the whole path
  double latency_s = 0;          // sum of opsim link latencies, applied as a delay
  double bytes_per_s = 0;        // narrowest link: the rate of a flow alone on the path
  std::uint32_t link_begin = 0;  // its links in Impl::route_links
  std::uint32_t link_count = 0;
  double flow_cap_bytes_per_s = 0;  // most one flow may take (a memcpy thread); 0: none
  double path_bytes_per_s = 0;      // bytes_per_s before the flow cap
};

constexpr std::uint32_t kNoSlot = UINT32_MAX;

// Flows currently on one SimGrid link (one direction of an opsim link), and the flow that
// runs there in closed form, if any.
struct LinkState {
  std::uint32_t flows = 0;
  std::uint32_t closed_form = kNoSlot;
};

// What a launched op is doing; indexed by a slot number stored in the activity's data.
enum class Phase : std::uint8_t {
  kFree,
  kDelayThenComm,    // a timer starts the comm
  kDelayThenFinish,  // a timer ends the op
  kActivity,         // a SimGrid exec or comm runs it
  kClosedForm,       // a flow alone on its links: a timer ends it at bytes / rate
  kDiskRequests,     // random reads, one timer per request (each may queue behind others)
};

struct Slot {
  sg4::ActivityPtr activity;  // kept alive until it completes
  simgrid::kernel::timer::Timer* timer = nullptr;
  TimeNs start_ns = 0;
  double bytes = 0;
  double comm_start_s = 0;  // when the flow's bytes start moving (after its delay)
  OpId op = 0;
  std::uint32_t route = 0;
  // A memcpy's own cap (one thread's rate at this op's size); 0: its route's.
  double flow_cap_bytes_per_s = 0;
  int copy_lane = -1;            // the lane (kCopyLaneRoute) this memcpy holds; -1: none
  DeviceId copy_on = kNoDevice;  // the CPU whose lane it is
  Phase phase = Phase::kFree;
  bool holds_links = false;            // counted in LinkState::flows
  std::uint32_t requests_left = 0;     // kDiskRequests: random reads still to serve
  DeviceId disk = kNoDevice;           // kDiskRequests: the disk they go to
  DeviceId sequential_on = kNoDevice;  // a sequential read: counted on this disk
  DeviceId random_on = kNoDevice;      // a random read: counted on this disk until it ends
  DeviceId read_to = kNoDevice;        // a disk read: the memory it reads into
  DeviceId write_on = kNoDevice;       // a sequential write: counted on this disk
  DeviceId write_from = kNoDevice;     // a disk write: the memory it writes from
  DeviceId io_cpu = kNoDevice;         // a disk op: the CPU whose cores its I/O takes from
  DeviceId dispatch_on = kNoDevice;    // a host dispatch: the pooled CPU it runs on
  DeviceId computing_on = kNoDevice;   // a compute op on a CPU: counted in compute_ops_on
  // A sequential disk transfer's speed beside the compute running now (CpuModel::
  // disk_speed_beside_compute): `bytes` is what is left over that speed, so that a flow at
  // its route's rate moves the real bytes at the rate times the speed.
  double disk_speed = 1.0;
};

SimBackend* g_active_backend = nullptr;

void* slot_to_data(std::uint32_t slot) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(slot) + 1);
}

}  // namespace

struct SimBackend::Impl {
  SimBackendOptions options;
  std::unique_ptr<sg4::Engine> engine;
  const Machine* machine = nullptr;
  const StreamTable* streams = nullptr;
  const OpGraph* graph = nullptr;
  CompletionSink* sink = nullptr;

  std::vector<sg4::Host*> compute_host;  // per device (CPU, GPU, disk)
  // Per CPU whose memcpy rate depends on size: its kCopyLanes lane links, which are busy.
  std::vector<std::vector<sg4::Link*>> copy_lanes;
  std::vector<std::uint32_t> copy_lanes_busy;
  // Per device: a bound on each exec when its host is one pooled core (a CPU whose streams
  // slow down when all are busy); 0: none.
  std::vector<double> exec_bound;
  // Per pooled CPU: host dispatches running on it. While any does, the host is in pstate 1.
  std::vector<int> dispatches_on;
  std::vector<int> compute_ops_on;       // per CPU: compute ops running on its cores
  std::vector<sg4::Host*> program_host;  // per CPU: the issuing program's thread
  sg4::Host* sink_host = nullptr;        // destination of every comm
  std::vector<Route> routes;
  std::vector<std::vector<RouteEntry>> routes_from;  // per source device, few entries
  std::vector<std::uint32_t> route_links;            // link indices of every route
  std::vector<LinkState> links;                      // per SimGrid link we created

  std::vector<Slot> slots;
  std::vector<std::uint32_t> free_slots;
  std::vector<std::uint32_t> sequential_reads;   // per disk: sequential reads running now
  std::vector<std::uint32_t> random_reads;       // per disk: random reads running now
  std::vector<std::uint32_t> sequential_writes;  // per disk: sequential writes running now
  std::vector<std::uint32_t> disk_ops_on_cpu;    // per CPU: disk ops into or out of its memory
  std::vector<sg4::ActivityPtr> disk_io_load;    // per CPU: the I/O's work on its cores
  sg4::ActivityPtr retired;  // the last completed activity, dropped at the next safe point
  // Comms moved to another route: SimGrid signals their end later, so they stay alive until
  // the run ends.
  std::vector<sg4::ActivityPtr> cancelled;
  std::exception_ptr error;  // thrown by a completion handler during the run
  std::size_t in_flight = 0;

  std::uint32_t find_route(DeviceId src, DeviceId dst, std::uint8_t tag) const {
    for (const RouteEntry& e : routes_from[src])
      if (e.dst == dst && e.tag == tag) return e.route;
    throw std::invalid_argument("SimBackend: no route prepared from '" + machine->device(src).name +
                                "' to '" + machine->device(dst).name +
                                "' (op added after prepare() on a large machine?)");
  }

  std::uint32_t alloc_slot() {
    if (!free_slots.empty()) {
      const std::uint32_t s = free_slots.back();
      free_slots.pop_back();
      return s;
    }
    slots.emplace_back();
    return static_cast<std::uint32_t>(slots.size() - 1);
  }

  // The most a flow may take, and its rate alone on its path.
  double flow_cap(const Slot& s) const {
    return s.flow_cap_bytes_per_s > 0 ? s.flow_cap_bytes_per_s
                                      : routes[s.route].flow_cap_bytes_per_s;
  }
  double alone_bytes_per_s(const Slot& s) const {
    const Route& r = routes[s.route];
    return s.flow_cap_bytes_per_s > 0 ? std::min(r.path_bytes_per_s, s.flow_cap_bytes_per_s)
                                      : r.bytes_per_s;
  }

  void set_timer(double date_s, std::uint32_t slot) {
    SimBackend* backend = g_active_backend;
    slots[slot].timer =
        simgrid::kernel::timer::Timer::set(date_s, [backend, slot] { backend->on_timer(slot); });
  }

  // `bound` > 0: the host is a pooled CPU (exec_bound). `first` (host dispatch: a busy wait
  // on the wall clock, slowed by nothing) takes its bound before the other execs share the rest.
  void start_exec(std::uint32_t slot, sg4::Host* host, double seconds, double bound = 0,
                  bool first = false) {
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

  void start_comm(std::uint32_t slot) {
    Slot& s = slots[slot];
    const auto bytes = static_cast<std::uint64_t>(std::llround(s.bytes));
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
  void delay_then_finish(std::uint32_t slot, double delay_s) {
    slots[slot].phase = Phase::kDelayThenFinish;
    set_timer(sg4::Engine::get_clock() + std::max(delay_s, 0.0), slot);
  }

  // An op that moves bytes: a flow, or only its delay when it moves none (no 0-byte comms).
  void start_op_flow(std::uint32_t slot, double delay_s) {
    if (std::llround(slots[slot].bytes) <= 0)
      delay_then_finish(slot, delay_s);
    else
      start_flow(slot, delay_s);
  }

  // A flow of `slots[slot].bytes` over its route after `delay_s`. Alone on all its links, its
  // time is closed-form (bytes / narrowest bandwidth) and needs no SimGrid comm: that is
  // what max-min sharing would give. When another flow later joins one of its links, it
  // becomes a SimGrid comm for its remaining bytes, so SimGrid does every real sharing.
  void start_flow(std::uint32_t slot, double delay_s) {
    Slot& s = slots[slot];
    s.bytes = static_cast<double>(std::llround(s.bytes));
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
    const double now_s = sg4::Engine::get_clock();
    t.comm_start_s = now_s + delay_s;
    if (alone) {
      t.phase = Phase::kClosedForm;
      set_timer(t.comm_start_s + t.bytes / alone_bytes_per_s(t), slot);
    } else if (delay_s > 0) {
      t.phase = Phase::kDelayThenComm;
      set_timer(t.comm_start_s, slot);
    } else {
      start_comm(slot);
    }
  }

  // A closed-form flow gets company: hand its remaining bytes to SimGrid.
  void to_comm(std::uint32_t slot) {
    Slot& s = slots[slot];
    const Route& r = routes[s.route];
    for (std::uint32_t i = 0; i < r.link_count; ++i) {
      LinkState& link = links[route_links[r.link_begin + i]];
      if (link.closed_form == slot) link.closed_form = kNoSlot;
    }
    const double now_s = sg4::Engine::get_clock();
    if (now_s < s.comm_start_s) {  // still in its delay: start the comm when it ends
      s.timer->remove();
      s.phase = Phase::kDelayThenComm;
      set_timer(s.comm_start_s, slot);
      return;
    }
    const double remaining = s.bytes - (now_s - s.comm_start_s) * alone_bytes_per_s(s);
    if (remaining < 1) return;  // ends now anyway: let its timer end it
    s.timer->remove();
    s.timer = nullptr;
    s.bytes = remaining;
    start_comm(slot);
  }

  // The route a sequential read from `disk` into `memory` takes now: beside writes or
  // random reads, the one through the disk's link for that when the disk has the figure.
  std::uint32_t sequential_read_route(DeviceId disk, DeviceId memory) const {
    const DiskModel& d = machine->device(disk).disk;
    if (sequential_writes[disk] > 0 && d.sequential_read_beside_write_bytes_per_s > 0)
      return find_route(disk, memory, kDiskReadBesideWriteRoute);
    if (random_reads[disk] > 0 && d.sequential_read_beside_random_bytes_per_s > 0)
      return find_route(disk, memory, kDiskReadBesideRandomRoute);
    if (sequential_reads[disk] > 1 && d.sequential_reads_together_bytes_per_s > 0)
      return find_route(disk, memory, kDiskReadsTogetherRoute);
    return find_route(disk, memory, kDiskReadRoute);
  }
  // Likewise a sequential write from `memory` onto `disk`: beside sequential reads.
  std::uint32_t sequential_write_route(DeviceId disk, DeviceId memory) const {
    if (sequential_reads[disk] > 0 &&
        machine->device(disk).disk.sequential_write_beside_read_bytes_per_s > 0)
      return find_route(memory, disk, kDiskWriteBesideReadRoute);
    return find_route(memory, disk, kDiskWriteRoute);
  }

  void release_links(std::uint32_t slot) {
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

  // What runs on `disk` changed: every sequential transfer there moves to the route of now
  // (sequential_read_route, sequential_write_route) for the bytes it has left.
  void reroute_disk_transfers(DeviceId disk) {
    const DiskModel& d = machine->device(disk).disk;
    if (d.sequential_read_beside_random_bytes_per_s <= 0 &&
        d.sequential_read_beside_write_bytes_per_s <= 0 &&
        d.sequential_write_beside_read_bytes_per_s <= 0 &&
        d.sequential_reads_together_bytes_per_s <= 0)
      return;
    for (std::uint32_t slot = 0; slot < slots.size(); ++slot) {
      const Slot& s = slots[slot];
      // (kDelayThenFinish: an op with no bytes to move, nothing to reroute.)
      if (s.phase == Phase::kFree || s.phase == Phase::kDelayThenFinish ||
          (s.sequential_on != disk && s.write_on != disk))
        continue;
      const std::uint32_t route = s.sequential_on == disk
                                      ? sequential_read_route(disk, s.read_to)
                                      : sequential_write_route(disk, s.write_from);
      if (route != s.route) move_transfer(slot, route, s.disk_speed);
    }
  }

  // A running disk transfer goes on over `route` at `speed` (Slot::disk_speed) for the bytes
  // it has left.
  void move_transfer(std::uint32_t slot, std::uint32_t route, double speed) {
    Slot& s = slots[slot];
    const double now_s = sg4::Engine::get_clock();
    double delay_s = 0;
    if (s.phase == Phase::kActivity) {
      sg4::ActivityPtr old = std::move(s.activity);
      s.bytes = old->get_remaining();
      old->set_data(nullptr);  // its cancellation is not this op's completion
      old->cancel();
      cancelled.push_back(std::move(old));
    } else {  // kClosedForm or kDelayThenComm: a timer, and the bytes moved so far
      s.timer->remove();
      s.timer = nullptr;
      if (now_s < s.comm_start_s)
        delay_s = s.comm_start_s - now_s;
      else if (s.phase == Phase::kClosedForm)
        s.bytes -= (now_s - s.comm_start_s) * alone_bytes_per_s(s);
    }
    release_links(slot);
    s.route = route;
    s.bytes *= s.disk_speed / speed;
    s.disk_speed = speed;
    if (s.bytes < 1)
      delay_then_finish(slot, delay_s);
    else
      start_flow(slot, delay_s);
  }

  // A sequential transfer's speed into or out of `memory` beside the compute ops running
  // there now; 1 when it is no CPU.
  double disk_speed(DeviceId memory, bool write) const {
    const Device& d = machine->device(memory);
    if (d.kind != DeviceKind::kCpu) return 1.0;
    return d.cpu.disk_speed_beside_compute(write, compute_ops_on[memory]);
  }

  // The compute ops running on `cpu` changed: each sequential transfer into or out of its
  // memory goes on at its new speed.
  void compute_load_changed(DeviceId cpu) {
    const CpuModel& c = machine->device(cpu).cpu;
    if (c.disk_read_speed_one_busy == 1.0 && c.disk_read_speed_all_busy == 1.0 &&
        c.disk_write_speed_one_busy == 1.0 && c.disk_write_speed_all_busy == 1.0)
      return;
    for (std::uint32_t slot = 0; slot < slots.size(); ++slot) {
      const Slot& s = slots[slot];
      if (s.phase == Phase::kFree || s.phase == Phase::kDelayThenFinish) continue;
      const bool read = s.sequential_on != kNoDevice && s.read_to == cpu;
      const bool write = s.write_on != kNoDevice && s.write_from == cpu;
      if (!read && !write) continue;
      const double speed = disk_speed(cpu, write);
      if (speed != s.disk_speed) move_transfer(slot, s.route, speed);
    }
  }

  // How long a launched op waited for its stream after it became ready.
  double waited_s(const OpLaunch& launch) const {
    const TimeNs waited_ns = seconds_to_ns(sg4::Engine::get_clock()) - launch.ready_ns;
    return waited_ns > 0 ? ns_to_seconds(waited_ns) : 0.0;
  }
  // The speed factor (`speeds`: CpuModel::core_pass_speeds, core_copy_speeds or
  // core_gemm_speeds) of the core the launch's stream is pinned to, as the real executor's
  // workload runs pin it; 1 off a CPU or on a floating stream.
  double core_speed(const OpLaunch& launch, std::vector<double> CpuModel::*speeds) const {
    const Device& d = machine->device(launch.device);
    if (d.kind != DeviceKind::kCpu || (d.cpu.*speeds).empty()) return 1.0;
    return CpuModel::core_speed(d.cpu.*speeds,
                                pinned_core(*machine, *streams, launch.stream, d.cpu.cores));
  }

  // One random read's time on `disk`: its own access plus, per sequential read running on
  // the disk now, the wait behind that transfer's requests.
  double random_read_s(DeviceId disk) const {
    const DiskModel& d = machine->device(disk).disk;
    return 1.0 / d.read_iops +
           static_cast<double>(sequential_reads[disk]) * d.random_read_wait_beside_sequential_s;
  }

  // A disk op into or out of `cpu`'s memory starts or ends. While any runs, the I/O takes
  // CpuModel::disk_io_cores of the CPU's cores (an exec of unbounded work with that bound,
  // sharing the cores with the compute ops): on a VM the host's I/O thread shares the
  // vCPUs' time, so two busy compute streams slow down beside a transfer and one does not.
  void disk_io_started(DeviceId cpu) {
    if (disk_ops_on_cpu.size() < machine->devices().size()) {
      disk_ops_on_cpu.resize(machine->devices().size(), 0);
      disk_io_load.resize(machine->devices().size());
    }
    if (disk_ops_on_cpu[cpu]++ > 0) return;
    const CpuModel& c = machine->device(cpu).cpu;
    const double streams = std::max(1, c.compute_streams);
    sg4::ExecPtr load = sg4::Exec::init();
    load->set_flops_amount(1e25);  // cancelled when the last disk op ends
    load->set_host(compute_host[cpu]);
    load->set_bound(c.disk_io_cores * streams / std::max(1, c.cores) * kWorkPerSecond);
    load->start();  // no data: its completion is nobody's
    disk_io_load[cpu] = load;
  }
  void disk_io_ended(DeviceId cpu) {
    if (--disk_ops_on_cpu[cpu] > 0) return;
    sg4::ActivityPtr load = std::move(disk_io_load[cpu]);
    load->cancel();
    cancelled.push_back(std::move(load));
  }

  void finish(std::uint32_t slot) {
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
    s.timer = nullptr;
    const OpId op = s.op;
    const TimeNs start_ns = s.start_ns;
    s.phase = Phase::kFree;
    free_slots.push_back(slot);
    --in_flight;
    if (error) return;  // a failed run drains without reporting
    // An exception must not unwind through SimGrid's run loop (it leaves the engine broken
    // and the process crashes at exit): keep it, drain, and rethrow from run_until_idle().
    try {
      sink->on_op_completed(op, start_ns, seconds_to_ns(sg4::Engine::get_clock()));
    } catch (...) {
      error = std::current_exception();
    }
  }
};

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
  const auto devices = machine.devices();
  const std::size_t n = devices.size();

  // A star zone stores one up-route and one down-route per host: linear in size, where a
  // full zone stores n² routes. Every route gets its own source host whose up-route is the
  // whole path, and all comms go to one sink host with an empty down-route.
  sg4::NetZone* zone = sg4::create_star_zone("opsim");
  m.compute_host.assign(n, nullptr);
  m.exec_bound.assign(n, 0.0);
  m.dispatches_on.assign(n, 0);
  m.compute_ops_on.assign(n, 0);
  m.program_host.assign(n, nullptr);
  for (DeviceId d = 0; d < n; ++d) {
    const Device& dev = devices[d];
    if (dev.kind == DeviceKind::kCpu || dev.kind == DeviceKind::kGpu ||
        dev.kind == DeviceKind::kDisk) {
      const int streams = std::max(1, dev.cpu.compute_streams);
      // A CPU whose streams slow down when all are busy: one core holding the streams'
      // capacity together (streams x the busy fraction of one stream's speed), each exec
      // bounded by one stream's speed alone. SimGrid bounds an exec by its host's core speed
      // too, so several cores cannot express this.
      const double busy =
          std::max(dev.cpu.all_streams_busy_speed, 1.0 / static_cast<double>(streams));
      const double beside = dev.cpu.beside_dispatch_speed;
      const bool pooled =
          dev.kind == DeviceKind::kCpu && streams > 1 && (busy < 1.0 || beside < 1.0);
      // Pstate 1, while a host dispatch runs: the busy wait holds a core of its own, and the
      // streams left run at beside_dispatch_speed (measured: a busy wait is a lighter
      // neighbour than a GEMM, 0.98-1.04 on this project's VM in calm minutes), times the
      // pool's busy speed only where several of them are left to contend with each other.
      const double others = static_cast<double>(streams - 1);
      const double beside_dispatch = 1.0 + others * beside * (others > 1 ? busy : 1.0);
      sg4::Host* host =
          pooled
              ? zone->create_host(dev.name, std::vector<double>{streams * busy * kWorkPerSecond,
                                                                beside_dispatch * kWorkPerSecond})
              : zone->create_host(dev.name, kWorkPerSecond);
      if (dev.kind == DeviceKind::kCpu && !pooled) host->set_core_count(streams);
      m.exec_bound[d] = pooled ? kWorkPerSecond : 0.0;
      m.compute_host[d] = host->seal();
    }
    if (dev.kind == DeviceKind::kCpu)
      m.program_host[d] = zone->create_host(dev.name + "/program", kWorkPerSecond)->seal();
  }
  m.sink_host = zone->create_host("opsim/sink", kWorkPerSecond)->seal();

  // opsim links: split duplex at bytes_per_s each way, or one shared link when half duplex.
  m.links.clear();
  std::vector<double> link_bytes_per_s;
  std::unordered_map<const sg4::Link*, std::uint32_t> link_index;
  auto index_of = [&](const sg4::Link* link) {
    auto [it, added] = link_index.emplace(link, static_cast<std::uint32_t>(m.links.size()));
    if (added) {
      m.links.emplace_back();
      link_bytes_per_s.push_back(link->get_bandwidth());
    }
    return it->second;
  };
  std::vector<sg4::Link*> up(machine.links().size());
  std::vector<sg4::Link*> down(machine.links().size());
  std::vector<sg4::Link*> duplex(machine.links().size(), nullptr);  // both ways together
  for (LinkId l = 0; l < machine.links().size(); ++l) {
    const Link& link = machine.link(l);
    if (link.model.full_duplex) {
      sg4::SplitDuplexLink* sd = zone->create_split_duplex_link(link.name, link.model.bytes_per_s);
      sd->set_latency(0)->seal();
      up[l] = sd->get_link_up();
      down[l] = sd->get_link_down();
      if (link.model.duplex_bytes_per_s > 0)
        duplex[l] = zone->create_link(link.name + "/duplex", link.model.duplex_bytes_per_s)
                        ->set_latency(0)
                        ->seal();
    } else {
      sg4::Link* shared = zone->create_link(link.name, link.model.bytes_per_s);
      shared->set_latency(0)->seal();
      up[l] = shared;
      down[l] = shared;
    }
  }

  // The routes to prepare: every (tag, src, dst) the graph's copies and disk ops use, and on
  // small machines every pair of memory devices and every disk-memory pair as well.
  std::vector<std::uint64_t> keys;
  std::unordered_set<std::uint64_t> seen;
  auto want = [&](std::uint8_t tag, DeviceId src, DeviceId dst) {
    const std::uint64_t key = (std::uint64_t{tag} << 60) | (std::uint64_t{src} << 30) | dst;
    if (seen.insert(key).second) keys.push_back(key);
  };
  // A disk's read (or write) route to `memory`, and the Beside routes its figures call for.
  auto want_disk_routes = [&](DeviceId disk, DeviceId memory, bool read) {
    const DiskModel* d = devices[disk].kind == DeviceKind::kDisk ? &devices[disk].disk : nullptr;
    if (read) {
      want(kDiskReadRoute, disk, memory);
      if (d && d->sequential_read_beside_random_bytes_per_s > 0)
        want(kDiskReadBesideRandomRoute, disk, memory);
      if (d && d->sequential_read_beside_write_bytes_per_s > 0)
        want(kDiskReadBesideWriteRoute, disk, memory);
      if (d && d->sequential_reads_together_bytes_per_s > 0)
        want(kDiskReadsTogetherRoute, disk, memory);
    } else {
      want(kDiskWriteRoute, memory, disk);
      if (d && d->sequential_write_beside_read_bytes_per_s > 0)
        want(kDiskWriteBesideReadRoute, memory, disk);
    }
  };
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    if (op.kind == OpKind::kCopy) want(kCopyRoute, op.device, op.peer);
    if (op.kind == OpKind::kCopy && op.device == op.peer &&
        devices[op.device].kind == DeviceKind::kCpu &&
        !devices[op.device].cpu.copy_stream_rates.empty())
      for (int lane = 0; lane < kCopyLanes; ++lane)
        want(static_cast<std::uint8_t>(kCopyLaneRoute + lane), op.device, op.peer);
    if (op.kind == OpKind::kDiskRead) want_disk_routes(op.device, op.peer, true);
    if (op.kind == OpKind::kDiskWrite) want_disk_routes(op.device, op.peer, false);
  }
  std::vector<DeviceId> memories;
  std::vector<DeviceId> disks;
  for (DeviceId d = 0; d < n; ++d) {
    if (devices[d].has_memory()) memories.push_back(d);
    if (devices[d].kind == DeviceKind::kDisk) disks.push_back(d);
  }
  const std::size_t pairs = memories.size() * (memories.size() + 2 * disks.size());
  const std::size_t required = keys.size();
  if (pairs <= m.options.all_pairs_limit) {
    for (DeviceId a : memories) {
      for (DeviceId b : memories) want(kCopyRoute, a, b);
      for (DeviceId disk : disks) {
        want_disk_routes(disk, a, true);
        want_disk_routes(disk, a, false);
      }
    }
  }

  std::vector<sg4::Link*> membus(n, nullptr);
  m.copy_lanes.assign(n, {});
  m.copy_lanes_busy.assign(n, 0);
  std::vector<sg4::SplitDuplexLink*> media(n, nullptr);
  // Per disk: the links of its Beside routes (RouteTag), made on first use.
  std::vector<sg4::Link*> beside_random(n, nullptr), beside_write(n, nullptr),
      beside_read(n, nullptr), reads_together(n, nullptr);
  auto beside_link = [&](std::vector<sg4::Link*>& made, DeviceId disk, const char* what,
                         double bytes_per_s) {
    if (made[disk] == nullptr)
      made[disk] =
          zone->create_link(devices[disk].name + "/" + what, bytes_per_s)->set_latency(0)->seal();
    return made[disk];
  };
  m.routes_from.assign(n, {});
  m.routes.clear();
  m.route_links.clear();
  std::vector<sg4::LinkInRoute> path;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const auto tag = static_cast<std::uint8_t>(keys[k] >> 60);
    const auto src = static_cast<DeviceId>((keys[k] >> 30) & 0x3fffffffu);
    const auto dst = static_cast<DeviceId>(keys[k] & 0x3fffffffu);
    path.clear();
    double latency_s = 0;
    try {
      const bool read = tag == kDiskReadRoute || tag == kDiskReadBesideRandomRoute ||
                        tag == kDiskReadBesideWriteRoute || tag == kDiskReadsTogetherRoute;
      const bool write = tag == kDiskWriteRoute || tag == kDiskWriteBesideReadRoute;
      if (read || write) {
        const DeviceId disk = read ? src : dst;
        if (devices[disk].kind != DeviceKind::kDisk)
          throw std::invalid_argument("SimBackend: disk op on '" + devices[disk].name +
                                      "', which is not a disk");
        if (media[disk] == nullptr) {
          // UP carries reads off the media, DOWN carries writes onto it.
          media[disk] = zone->create_split_duplex_link(devices[disk].name + "/media",
                                                       devices[disk].disk.read_bytes_per_s);
          media[disk]->get_link_down()->set_bandwidth(devices[disk].disk.write_bytes_per_s);
          media[disk]->set_latency(0)->seal();
        }
        const DiskModel& d = devices[disk].disk;
        // Reads together and reads beside random ones have measured rates of their own,
        // which may exceed one read's alone (the media link's).
        if (read && tag != kDiskReadsTogetherRoute && tag != kDiskReadBesideRandomRoute)
          path.emplace_back(media[disk]->get_link_up(), sg4::LinkInRoute::Direction::UP);
        if (tag == kDiskReadsTogetherRoute)
          path.emplace_back(beside_link(reads_together, disk, "reads-together",
                                        d.sequential_reads_together_bytes_per_s));
        if (tag == kDiskReadBesideRandomRoute)
          path.emplace_back(beside_link(beside_random, disk, "beside-random",
                                        d.sequential_read_beside_random_bytes_per_s));
        if (tag == kDiskReadBesideWriteRoute)
          path.emplace_back(beside_link(beside_write, disk, "read-beside-write",
                                        d.sequential_read_beside_write_bytes_per_s));
        if (tag == kDiskWriteBesideReadRoute)
          path.emplace_back(beside_link(beside_read, disk, "write-beside-read",
                                        d.sequential_write_beside_read_bytes_per_s));
      }
      if (src == dst) {
        // A memcpy within one memory reads and writes every byte: half the bandwidth.
        if (membus[src] == nullptr) {
          const Device& dev = devices[src];
          double bw = 0;
          if (dev.kind == DeviceKind::kGpu) bw = dev.gpu.memory_bytes_per_s;
          if (dev.kind == DeviceKind::kCpu) bw = dev.cpu.dram.bytes_per_s();
          if (bw <= 0)
            throw std::invalid_argument("SimBackend: copy within '" + dev.name +
                                        "', which has no memory");
          membus[src] = zone->create_link(dev.name + "/membus", bw / 2)->set_latency(0)->seal();
        }
        path.emplace_back(membus[src]);
        if (tag >= kCopyLaneRoute) {
          // Unbounded until a copy takes the lane and sets its rate (launch_into).
          auto& lanes = m.copy_lanes[src];
          if (lanes.empty())
            for (int lane = 0; lane < kCopyLanes; ++lane)
              lanes.push_back(
                  zone->create_link(devices[src].name + "/copy-lane-" + std::to_string(lane),
                                    kUnboundedLaneBytesPerS)
                      ->set_latency(0)
                      ->seal());
          path.emplace_back(lanes[tag - kCopyLaneRoute]);
        }
      } else {
        for (const Hop& hop : machine.route(src, dst)) {
          path.emplace_back(
              hop.forward ? up[hop.link] : down[hop.link],
              hop.forward ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
          if (duplex[hop.link] != nullptr) path.emplace_back(duplex[hop.link]);
          latency_s += machine.link(hop.link).model.latency_s;
        }
      }
      if (write) path.emplace_back(media[dst]->get_link_down(), sg4::LinkInRoute::Direction::DOWN);
    } catch (const std::invalid_argument&) {
      if (k < required) throw;  // the graph needs it
      continue;                 // an optional pair that has no route
    }
    const auto route = static_cast<std::uint32_t>(m.routes.size());
    sg4::Host* source =
        zone->create_host("opsim/route" + std::to_string(route), kWorkPerSecond)->seal();
    zone->add_route(source->get_netpoint(), nullptr, nullptr, nullptr, path, false);
    Route r{source, latency_s, std::numeric_limits<double>::infinity(),
            static_cast<std::uint32_t>(m.route_links.size()), 0};
    for (const sg4::LinkInRoute& hop : path) {
      const std::uint32_t l = index_of(hop.get_link());
      m.route_links.push_back(l);
      r.bytes_per_s = std::min(r.bytes_per_s, link_bytes_per_s[l]);
    }
    r.link_count = static_cast<std::uint32_t>(m.route_links.size()) - r.link_begin;
    r.path_bytes_per_s = r.bytes_per_s;
    if (src == dst && devices[src].kind == DeviceKind::kCpu &&
        devices[src].cpu.copy_stream_bytes_per_s > 0) {
      // One memcpy thread copies at most this fast, however idle the DRAM.
      r.flow_cap_bytes_per_s = devices[src].cpu.copy_stream_bytes_per_s;
      r.bytes_per_s = std::min(r.bytes_per_s, r.flow_cap_bytes_per_s);
    }
    m.routes.push_back(r);
    m.routes_from[src].push_back(RouteEntry{dst, tag, route});
  }
  zone->seal();
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
        const double seconds = src.cpu.dram.first_access_s + op.bytes / bytes_per_s;
        if (op.bytes > 0)
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
      // A host memcpy first pays a DRAM first access, as a memory-bound pass does.
      const bool host_memcpy = op.device == op.peer && src.kind == DeviceKind::kCpu;
      const double cold_s = host_memcpy ? src.cpu.dram.first_access_s : 0.0;
      m.start_op_flow(slot, m.routes[route].latency_s + launch_s + cold_s);
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
