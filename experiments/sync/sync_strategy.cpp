#include "experiments/sync/sync_strategy.hpp"

#include <cmath>
#include <stdexcept>

#include "experiments/sync/sync_common.hpp"
#include "common/input_error.hpp"

namespace opsim {

namespace {

using Generator = SyncPlan (*)(const sync::SyncInput&);

struct Entry {
  std::string_view name;
  Generator make;
};

constexpr Entry kStrategies[] = {
    {"tree", sync::make_tree_plan},
    {"cpu", sync::make_cpu_plan},
    {"split", sync::make_split_plan},
    {"ring", sync::make_ring_plan},
    {"multi-ring", sync::make_multi_ring_plan},
    {"ps", sync::make_ps_plan},
};

std::string known_names() {
  std::string text;
  for (const Entry& e : kStrategies) text += (text.empty() ? "" : ", ") + std::string(e.name);
  return text;
}

}  // namespace

std::vector<std::string_view> sync_strategy_names() {
  std::vector<std::string_view> names;
  for (const Entry& e : kStrategies) names.push_back(e.name);
  return names;
}

SyncPlan make_sync_plan(std::string_view strategy, const Machine& machine,
                        const SyncOptions& options) {
  const Entry* entry = nullptr;
  for (const Entry& e : kStrategies)
    if (e.name == strategy) entry = &e;
  if (entry == nullptr)
    throw InputError("sync: unknown strategy '" + std::string(strategy) + "' (choose " +
                     known_names() + ")");

  sync::SyncInput input{machine,
                        entry->name,
                        options.gpus,
                        options.bytes,
                        options.include_reductions,
                        options.multi_ring_both_directions};
  if (!std::isfinite(input.bytes) || input.bytes <= 0)
    sync::fail(input, "gradient size must be a positive number of bytes");
  if (input.gpus.empty()) input.gpus = machine.gpus();
  std::vector<char> seen(machine.devices().size(), 0);
  for (DeviceId id : input.gpus) {
    if (id >= machine.devices().size())
      sync::fail(input,
                 "device #" + std::to_string(id) + " is not on machine '" + machine.name() + "'");
    if (machine.device(id).kind != DeviceKind::kGpu)
      sync::fail(input, "'" + machine.device(id).name + "' is not a GPU");
    if (seen[id]) sync::fail(input, "GPU '" + machine.device(id).name + "' is listed twice");
    seen[id] = 1;
  }
  if (input.gpus.size() < 2)
    sync::fail(input, "needs at least 2 GPUs, machine '" + machine.name() + "' offers " +
                          std::to_string(input.gpus.size()));
  try {
    return entry->make(input);
  } catch (const std::invalid_argument& e) {  // e.g. no route between two devices
    sync::fail(input, e.what());
  }
}

}  // namespace opsim
