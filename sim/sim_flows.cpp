// The flow engine: execs on compute hosts, comms and closed-form flows over routes, and
// what happens when an op ends.
#include <algorithm>
#include <cmath>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <stdexcept>
#include <utility>

#include "sim/sim_backend_impl.hpp"

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

void SimBackend::Impl::set_timer(double date_s, std::uint32_t slot) {
  SimBackend* backend = g_active_backend;
  slots[slot].timer =
      simgrid::kernel::timer::Timer::set(date_s, [backend, slot] { backend->on_timer(slot); });
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
void SimBackend::Impl::delay_then_finish(std::uint32_t slot, double delay_s) {
  slots[slot].phase = Phase::kDelayThenFinish;
  set_timer(sg4::Engine::get_clock() + std::max(delay_s, 0.0), slot);
}

// An op that moves bytes: a flow, or only its delay when it moves none (no 0-byte comms).
void SimBackend::Impl::start_op_flow(std::uint32_t slot, double delay_s) {
  if (std::llround(slots[slot].bytes) <= 0)
    delay_then_finish(slot, delay_s);
  else
    start_flow(slot, delay_s);
}

// A flow of `slots[slot].bytes` over its route after `delay_s`. Alone on all its links, its
// time is closed-form (bytes / narrowest bandwidth) and needs no SimGrid comm: that is
// what max-min sharing would give. When another flow later joins one of its links, it
// becomes a SimGrid comm for its remaining bytes, so SimGrid does every real sharing.
void SimBackend::Impl::start_flow(std::uint32_t slot, double delay_s) {
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
void SimBackend::Impl::to_comm(std::uint32_t slot) {
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

// How long a launched op waited for its stream after it became ready.
double SimBackend::Impl::waited_s(const OpLaunch& launch) const {
  const TimeNs waited_ns = seconds_to_ns(sg4::Engine::get_clock()) - launch.ready_ns;
  return waited_ns > 0 ? ns_to_seconds(waited_ns) : 0.0;
}

}  // namespace opsim
