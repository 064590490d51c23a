// "cpu": every GPU sends its gradient to the host CPU, which adds them and sends the sum back
// to every GPU: 2n full-size transfers through the CPU's link (80 ms for 160 MB on four GPUs
// behind a 16 GB/s switch).
#include <limits>

#include "experiments/sync/sync_common.hpp"

namespace opsim::sync {

namespace {

/// The CPU of the first GPU's server with the fewest hops to all participating GPUs (ties:
/// the lowest id), i.e. the root complex the GPUs hang off.
DeviceId nearest_cpu(const SyncInput& input) {
  const Machine& machine = input.machine;
  const std::uint32_t node = machine.device(input.gpus.front()).node;
  DeviceId best = kNoDevice;
  std::size_t best_hops = std::numeric_limits<std::size_t>::max();
  for (DeviceId cpu : machine.cpus()) {
    if (machine.device(cpu).node != node) continue;
    std::size_t hops = 0;
    try {
      for (DeviceId gpu : input.gpus) hops += machine.route(gpu, cpu).size();
    } catch (const std::invalid_argument&) {
      continue;
    }
    if (hops < best_hops) {
      best_hops = hops;
      best = cpu;
    }
  }
  if (best == kNoDevice)
    fail(input, "no CPU on server '" + machine.node_names()[node] + "' reaches the GPUs");
  return best;
}

}  // namespace

void check_cpu_plan(const SyncInput& input) {
  (void)nearest_cpu(input);
}

SyncPlan make_cpu_plan(const SyncInput& input) {
  const DeviceId cpu = nearest_cpu(input);
  const std::string detail = "gather on " + input.machine.device(cpu).name + ", broadcast back";
  return make_hub_plan(input, cpu, input.gpus, static_cast<int>(input.gpus.size()), detail);
}

}  // namespace opsim::sync
