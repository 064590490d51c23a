// Interference rules: how ops running at once slow each other beyond sharing links and
// cores fairly. Disk transfers change route beside random reads, writes and other reads;
// they slow beside compute; disk I/O takes CPU cores; a stream runs at its core's speed.
#include <algorithm>
#include <cmath>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <stdexcept>
#include <utility>

#include "sim/sim_backend_impl.hpp"

namespace opsim {

using namespace sim_internals;

// The route a sequential read from `disk` into `memory` takes now: beside writes or
// random reads, the one through the disk's link for that when the disk has the figure.
std::uint32_t SimBackend::Impl::sequential_read_route(DeviceId disk, DeviceId memory) const {
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
std::uint32_t SimBackend::Impl::sequential_write_route(DeviceId disk, DeviceId memory) const {
  if (sequential_reads[disk] > 0 &&
      machine->device(disk).disk.sequential_write_beside_read_bytes_per_s > 0)
    return find_route(memory, disk, kDiskWriteBesideReadRoute);
  return find_route(memory, disk, kDiskWriteRoute);
}

// What runs on `disk` changed: every sequential transfer there moves to the route of now
// (sequential_read_route, sequential_write_route) for the bytes it has left.
void SimBackend::Impl::reroute_disk_transfers(DeviceId disk) {
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
void SimBackend::Impl::move_transfer(std::uint32_t slot, std::uint32_t route, double speed) {
  Slot& s = slots[slot];
  const double now_s = clock_s();
  double delay_s = 0;
  if (s.phase == Phase::kActivity) {
    sg4::ActivityPtr old = std::move(s.activity);
    s.bytes = old->get_remaining();
    old->set_data(nullptr);  // its cancellation is not this op's completion
    old->cancel();
    cancelled.push_back(std::move(old));
  } else {  // kClosedForm or kDelayThenFlow: a timer, and the bytes moved so far
    cancel_timer(slot);
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
double SimBackend::Impl::disk_speed(DeviceId memory, bool write) const {
  const Device& d = machine->device(memory);
  if (d.kind != DeviceKind::kCpu) return 1.0;
  return d.cpu.disk_speed_beside_compute(write, compute_ops_on[memory]);
}

// The compute ops running on `cpu` changed: each sequential transfer into or out of its
// memory goes on at its new speed.
void SimBackend::Impl::compute_load_changed(DeviceId cpu) {
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

// The speed factor (`speeds`: CpuModel::core_pass_speeds, core_copy_speeds or
// core_gemm_speeds) of the core the launch's stream is pinned to, as the real executor's
// workload runs pin it; 1 off a CPU or on a floating stream.
double SimBackend::Impl::core_speed(const OpLaunch& launch,
                                    std::vector<double> CpuModel::*speeds) const {
  const Device& d = machine->device(launch.device);
  if (d.kind != DeviceKind::kCpu || (d.cpu.*speeds).empty()) return 1.0;
  return CpuModel::core_speed(d.cpu.*speeds,
                              pinned_core(*machine, *streams, launch.stream, d.cpu.cores));
}

// One random read's time on `disk`: its own access plus, per sequential read running on
// the disk now, the wait behind that transfer's requests.
double SimBackend::Impl::random_read_s(DeviceId disk) const {
  const DiskModel& d = machine->device(disk).disk;
  return 1.0 / d.read_iops +
         static_cast<double>(sequential_reads[disk]) * d.random_read_wait_beside_sequential_s;
}

// A disk op into or out of `cpu`'s memory starts or ends. While any runs, the I/O takes
// CpuModel::disk_io_cores of the CPU's cores (an exec of unbounded work with that bound,
// sharing the cores with the compute ops): on a VM the host's I/O thread shares the
// vCPUs' time, so two busy compute streams slow down beside a transfer and one does not.
void SimBackend::Impl::disk_io_started(DeviceId cpu) {
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

void SimBackend::Impl::disk_io_ended(DeviceId cpu) {
  if (--disk_ops_on_cpu[cpu] > 0) return;
  sg4::ActivityPtr load = std::move(disk_io_load[cpu]);
  load->cancel();
  cancelled.push_back(std::move(load));
}

}  // namespace opsim
