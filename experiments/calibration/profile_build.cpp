#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "experiments/calibration/accuracy.hpp"
#include "experiments/calibration/calibrator_state.hpp"
#include "experiments/calibration/cpu_topology.hpp"

namespace opsim::calibration {
namespace {

using M = MeasurementId;

// The disk model charges a random op its requests at the drive's IOPS and then its bytes at
// the sequential rate (DiskModel::request_time_s); a measured request's time holds both, so
// the profile's IOPS is the rate of the requests' own part, the block's transfer taken out.
double random_request_access_s(double measured_request_s, double bytes_per_s) {
  return std::max(0.05 * measured_request_s, measured_request_s - kRandomBlockBytes / bytes_per_s);
}

// The rates the profile takes from the chains, which the table shows as seconds per op.
std::string sgemm_note(const GpuInputs& g) {
  std::string sizes, rates;
  for (const GemmRate& r : g.sgemm_rates) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.1f", r.flops_per_s / 1e12);
    sizes += (sizes.empty() ? "" : "/") + std::to_string(static_cast<long>(r.n));
    rates += (rates.empty() ? "" : " / ") + std::string(rate);
  }
  return "; SGEMM " + rates + " TFLOP/s at " + sizes + " (after the " +
         std::to_string(static_cast<int>(std::lround(g.launch_s * 1e6))) + " us launch latency)";
}

// cpu0 of a profile: streams, peak and DRAM such that the roofline gives the rates measured.
CpuModel profile_cpu(const ProfileInputs& in) {
  const int cores = std::max(1, in.hardware_threads);
  const int streams = std::clamp(in.compute_streams, 1, cores);
  CpuModel cpu;
  cpu.cores = cores;
  cpu.simd_fp32_lanes = 16;
  cpu.fma_units = 2;
  cpu.dispatch_s = in.dispatch_s;
  cpu.compute_streams = streams;
  cpu.all_streams_busy_speed = std::clamp(in.all_streams_busy_speed, 1.0 / streams, 1.0);
  cpu.beside_dispatch_speed = std::clamp(in.beside_dispatch_speed, 1.0 / cores, 1.0);
  cpu.copy_streams = 2;
  // A memcpy reads and writes every byte: the simulator moves it at half the DRAM bandwidth.
  // One thread does not saturate the DRAM: two copy more together than one alone, so the
  // DRAM gets the two-stream rate and each copy the one-stream rate at most.
  cpu.dram.channels = 1;
  cpu.dram.bytes_per_s_per_channel =
      2.0 * std::max(in.memcpy_bytes_per_s, in.memcpy_two_streams_bytes_per_s);
  cpu.copy_stream_bytes_per_s = in.memcpy_bytes_per_s;
  cpu.dram.first_access_s = in.first_access_s;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_bytes = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_bytes > 0)
    cpu.dram.capacity_bytes = static_cast<double>(pages) * static_cast<double>(page_bytes);
  // The roofline scales both compute and memory time by `efficiency`: it is set so that
  // memory-bound kernels run at the measured elementwise rate, and the clock so that
  // peak x efficiency / streams is the measured GEMM rate of one stream.
  cpu.efficiency = in.elementwise_bytes_per_s > 0
                       ? std::clamp(in.elementwise_bytes_per_s / cpu.dram.bytes_per_s(), 1e-3, 1.0)
                       : 1.0;
  cpu.memory_pass_rates = in.memory_pass_rates;
  cpu.copy_stream_rates = in.copy_stream_rates;
  cpu.copies_together_rates = in.copies_together_rates;
  // One factor per core at most (a profile from a host with more cores keeps its first ones).
  for (auto [from, to] : {std::pair{&in.core_pass_speeds, &cpu.core_pass_speeds},
                          std::pair{&in.core_copy_speeds, &cpu.core_copy_speeds},
                          std::pair{&in.core_gemm_speeds, &cpu.core_gemm_speeds}})
    to->assign(from->begin(), from->begin() + static_cast<std::ptrdiff_t>(std::min(
                                                  from->size(), static_cast<std::size_t>(cores))));
  cpu.disk_io_cores = std::clamp(in.disk_io_cores, 0.0, static_cast<double>(cores));
  // A transfer never stops beside compute: at least a hundredth of its rate.
  cpu.disk_read_speed_one_busy = std::clamp(in.disk_read_speed_one_busy, 0.01, 1.0);
  cpu.disk_read_speed_all_busy = std::clamp(in.disk_read_speed_all_busy, 0.01, 1.0);
  cpu.disk_write_speed_one_busy = std::clamp(in.disk_write_speed_one_busy, 0.01, 1.0);
  cpu.disk_write_speed_all_busy = std::clamp(in.disk_write_speed_all_busy, 0.01, 1.0);
  cpu.clock_hz =
      in.gemm_flops_per_s_per_stream * streams /
      (cores * static_cast<double>(cpu.simd_fp32_lanes) * cpu.fma_units * 2.0 * cpu.efficiency);

