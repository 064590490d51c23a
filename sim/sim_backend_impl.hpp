// Inside the SimGrid backend: the state SimBackend::Impl keeps (the platform's hosts, links
// and routes; the slots of the ops in flight; what runs on each disk and CPU), shared by the
// files that implement it:
//   sim_backend.cpp       the Backend interface: engine, prepare, launch, completion, run
//   sim_platform.cpp      the platform builder: SimGrid hosts, links and routes from a Machine
//   sim_flows.cpp         the flow engine: execs, comms and closed-form flows, completion
//   sim_interference.cpp  how concurrent ops slow each other: disk transfers beside other
//                         disk ops and beside compute, disk I/O taking CPU cores, per-core
//                         speeds
// Only these files include it (and tests/sim/timer_queue_test.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <vector>

#include "engine/op_graph.hpp"
#include "engine/stream_table.hpp"
#include "hw_models/machine.hpp"
#include "sim/sim_backend.hpp"

namespace opsim {

namespace sg4 = simgrid::s4u;

namespace sim_internals {

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

// A timer that ends a delay or a closed-form flow: due at `date_s`, for `slot`. `id` orders
// timers due at the same date (first set, first run) and tells a cancelled one: it runs only
// while its slot's Slot::timer still holds it.
struct PendingTimer {
  double date_s = 0;
  std::uint64_t id = 0;
  std::uint32_t slot = 0;
};

// The ops' timers, in a queue of our own behind one SimGrid timer set at the earliest date.
// SimGrid keeps each timer in a Fibonacci heap node of its own with a callback object: at
// 2048 copies per ring step that heap cost five times the rest of the simulation. Timers due
// at the same date run in the order they were set (SimGrid's heap ran them in an order of its
// own; docs/collectives.md, "Scale", lists the figures where that order shows).
class TimerQueue {
 public:
  /// A new timer's id (never 0), due at `date_s`.
  std::uint64_t push(double date_s, std::uint32_t slot);
  bool empty() const { return heap_.empty() && lane_count_ == 0; }
  /// The earliest timer (by date, then id). Not on an empty queue.
  const PendingTimer& top() const { return from_lane() ? lane_[lane_head_] : heap_.front(); }
  void pop();

 private:
  struct Later {
    bool operator()(const PendingTimer& a, const PendingTimer& b) const {
      return a.date_s != b.date_s ? a.date_s > b.date_s : a.id > b.id;
    }
  };
  bool from_lane() const {
    return lane_count_ > 0 && (heap_.empty() || !Later{}(lane_[lane_head_], heap_.front()));
  }
  const PendingTimer& lane_back() const {
    return lane_[(lane_head_ + lane_count_ - 1) & (lane_.size() - 1)];
  }
  void grow_lane();
  // Timers set in date order (each due no earlier than the one set before it) wait in
  // `lane_`, a circular queue of lane_count_ from lane_head_ (its size a power of two); the
  // others in a binary heap. Most are in order: a ring step's copies all end at one date,
  // after the step before.
  std::vector<PendingTimer> lane_;
  std::size_t lane_head_ = 0;
  std::size_t lane_count_ = 0;
  std::vector<PendingTimer> heap_;
  std::uint64_t last_id_ = 0;
};

// What a launched op is doing; indexed by a slot number stored in the activity's data.
enum class Phase : std::uint8_t {
  kFree,
  kDelayThenFlow,    // a timer starts the flow (it takes its links then)
  kDelayThenFinish,  // a timer ends the op
  kActivity,         // a SimGrid exec or comm runs it
  kClosedForm,       // a flow alone on its links: a timer ends it at bytes / rate
  kDiskRequests,     // random reads, one timer per request (each may queue behind others)
};

struct Slot {
  sg4::ActivityPtr activity;  // kept alive until it completes
  std::uint64_t timer = 0;    // its pending timer (TimerQueue::push), 0: none
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

// static_cast<double>(std::llround(bytes)) (halves away from zero) without the libm call,
// which cost as much as the rest of a closed-form flow: exact below 2^52, where a double's
// fraction and its integer part are exact; above, bytes is whole already.
inline double whole_bytes(double bytes) {
  constexpr double kAllWhole = 4503599627370496.0;  // 2^52
  if (!(std::fabs(bytes) < kAllWhole)) return static_cast<double>(std::llround(bytes));
  const double truncated = static_cast<double>(static_cast<std::int64_t>(bytes));
  const double fraction = bytes - truncated;
  return fraction >= 0.5 ? truncated + 1 : fraction <= -0.5 ? truncated - 1 : truncated;
}

// The backend whose SimGrid Engine runs in this process (one per process).
inline SimBackend* g_active_backend = nullptr;

inline void* slot_to_data(std::uint32_t slot) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(slot) + 1);
}

}  // namespace sim_internals

struct SimBackend::Impl {
  using Route = sim_internals::Route;
  using RouteEntry = sim_internals::RouteEntry;
  using LinkState = sim_internals::LinkState;
  using Slot = sim_internals::Slot;

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
  sim_internals::TimerQueue timers;
  // The one SimGrid timer that runs the due timers, and its date; null: none set.
  simgrid::kernel::timer::Timer* engine_timer = nullptr;
  double engine_timer_date_s = 0;
  bool running_timers = false;
  double timers_now_s = 0;  // the clock while running_timers  // inside run_due_timers(): it sets
                            // the SimGrid timer at its end
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
  // SimGrid's clock and seconds_to_ns() of it: an op's launch, its end and the scheduler ask
  // for the time in nanoseconds several times at one date.
  mutable double cached_clock_s = -1;
  mutable TimeNs cached_clock_ns = 0;
  // SimGrid's clock; inside run_due_timers() (the clock stands still there) the date it
  // read once, as the getter costs a tenth of a ring copy's simulation.
  double clock_s() const { return running_timers ? timers_now_s : sg4::Engine::get_clock(); }
  TimeNs clock_ns() const {
    const double now_s = clock_s();
    if (now_s != cached_clock_s) {
      cached_clock_ns = seconds_to_ns(now_s);
      cached_clock_s = now_s;
    }
    return cached_clock_ns;
  }
  std::size_t in_flight = 0;

