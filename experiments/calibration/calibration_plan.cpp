#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

#include "engine/exec/cpu_kernels.hpp"
#include "engine/frontend/host_machine.hpp"
#include "experiments/calibration/calibrator_state.hpp"
#include "experiments/calibration/memcpy_sizes.hpp"

namespace opsim::calibration {

using M = MeasurementId;
using Item = CalibrationItem;

Plan plan_for(const CalibrationOptions& o) {
  Plan p;
  if (o.quick) {
    p = {{256, 512}, 32u << 20, 32u << 20, 32u << 20, 500, 5000, 0.1, 3};
  } else {
    p = {{256, 512, 1024, 2048}, 128u << 20, 128u << 20, 128u << 20, 2000, 20000, 0.2, 5};
  }
  if (o.repeats > 0) p.repeats = o.repeats;
  return p;
}

std::size_t every_core_gemm_size(const Plan& p) {
  return std::min<std::size_t>(1024, p.gemm_sizes.back());
}

Calibrator::State::State(const CalibrationOptions& o)
    : options(o),
      plan(plan_for(o)),
      hw(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
      disks(o.scratch_dir) {
  if (!options.only.empty() && options.base == nullptr)
    throw std::invalid_argument("calibrate: measuring only some groups needs a base profile");
  add_gemm_items();
  add_memory_items();
  add_memcpy_by_size_items();
  add_core_speed_items();
  add_disk_items();
  add_disk_traffic_items();
  add_disk_beside_compute_items();
  add_dispatch_items();
  add_gpu_items();
  keep_only_groups_asked_for();
  samples.resize(items.size());
}

// GEMMs by size on every thread and on one, and every core's own one-thread GEMM at once.
void Calibrator::State::add_gemm_items() {
  // All threads first, then one: after a multi-threaded GEMM OpenBLAS's idle helper threads
  // spin for a while (up to 2^28 cycles) on the cores, so the next group, and the real runs
  // after a pass, should not follow one directly.
  std::vector<int> thread_counts;
  if (hw > 1) thread_counts.push_back(hw);
  thread_counts.push_back(1);
  for (std::size_t n : plan.gemm_sizes)
    for (int t : thread_counts) {
      // One thread: on each core in turn (rate_over_cores), as a pinned compute stream runs.
      const MeasurementKey key =
          t > 1 ? MeasurementKey{M::kGemmAllThreads, n, t} : MeasurementKey{M::kGemmOneThread, n};
      items.push_back({key, [this, n, t, min_s = plan.min_s] {
                         if (t > 1) return gemm_rate(n, t, min_s);
                         return over_cores(gemm_core_ratios, min_s, [&](double s, double warm_s) {
                           return gemm_rate(n, 1, s, warm_s);
                         });
                       }});
      // Every core running its own one-thread GEMM, as compute streams do: what each gets.
      // After a one-thread GEMM (see above).
      if (hw > 1 && n == every_core_gemm_size(plan) && t == 1)
        items.push_back({{M::kGemmEveryCore, n}, [n, hw = hw, min_s = plan.min_s] {
                           return gemm_every_core_rate(n, hw, min_s);
                         }});
    }
  if (hw > 1)
    for (int c = 0; c < hw; ++c)
      items.push_back(
          {{M::kCoreSpeedGemm, 0, c}, [this, c] { return core_speed(gemm_core_ratios, c); }});
}

// memcpy on one and two streams and one thread's elementwise pass, at the plan's size and
// at smaller working sets.
void Calibrator::State::add_memory_items() {
  const std::size_t memcpy_bytes = plan.memcpy_bytes;
  const double min_s = plan.min_s;
  items.push_back({{M::kMemcpyOneStream}, [this, memcpy_bytes, min_s] {
                     return over_cores(copy_core_ratios, min_s, [&](double s, double warm_s) {
                       return memcpy_rate(memcpy_bytes, 1, s, warm_s);
                     });
                   }});
  items.push_back(
      {{M::kMemcpyTwoStreams}, [=] { return memcpy_rate(memcpy_bytes, 2, min_s, min_s); }});
  items.push_back({{M::kElementwise}, [this, memcpy_bytes, min_s] {
                     return over_cores(pass_core_ratios, min_s, [&](double s, double warm_s) {
                       return elementwise_rate(memcpy_bytes, s, warm_s);
                     });
                   }});
  // Smaller working sets run from cache: the simulator interpolates between these.
  for (std::size_t mb : {2, 8, 32})
    if ((mb << 20) < memcpy_bytes) pass_sizes.push_back(mb << 20);
  for (std::size_t bytes : pass_sizes)
    items.push_back({{M::kElementwiseBySize, bytes}, [this, bytes, min_s] {
                       return over_cores(pass_core_ratios, min_s, [&](double s, double warm_s) {
                         return elementwise_rate(bytes, s, warm_s);
                       });
                     }});
}

void Calibrator::State::add_memcpy_by_size_items() {
  const std::size_t memcpy_bytes = plan.memcpy_bytes;
  const double min_s = plan.min_s;
  // memcpy's rate is not one number: smaller copies run from cache, and glibc switches to
  // non-temporal stores above a threshold, either side of which a copy that misses the cache
  // runs at its own rate (memcpy_sizes.hpp). The simulator interpolates between the sizes.
  copy_sizes = memcpy_calibration_sizes(memcpy_bytes, memcpy_non_temporal_threshold_bytes());
  for (std::size_t bytes : copy_sizes)
    items.push_back({{M::kMemcpyOneStreamBySize, bytes}, [this, bytes, min_s] {
                       return over_cores(copy_core_ratios, min_s, [&](double s, double warm_s) {
                         return memcpy_rate(bytes, 1, s, warm_s);
                       });
                     }});
  // And two streams at once at each size: the largest size's pair does not tell what a pair
  // of another size gets together (two of 96 MiB ran 1.02-1.15x two of 128 MiB on a
  // 2-vCPU VM), and the simulator shares the DRAM at the copies' own size's
  // (CpuModel::copies_together_rates).
  for (std::size_t bytes : copy_sizes)
    items.push_back({{M::kMemcpyTwoStreamsBySize, bytes},
                     [bytes, min_s] { return memcpy_rate(bytes, 2, min_s, min_s); }});
}

// Each core's speed, and the DRAM's first access.
void Calibrator::State::add_core_speed_items() {
  const double min_s = plan.min_s;
  // Each core's speed, from the rates above measured there (no measuring of its own): the
  // executor pins streams to cores, and on a VM one vCPU copies at 0.7 x the other's.
  if (hw > 1)
    for (const auto& [id, ratios] : {std::pair{M::kCoreSpeedElementwise, &pass_core_ratios},
                                     std::pair{M::kCoreSpeedMemcpy, &copy_core_ratios}})
      for (int c = 0; c < hw; ++c)
        // An init-capture: clang before 16 cannot capture a structured binding by name.
        items.push_back({{id, 0, c}, [this, r = ratios, c] { return core_speed(*r, c); }});
  items.push_back({{M::kDramFirstAccess},
                   [chase = plan.chase_bytes, min_s] { return chase_latency(chase, min_s); }});
}

// Sequential and random I/O alone.
void Calibrator::State::add_disk_items() {
  const std::uint64_t disk_bytes = plan.disk_bytes;
  // Sequential writes and reads go on from where the last ones ended, as the executor's do
  // (DiskFile::write_next, read_next): never the same bytes read twice in a row.
  items.push_back({{M::kDiskSequentialWrite}, [this, disk_bytes] {
                     DiskFile& f = disks.written_file();
                     const auto s = Clock::now();
                     f.write_next(disk_bytes, 0);
                     return disk_bytes / seconds_since(s);
                   }});
  items.push_back({{M::kDiskSequentialRead}, [this, disk_bytes] {
                     DiskFile& f = disks.disk();
                     const auto s = Clock::now();
                     f.read_next(disk_bytes, 0);
                     return disk_bytes / seconds_since(s);
                   }});
  const int random_count = plan.random_reads;
  items.push_back({{M::kDiskRandomRead},
                   [this, random_count] { return disks.random_requests(random_count, false); }});
  items.push_back({{M::kDiskRandomWrite},
                   [this, random_count] { return disks.random_requests(random_count, true); }});
}

// Disk traffic beside other disk traffic.
void Calibrator::State::add_disk_traffic_items() {
  const std::uint64_t disk_bytes = plan.disk_bytes;
  const int beside_count = std::max(1, plan.random_reads / 4);
  // The same random reads while another file is read sequentially (1 MiB requests, as the
  // executor's sequential reads): how long a small request waits behind large ones, and
  // what the sequential read keeps while small requests cut in.
  items.push_back({{M::kDiskRandomReadBesideSequential}, [this, beside_count] {
                     return disks.random_beside_sequential(beside_count).random_read_s;
                   }});
  items.push_back({{M::kDiskSequentialReadBesideRandom}, [this, beside_count] {
                     return disks.random_beside_sequential(beside_count).sequential_bytes_per_s;
                   }});
  // A sequential read and a sequential write (appending, as the executor's) at once: one
  // device serves both.
  items.push_back({{M::kDiskSequentialReadBesideWrite}, [this] {
                     return disks.read_beside_write(plan.disk_bytes / 2).read_bytes_per_s;
                   }});
  items.push_back({{M::kDiskSequentialWriteBesideRead}, [this] {
                     return disks.read_beside_write(plan.disk_bytes / 2).write_bytes_per_s;
                   }});
  // Two sequential reads of two files at once (each in 1 MiB requests): what they get
  // together, which one read's rate does not tell (a device with queues may serve both).
  items.push_back(
      {{M::kDiskSequentialReadsTogether}, [this, disk_bytes] {
         DiskFile& f = disks.disk();
         const std::uint64_t bytes = disk_bytes / 2;
         const auto reader = disks.sequential_read_beside([&] { f.read_next(bytes, 0); });
         return reader.bytes_per_s + static_cast<double>(bytes) * reader.rounds / reader.window_s;
       }});
}

// Disk traffic beside compute: what each takes from the other.
void Calibrator::State::add_disk_beside_compute_items() {
  const std::uint64_t disk_bytes = plan.disk_bytes;
  // A VM's host moves the disk's data on the vCPUs' time: what busy cores lose meanwhile.
  items.push_back(
      {{M::kDiskIoCores}, [this, n = every_core_gemm_size(plan), hw = hw, min_s = plan.min_s] {
         DiskFile& read = disks.streamed_file();
         return disk_io_cores(n, hw, min_s, [&](const std::atomic<bool>& stop) {
           while (!stop.load(std::memory_order_relaxed)) read.read_next(1 << 20, 0);
         });
       }});
  // Likewise the transfer slows down beside busy cores: a read's and a write's rate beside
  // one-thread GEMMs on one core and on every core (the simulator interpolates between).
  for (const bool write : {false, true})
    for (const int threads : hw > 1 ? std::vector<int>{1, hw} : std::vector<int>{1}) {
      const MeasurementId id =
          write
              ? (threads == hw ? M::kDiskWriteBesideEveryCoreBusy : M::kDiskWriteBesideOneBusyCore)
              : (threads == hw ? M::kDiskReadBesideEveryCoreBusy : M::kDiskReadBesideOneBusyCore);
      items.push_back({{id}, [this, write, threads, disk_bytes, n = every_core_gemm_size(plan)] {
                         return disk_speed_beside_gemms(n, threads, [&] {
                           if (write)
                             disks.written_file().write_next(disk_bytes, 0);
                           else
                             disks.streamed_file().read_next(disk_bytes, 0);
                         });
                       }});
    }
}

// The frontend's cost to issue an op, and a compute stream's speed beside that.
void Calibrator::State::add_dispatch_items() {
  const int dispatch_ops = plan.dispatch_ops;
  items.push_back({{M::kHostDispatch}, [this, dispatch_ops] {
                     // The frontend issuing tiny independent ops: t1 is the issuing cost.
                     if (!ctx) ctx = std::make_unique<frontend::Context>(frontend::host_machine());
                     frontend::Array x = ctx->full(frontend::cpu(), 1, 1, 1.0f);
                     for (int i = 0; i < 100; ++i) (void)ctx->add(x, x);  // warm the workers
                     ctx->waitall();
                     const auto s = Clock::now();
                     for (int i = 0; i < dispatch_ops; ++i) (void)ctx->add(x, x);
                     const double issue_s = seconds_since(s);
                     ctx->waitall();
                     return issue_s / dispatch_ops;
                   }});
  // What a compute stream keeps while the program busy-waits in a dispatch on another core.
  if (hw > 1)
    items.push_back(
        {{M::kHostDispatchNeighbourSpeed}, [n = every_core_gemm_size(plan), min_s = plan.min_s] {
           return gemm_speed_beside_busy_wait(n, min_s);
         }});
}

void Calibrator::State::add_gpu_items() {
  std::string why_no_gpu;
  for (Item& item : gpu_calibration_items(options.quick, plan.min_s, &why_no_gpu))
    items.push_back(std::move(item));
  gpu_runtime_used = gpu_runtime();
  gpu_note = gpu_runtime_used ? "measured gpu0 (" + gpu_runtime_used->device_name(0) + ") of " +
                                    std::to_string(gpu_runtime_used->device_count()) + " GPU(s)"
                              : "no GPU measured: " + why_no_gpu;
}

// A targeted calibration: the groups asked for; the base profile gives the rest.
void Calibrator::State::keep_only_groups_asked_for() {
  if (options.only.empty()) return;
  std::erase_if(items, [&](const Item& item) {
    for (const std::string& group : options.only)
      if (measurement_name(item.key).starts_with(group)) return false;
    return true;
  });
}

}  // namespace opsim::calibration