  return cpu;
}

// disk0 of a profile: the rates measured, IOPS with the block's transfer taken out.
DiskModel profile_disk(const ProfileInputs& in) {
  DiskModel disk;
  disk.kind = in.disk_access_s > 1e-3 ? DiskKind::kHdd : DiskKind::kSataSsd;
  disk.access_s = in.disk_access_s;
  disk.read_bytes_per_s = in.disk_read_bytes_per_s;
  disk.write_bytes_per_s = in.disk_write_bytes_per_s;
  disk.read_iops = 1.0 / random_request_access_s(in.disk_random_read_s, disk.read_bytes_per_s);
  // Profiles from before random writes were measured: as fast as random reads.
  disk.write_iops =
      1.0 / random_request_access_s(
                in.disk_random_write_s > 0 ? in.disk_random_write_s : in.disk_random_read_s,
                disk.write_bytes_per_s);
  disk.random_read_wait_beside_sequential_s =
      std::max(0.0, in.disk_random_read_beside_sequential_s - in.disk_random_read_s);
  // Beside random reads a sequential read may run faster than alone: on this project's VM
  // it read at 1.7-2.1 GB/s beside them in every round of a suite whose reads alone ran at
  // 1.2-1.5 (the host's I/O thread kept busy answers sooner), and the workload's reads did
  // too; so the measured figure holds, as for two reads together.
  disk.sequential_read_beside_random_bytes_per_s =
      in.disk_sequential_read_beside_random_bytes_per_s;
  // Never faster than alone.
  disk.sequential_read_beside_write_bytes_per_s =
      std::min(in.disk_sequential_read_beside_write_bytes_per_s, in.disk_read_bytes_per_s);
  disk.sequential_write_beside_read_bytes_per_s =
      std::min(in.disk_sequential_write_beside_read_bytes_per_s, in.disk_write_bytes_per_s);
  // Together may be faster than one alone (queues), so no bound here.
  disk.sequential_reads_together_bytes_per_s = in.disk_sequential_reads_together_bytes_per_s;
  disk.queues = 2;

  return disk;
}

}  // namespace

ProfileInputs profile_inputs(const Machine& profile) {
  const auto cpu_id = profile.find_device("cpu0");
  const auto disk_id = profile.find_device("disk0");
  if (!cpu_id || !disk_id)
    throw std::invalid_argument("profile '" + profile.name() + "' has no cpu0 and disk0");
  const CpuModel& cpu = profile.device(*cpu_id).cpu;
  const DiskModel& disk = profile.device(*disk_id).disk;
  ProfileInputs in;
  in.hardware_threads = cpu.cores;
  in.compute_streams = cpu.compute_streams;
  in.all_streams_busy_speed = cpu.all_streams_busy_speed;
  in.beside_dispatch_speed = cpu.beside_dispatch_speed;
  in.gemm_flops_per_s_per_stream =
      cpu.peak_flops_per_s() * cpu.efficiency / std::max(1, cpu.compute_streams);
  in.elementwise_bytes_per_s = cpu.efficiency * cpu.dram.bytes_per_s();
  in.memory_pass_rates = cpu.memory_pass_rates;
  in.copy_stream_rates = cpu.copy_stream_rates;
  in.copies_together_rates = cpu.copies_together_rates;
  in.memcpy_two_streams_bytes_per_s = cpu.dram.bytes_per_s() / 2;
  in.memcpy_bytes_per_s = cpu.copy_stream_bytes_per_s > 0 ? cpu.copy_stream_bytes_per_s
                                                          : in.memcpy_two_streams_bytes_per_s;
  in.first_access_s = cpu.dram.first_access_s;
  in.dispatch_s = cpu.dispatch_s;
  in.core_pass_speeds = cpu.core_pass_speeds;
  in.core_copy_speeds = cpu.core_copy_speeds;
  in.core_gemm_speeds = cpu.core_gemm_speeds;
  in.disk_read_bytes_per_s = disk.read_bytes_per_s;
  in.disk_write_bytes_per_s = disk.write_bytes_per_s;
  in.disk_access_s = disk.access_s;
  in.disk_random_read_s = 1.0 / disk.read_iops + kRandomBlockBytes / disk.read_bytes_per_s;
  in.disk_random_write_s = 1.0 / disk.write_iops + kRandomBlockBytes / disk.write_bytes_per_s;
  in.disk_random_read_beside_sequential_s =
      in.disk_random_read_s + disk.random_read_wait_beside_sequential_s;
  in.disk_sequential_read_beside_random_bytes_per_s =
      disk.sequential_read_beside_random_bytes_per_s;
  in.disk_sequential_read_beside_write_bytes_per_s = disk.sequential_read_beside_write_bytes_per_s;
  in.disk_sequential_reads_together_bytes_per_s = disk.sequential_reads_together_bytes_per_s;
  in.disk_sequential_write_beside_read_bytes_per_s = disk.sequential_write_beside_read_bytes_per_s;
  in.disk_io_cores = cpu.disk_io_cores;
  in.disk_read_speed_one_busy = cpu.disk_read_speed_one_busy;
  in.disk_read_speed_all_busy = cpu.disk_read_speed_all_busy;
  in.disk_write_speed_one_busy = cpu.disk_write_speed_one_busy;
  in.disk_write_speed_all_busy = cpu.disk_write_speed_all_busy;
  in.gpus = calibrated_gpu_inputs(profile);
  return in;
}