  // The platform builder (sim_platform.cpp): hosts, links and the routes the graph needs.
  class PlatformBuilder;
  void build_platform(const OpGraph& graph);

  // The flow engine (sim_flows.cpp): what a launched op of each kind starts, ...
  void launch_compute(std::uint32_t slot, const OpLaunch& launch);
  void launch_host_dispatch(std::uint32_t slot, const OpLaunch& launch);
  void launch_copy(std::uint32_t slot, const OpLaunch& launch);
  void launch_disk_op(std::uint32_t slot, const OpLaunch& launch);
  // ... and how flows and execs run and end.
  std::uint32_t find_route(DeviceId src, DeviceId dst, std::uint8_t tag) const;
  std::uint32_t alloc_slot();
  // The most a flow may take, and its rate alone on its path.
  double flow_cap(const Slot& s) const;
  double alone_bytes_per_s(const Slot& s) const;
  void set_timer(double date_s, std::uint32_t slot);
  // Forgets the slot's pending timer, if any.
  void cancel_timer(std::uint32_t slot);
  // Sets (or moves) the one SimGrid timer to the earliest live timer's date.
  void schedule_engine_timer();
  // The SimGrid timer fired: runs every live timer due now, by date, then in set order.
  void run_due_timers();
  // `bound` > 0: the host is a pooled CPU (exec_bound). `first` (host dispatch: a busy wait
  // on the wall clock, slowed by nothing) takes its bound before the other execs share the rest.
  void start_exec(std::uint32_t slot, sg4::Host* host, double seconds, double bound = 0,
                  bool first = false);
  void start_comm(std::uint32_t slot);
  // Ends `slot` after `delay_s` (never synchronously inside launch()).
  void delay_then_finish(std::uint32_t slot, double delay_s);
  // An op that moves bytes: a flow, or only its delay when it moves none (no 0-byte comms).
  void start_op_flow(std::uint32_t slot, double delay_s);
  // A flow of `slots[slot].bytes` over its route after `delay_s`. Alone on all its links, its
  // time is closed-form (bytes / narrowest bandwidth) and needs no SimGrid comm: that is
  // what max-min sharing would give. When another flow later joins one of its links, it
  // becomes a SimGrid comm for its remaining bytes, so SimGrid does every real sharing.
  void start_flow(std::uint32_t slot, double delay_s);
  // A closed-form flow gets company: hand its remaining bytes to SimGrid.
  void to_comm(std::uint32_t slot);
  void release_links(std::uint32_t slot);
  void finish(std::uint32_t slot);
  // How long a launched op waited for its stream after it became ready.
  double waited_s(const OpLaunch& launch) const;

  // Interference rules (sim_interference.cpp).
  // The route a sequential read from `disk` into `memory` takes now: beside writes or
  // random reads, the one through the disk's link for that when the disk has the figure.
  std::uint32_t sequential_read_route(DeviceId disk, DeviceId memory) const;
  // Likewise a sequential write from `memory` onto `disk`: beside sequential reads.
  std::uint32_t sequential_write_route(DeviceId disk, DeviceId memory) const;
  // What runs on `disk` changed: every sequential transfer there moves to the route of now
  // (sequential_read_route, sequential_write_route) for the bytes it has left.
  void reroute_disk_transfers(DeviceId disk);
  // A running disk transfer goes on over `route` at `speed` (Slot::disk_speed) for the bytes
  // it has left.
  void move_transfer(std::uint32_t slot, std::uint32_t route, double speed);
  // A sequential transfer's speed into or out of `memory` beside the compute ops running
  // there now; 1 when it is no CPU.
  double disk_speed(DeviceId memory, bool write) const;
  // The compute ops running on `cpu` changed: each sequential transfer into or out of its
  // memory goes on at its new speed.
  void compute_load_changed(DeviceId cpu);
  // The speed factor (`speeds`: CpuModel::core_pass_speeds, core_copy_speeds or
  // core_gemm_speeds) of the core the launch's stream is pinned to, as the real executor's
  // workload runs pin it; 1 off a CPU or on a floating stream.
  double core_speed(const OpLaunch& launch, std::vector<double> CpuModel::*speeds) const;
  // One random read's time on `disk`: its own access plus, per sequential read running on
  // the disk now, the wait behind that transfer's requests.
  double random_read_s(DeviceId disk) const;
  // A disk op into or out of `cpu`'s memory starts or ends. While any runs, the I/O takes
  // CpuModel::disk_io_cores of the CPU's cores (an exec of unbounded work with that bound,
  // sharing the cores with the compute ops): on a VM the host's I/O thread shares the
  // vCPUs' time, so two busy compute streams slow down beside a transfer and one does not.
  void disk_io_started(DeviceId cpu);
  void disk_io_ended(DeviceId cpu);
};

}  // namespace opsim
