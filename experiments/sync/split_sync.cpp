// "split": GPU j owns chunk j (S/n bytes). Reduce-scatter: every GPU sends chunk j to GPU j,
// which adds the n copies; all-gather: GPU j sends its sum to every other GPU. Each GPU's
// link carries (n-1)/n * S each way per phase: 15 ms for 160 MB on four GPUs at 16 GB/s.
#include <algorithm>

#include "experiments/sync/sync_common.hpp"

namespace opsim::sync {

void check_split_plan(const SyncInput& input) {
  const std::size_t n = input.gpus.size();
  // Without reduce ops every all-gather send of an owner waits on each of its n-1 receives
  // directly: n(n-1)^2 dependencies, which would exhaust memory for a thousand GPUs.
  constexpr double kMostDependencies = 16e6;
  const double dependencies =
      static_cast<double>(n) * static_cast<double>(n - 1) * static_cast<double>(n - 1);
  if (!input.include_reductions && dependencies > kMostDependencies)
    fail(input, "without reductions " + std::to_string(n) + " GPUs need " +
                    std::to_string(static_cast<long long>(dependencies)) +
                    " dependencies (limit 16000000); keep the reductions or use fewer GPUs");
}

SyncPlan make_split_plan(const SyncInput& input) {
  const Machine& machine = input.machine;
  const std::vector<DeviceId>& gpus = input.gpus;
  const std::size_t n = gpus.size();
  const double chunk_bytes = input.bytes / static_cast<double>(n);
  check_split_plan(input);
  SyncPlan plan;
  plan.graph.reserve(2 * n * (n - 1) + n);
  SyncGraphBuilder builder(input, plan.graph);
  NameBuffer name;

  // Sends are issued by distance k: in step k every GPU sends to its k-th successor, so
  // every link direction carries one transfer at a time on an in-order copy engine.
  std::vector<std::vector<OpId>> received(n);
  std::vector<LinkLoad> inbound(n, LinkLoad(machine));
  std::vector<LinkLoad> outbound(n, LinkLoad(machine));
  LinkLoad total(machine);
  for (std::size_t k = 1; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t owner = (i + k) % n;
      name.clear().text("rs ").text(builder.device_name(gpus[i])).text("→");
      name.text(builder.device_name(gpus[owner])).text(" c").number(owner);
      received[owner].push_back(builder.copy(gpus[i], gpus[owner], chunk_bytes, name.view()));
      inbound[owner].add(gpus[i], gpus[owner], chunk_bytes);
      total.add(gpus[i], gpus[owner], chunk_bytes);
    }
  std::vector<std::vector<OpId>> ready(n);
  for (std::size_t j = 0; j < n; ++j) {
    name.clear().text("reduce ").text(builder.device_name(gpus[j])).text(" c").number(j);
    ready[j] = builder.reduce(gpus[j], static_cast<int>(n), chunk_bytes, received[j], name.view());
  }
  for (std::size_t k = 1; k < n; ++k)
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t to = (j + k) % n;
      name.clear().text("ag ").text(builder.device_name(gpus[j])).text("→");
      name.text(builder.device_name(gpus[to])).text(" c").number(j);
      builder.after(ready[j], builder.copy(gpus[j], gpus[to], chunk_bytes, name.view()));
      outbound[j].add(gpus[j], gpus[to], chunk_bytes);
      total.add(gpus[j], gpus[to], chunk_bytes);
    }
  // Owner j sends nothing of its own before all of chunk j has arrived.
  double bound = total.seconds();
  for (std::size_t j = 0; j < n; ++j)
    bound = std::max(bound, inbound[j].seconds() + outbound[j].seconds());
  plan.lower_bound_s = bound;
  plan.summary =
      describe(input, plan.graph, bound, "GPU j reduces chunk j of " + std::to_string(n));
  return plan;
}

}  // namespace opsim::sync