std::string profile_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == 0) std::strcpy(host, "host");
  std::string name = "calibrated-";
  for (const char* c = host; *c != 0; ++c)
    name += (std::isalnum(static_cast<unsigned char>(*c)) || *c == '-') ? *c : '-';
  return name;
}

double gemm_rate_per_stream(double one_thread_flops_per_s, double all_threads_flops_per_s,
                            int streams, int hw) {
  hw = std::max(1, hw);
  const int threads = std::max(1, hw / std::clamp(streams, 1, hw));
  if (threads == 1) return one_thread_flops_per_s;
  return all_threads_flops_per_s * threads / hw;
}

Machine build_profile(const ProfileInputs& in, const std::string& host_name) {
  Machine m(host_name);
  m.set_description(
      "Measured by opsim calibrate: cpu0 (GEMM, memcpy, DRAM latency, dispatch) and "
      "disk0 (O_DIRECT sequential and random 4 KiB I/O)");
  const DiskModel disk = profile_disk(in);
  const DeviceId c = m.add_cpu("cpu0", profile_cpu(in));
  const DeviceId d = m.add_disk("disk0", disk);
  // The disk's own media link limits it; the host link only joins it to cpu0.
  LinkModel link;
  link.bytes_per_s = 4.0 * std::max(disk.read_bytes_per_s, disk.write_bytes_per_s);
  link.latency_s = 0;
  link.full_duplex = true;
  m.add_link("disk0-cpu0", d, c, link);
  add_calibrated_gpus(m, in.gpus);
  if (in.gpus.count > 0)
    m.set_description(
        "Measured by opsim calibrate: cpu0 (GEMM, memcpy, DRAM latency, dispatch), disk0 "
        "(O_DIRECT sequential and random 4 KiB I/O) and " +
        std::to_string(in.gpus.count) +
        " GPU(s) like gpu0 (cuBLAS SGEMM, elementwise, launch, pinned copies)");
  m.seal();
  return m;
}

// Each item's samples [first, end), reduced by the options' statistic.
std::vector<Measurement> Calibrator::State::measurements(std::size_t first, std::size_t end) const {
  std::vector<Measurement> measured;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::vector<double>& all = samples[i];
    Measurement m{items[i].key,
                  measurement_name(items[i].key),
                  std::string(measurement_unit(items[i].key.id)),
                  {},
                  0,
                  0};
    m.samples.assign(all.begin() + static_cast<std::ptrdiff_t>(std::min(first, all.size())),
                     all.begin() + static_cast<std::ptrdiff_t>(std::min(end, all.size())));
    if (m.samples.empty())
      throw std::logic_error("calibrate: no sample of '" + m.name + "' in the passes asked for");
    m.value = reduce(m.samples, options.statistic, m.unit != "s");
    m.spread = spread(m.samples);
    measured.push_back(std::move(m));
  }
  return measured;
}

