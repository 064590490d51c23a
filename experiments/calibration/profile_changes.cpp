#include "experiments/calibration/profile_changes.hpp"

#include "experiments/calibration/calibration.hpp"
#include "experiments/calibration/memcpy_sizes.hpp"

namespace opsim::calibration {

std::vector<ParameterChange> profile_changes(const Machine& previous, const Machine& now) {
  const ProfileInputs a = profile_inputs(previous);
  const ProfileInputs b = profile_inputs(now);
  std::vector<ParameterChange> changes;
  auto add = [&](std::string name, std::string unit, double before, double after) {
    changes.push_back({std::move(name), std::move(unit), before, after});
  };
  add("compute streams", "", a.compute_streams, b.compute_streams);
  add("gemm per stream", "flop/s", a.gemm_flops_per_s_per_stream, b.gemm_flops_per_s_per_stream);
  add("streams' speed all busy", "", a.all_streams_busy_speed, b.all_streams_busy_speed);
  add("a stream's speed beside host dispatch", "", a.beside_dispatch_speed,
      b.beside_dispatch_speed);
  // By working set where both have rates for it (the largest is the plain elementwise rate).
  const std::size_t before_passes = changes.size();
  for (const MemoryPassRate& pa : a.memory_pass_rates)
    for (const MemoryPassRate& pb : b.memory_pass_rates)
      if (pa.working_set_bytes == pb.working_set_bytes)
        add("elementwise " + std::to_string(static_cast<long long>(pa.working_set_bytes) >> 20) +
                " MiB",
            "bytes/s", pa.bytes_per_s, pb.bytes_per_s);
  if (changes.size() == before_passes)
    add("elementwise", "bytes/s", a.elementwise_bytes_per_s, b.elementwise_bytes_per_s);
  add("memcpy 1 stream", "bytes/s", a.memcpy_bytes_per_s, b.memcpy_bytes_per_s);
  add("memcpy 2 streams", "bytes/s", a.memcpy_two_streams_bytes_per_s,
      b.memcpy_two_streams_bytes_per_s);
  // Two streams by size where both have the size (the largest is "memcpy 2 streams").
  for (std::size_t i = 0; i + 1 < a.copies_together_rates.size(); ++i)
    for (std::size_t j = 0; j + 1 < b.copies_together_rates.size(); ++j)
      if (a.copies_together_rates[i].working_set_bytes ==
          b.copies_together_rates[j].working_set_bytes)
        add(memcpy_measurement_name(
                static_cast<std::size_t>(a.copies_together_rates[i].working_set_bytes), 2),
            "bytes/s", a.copies_together_rates[i].bytes_per_s,
            b.copies_together_rates[j].bytes_per_s);
  add("dram first access", "s", a.first_access_s, b.first_access_s);
  add("disk sequential read", "bytes/s", a.disk_read_bytes_per_s, b.disk_read_bytes_per_s);
  add("disk sequential write", "bytes/s", a.disk_write_bytes_per_s, b.disk_write_bytes_per_s);
  add("disk random read", "s", a.disk_random_read_s, b.disk_random_read_s);
  add("disk random write", "s", a.disk_random_write_s, b.disk_random_write_s);
  add("disk random read beside a sequential read", "s", a.disk_random_read_beside_sequential_s,
      b.disk_random_read_beside_sequential_s);
  // Interference rates: only where both profiles have them (older ones do not).
  auto add_if_both = [&](std::string name, double before, double after) {
    if (before > 0 && after > 0) add(std::move(name), "bytes/s", before, after);
  };
  add_if_both("disk sequential read beside random reads",
              a.disk_sequential_read_beside_random_bytes_per_s,
              b.disk_sequential_read_beside_random_bytes_per_s);
  add_if_both("disk sequential read beside a sequential write",
              a.disk_sequential_read_beside_write_bytes_per_s,
              b.disk_sequential_read_beside_write_bytes_per_s);
  add_if_both("disk sequential reads, two at once", a.disk_sequential_reads_together_bytes_per_s,
              b.disk_sequential_reads_together_bytes_per_s);
  add_if_both("disk sequential write beside a sequential read",
              a.disk_sequential_write_beside_read_bytes_per_s,
              b.disk_sequential_write_beside_read_bytes_per_s);
  if (a.disk_io_cores > 0 && b.disk_io_cores > 0)
    add("disk I/O cores beside busy cores", "cores", a.disk_io_cores, b.disk_io_cores);
  add("disk read's speed beside one busy core", "", a.disk_read_speed_one_busy,
      b.disk_read_speed_one_busy);
  add("disk read's speed beside every core busy", "", a.disk_read_speed_all_busy,
      b.disk_read_speed_all_busy);
  add("disk write's speed beside one busy core", "", a.disk_write_speed_one_busy,
      b.disk_write_speed_one_busy);
  add("disk write's speed beside every core busy", "", a.disk_write_speed_all_busy,
      b.disk_write_speed_all_busy);
  add("host dispatch per op", "s", a.dispatch_s, b.dispatch_s);
  if (a.gpus.count > 0 && b.gpus.count > 0) {
    add("gpu gemm", "flop/s", a.gpus.gemm_flops_per_s, b.gpus.gemm_flops_per_s);
    for (const GemmRate& ra : a.gpus.sgemm_rates)
      for (const GemmRate& rb : b.gpus.sgemm_rates)
        if (ra.n == rb.n)
          add("gpu gemm " + std::to_string(static_cast<long>(ra.n)), "flop/s", ra.flops_per_s,
              rb.flops_per_s);
    add("gpu elementwise", "bytes/s", a.gpus.memory_bytes_per_s, b.gpus.memory_bytes_per_s);
    add("gpu launch latency", "s", a.gpus.launch_s, b.gpus.launch_s);
    add("gpu dependent op floor", "s", a.gpus.dependent_op_min_s, b.gpus.dependent_op_min_s);
    add("gpu queued op pace", "s", a.gpus.queued_op_min_s, b.gpus.queued_op_min_s);
    add("gpu copies (pinned)", "bytes/s", a.gpus.host_to_device_bytes_per_s,
        b.gpus.host_to_device_bytes_per_s);
    add("gpu copy latency", "s", a.gpus.copy_latency_s, b.gpus.copy_latency_s);
    if (a.gpus.both_directions_bytes_per_s > 0 && b.gpus.both_directions_bytes_per_s > 0)
      add("gpu copies both directions", "bytes/s", a.gpus.both_directions_bytes_per_s,
          b.gpus.both_directions_bytes_per_s);
    if (a.gpus.peer_bytes_per_s > 0 && b.gpus.peer_bytes_per_s > 0)
      add("gpu peer copy", "bytes/s", a.gpus.peer_bytes_per_s, b.gpus.peer_bytes_per_s);
  }
  return changes;
}

}  // namespace opsim::calibration