CalibrationReport Calibrator::State::build(std::size_t first, std::size_t end) const {
  CalibrationReport report;
  report.disk_note = disks.note();
  report.gpu_note = gpu_note;
  report.measurements = measurements(first, end);
  ProfileInputs in = options.base != nullptr ? profile_inputs(*options.base) : ProfileInputs{};
  const bool gemm_measured = report.find({M::kGemmOneThread, plan.gemm_sizes.back()}) != nullptr;
  // The base's core count stays unless the GEMMs (which use every core) were measured here:
  // a targeted pass keeps every parameter it did not measure.
  if (options.base == nullptr || gemm_measured) in.hardware_threads = hw;
  if (gemm_measured) take_gemm(report, in);
  take_memory(report, in);
  take_disk(report, in);
  if (auto m = report.find({M::kHostDispatch})) in.dispatch_s = m->value;
  if (auto m = report.find({M::kHostDispatchNeighbourSpeed})) in.beside_dispatch_speed = m->value;
  if (report.find({M::kGpuDependentGemm, 1024})) take_gpu(report, in.gpus);
  report.machine = build_profile(in, profile_name());
  report.elapsed_s = seconds_since(t0);
  return report;
}

// GEMM: how many ops really run at once and what one op gets, each the median over the sizes
// from 512 up (small GEMMs are overhead-bound), which steadies them on a shared machine.
void Calibrator::State::take_gemm(const CalibrationReport& report, ProfileInputs& in) const {
  std::vector<double> one, all;
  for (std::size_t n : plan.gemm_sizes) {
    if (n < 512) continue;
    one.push_back(report.get({M::kGemmOneThread, n}).value);
    all.push_back(report
                      .get(hw > 1 ? MeasurementKey{M::kGemmAllThreads, n, hw}
                                  : MeasurementKey{M::kGemmOneThread, n})
                      .value);
  }
  const double one_rate = median(one), all_rate = median(all);
  // A targeted calibration keeps the base's streams: the real runs it is measured beside
  // are scheduled on the base. Otherwise one stream per physical core (cpu_topology.hpp):
  // the count used to come from the GEMMs side by side, which a noisy minute rounded
  // from two streams to one; how fast the streams run together is measured below.
  const int cores = physical_cores(allowed_cpus()).value_or(hw);
  in.compute_streams = std::clamp(options.base != nullptr ? in.compute_streams : cores, 1, hw);
  in.gemm_flops_per_s_per_stream = gemm_rate_per_stream(one_rate, all_rate, in.compute_streams, hw);
  // Where each stream gets one BLAS thread (more than half as many streams as cores), each
  // one's speed while all are busy: the every-core measurement, one one-thread GEMM per
  // core (with fewer streams than cores a little pessimistic). Streams of several threads:
  // their GEMMs are multi-threaded, which the every-core measurement is not, so 1.
  in.all_streams_busy_speed = 1.0;
  const Measurement* every_core = report.find({M::kGemmEveryCore, every_core_gemm_size(plan)});
  if (hw > 1 && hw / std::max(1, in.compute_streams) == 1 && every_core != nullptr)
    in.all_streams_busy_speed = std::clamp(every_core->value / one_rate, 1.0 / hw, 1.0);
  take_core_speeds(report, M::kCoreSpeedGemm, in.core_gemm_speeds);
}

// Each core's factor of `id`, when measured.
void Calibrator::State::take_core_speeds(const CalibrationReport& report, MeasurementId id,
                                         std::vector<double>& speeds) const {
  if (!report.find({id, 0, 0})) return;
  speeds.clear();
  for (int c = 0; c < hw; ++c) speeds.push_back(report.get({id, 0, c}).value);
}

// Elementwise passes and memcpy by size, the DRAM's first access.
void Calibrator::State::take_memory(const CalibrationReport& report, ProfileInputs& in) const {
  const auto largest = static_cast<double>(plan.memcpy_bytes);
  if (auto m = report.find({M::kElementwise})) {
    in.elementwise_bytes_per_s = m->value;
    in.memory_pass_rates.clear();
    for (std::size_t bytes : pass_sizes)
      in.memory_pass_rates.push_back(
          {static_cast<double>(bytes), report.get({M::kElementwiseBySize, bytes}).value});
    in.memory_pass_rates.push_back({largest, in.elementwise_bytes_per_s});
  }
  if (auto m = report.find({M::kMemcpyOneStream})) {
    in.memcpy_bytes_per_s = m->value;
    in.memcpy_two_streams_bytes_per_s = report.get({M::kMemcpyTwoStreams}).value;
    in.copy_stream_rates.clear();
    for (std::size_t bytes : copy_sizes)
      in.copy_stream_rates.push_back(
          {static_cast<double>(bytes), report.get({M::kMemcpyOneStreamBySize, bytes}).value});
    in.copy_stream_rates.push_back({largest, in.memcpy_bytes_per_s});
    in.copies_together_rates.clear();
    for (std::size_t bytes : copy_sizes)
      in.copies_together_rates.push_back(
          {static_cast<double>(bytes), report.get({M::kMemcpyTwoStreamsBySize, bytes}).value});
    in.copies_together_rates.push_back({largest, in.memcpy_two_streams_bytes_per_s});
  }
  take_core_speeds(report, M::kCoreSpeedElementwise, in.core_pass_speeds);
  take_core_speeds(report, M::kCoreSpeedMemcpy, in.core_copy_speeds);
  if (auto m = report.find({M::kDramFirstAccess})) in.first_access_s = m->value;
}

void Calibrator::State::take_disk(const CalibrationReport& report, ProfileInputs& in) const {
  if (report.find({M::kDiskSequentialWrite})) {
    const auto value = [&](MeasurementId id) { return report.get({id}).value; };
    in.disk_write_bytes_per_s = value(M::kDiskSequentialWrite);
    in.disk_read_bytes_per_s = value(M::kDiskSequentialRead);
    in.disk_random_read_s = value(M::kDiskRandomRead);
    in.disk_random_write_s = value(M::kDiskRandomWrite);
    in.disk_access_s = in.disk_random_read_s;
    in.disk_random_read_beside_sequential_s = value(M::kDiskRandomReadBesideSequential);
    in.disk_sequential_read_beside_random_bytes_per_s = value(M::kDiskSequentialReadBesideRandom);
    in.disk_sequential_read_beside_write_bytes_per_s = value(M::kDiskSequentialReadBesideWrite);
    in.disk_sequential_write_beside_read_bytes_per_s = value(M::kDiskSequentialWriteBesideRead);
    in.disk_sequential_reads_together_bytes_per_s = value(M::kDiskSequentialReadsTogether);
  }
  if (auto m = report.find({M::kDiskIoCores})) in.disk_io_cores = m->value;
  // One busy core is all of them on a one-core machine (only the every-core figure).
  const auto speed_beside = [&](MeasurementId one, MeasurementId all, double& one_speed,
                                double& all_speed) {
    if (auto m = report.find({all})) all_speed = one_speed = m->value;
    if (auto m = report.find({one})) one_speed = m->value;
  };
  speed_beside(M::kDiskReadBesideOneBusyCore, M::kDiskReadBesideEveryCoreBusy,
               in.disk_read_speed_one_busy, in.disk_read_speed_all_busy);
  speed_beside(M::kDiskWriteBesideOneBusyCore, M::kDiskWriteBesideEveryCoreBusy,
               in.disk_write_speed_one_busy, in.disk_write_speed_all_busy);
}

void Calibrator::State::take_gpu(CalibrationReport& report, GpuInputs& g) const {
  const auto value = [&](MeasurementId id) { return report.get({id}).value; };
  g.count = gpu_runtime_used->device_count();
  g.memory_bytes = gpu_runtime_used->memory_bytes(0);
  g.memory_bytes_per_s = value(M::kGpuElementwise);
  // The launch latency of a dependent op: a chained 32 MB pass's period less its work (the
  // gap after ms-long SGEMMs, "gpu launch gap", ran 16-20 us on an H100 host where short
  // ops waited ~11: the completion path is slower after long waits).
  g.launch_s =
      std::max(0.0, value(M::kGpuDependentPasses) - kGpuLaunchPassBytes / g.memory_bytes_per_s);
  // SGEMM by size, from the chains (in increasing size); the fp32 peak is the best of them.
  g.gemm_flops_per_s = 0;
  g.sgemm_rates.clear();
  for (const Measurement& m : report.measurements)
    if (m.key.id == M::kGpuDependentGemm) {
      g.sgemm_rates.push_back(sgemm_rate_from_chain(m.key.size, m.value, g.launch_s));
      g.gemm_flops_per_s = std::max(g.gemm_flops_per_s, g.sgemm_rates.back().flops_per_s);
    }
  report.gpu_note += sgemm_note(g);
  g.dependent_op_min_s = value(M::kGpuDependentSmallKernels);
  g.queued_op_min_s = value(M::kGpuQueuedSmallKernels);
  if (auto m = report.find({M::kGpuCopiesBothDirections})) g.both_directions_bytes_per_s = m->value;
  g.host_to_device_bytes_per_s = value(M::kGpuHostToDevice);
  g.device_to_host_bytes_per_s = value(M::kGpuDeviceToHost);
  g.copy_latency_s = value(M::kGpuCopyLatency);
  const Measurement* peer = report.find({M::kGpuPeerCopy});
  g.peer_bytes_per_s = peer != nullptr ? peer->value : 0;
}

}  // namespace opsim::calibration
