#include "experiments/sync/sync_strategy.hpp"

#include <cmath>
#include <stdexcept>

#include "common/input_error.hpp"
#include "experiments/sync/sync_common.hpp"

namespace opsim {

namespace {

using Generator = SyncPlan (*)(const sync::SyncInput&);
using Check = void (*)(const sync::SyncInput&);

struct Entry {
  std::string_view name;
  Generator make;
  Check check;  ///< what the strategy needs of its input, without building; may be null
};

constexpr Entry kStrategies[] = {
    {"tree", sync::make_tree_plan, nullptr},
    {"cpu", sync::make_cpu_plan, sync::check_cpu_plan},
    {"split", sync::make_split_plan, sync::check_split_plan},
    {"ring", sync::make_ring_plan, nullptr},
    {"multi-ring", sync::make_multi_ring_plan, sync::check_multi_ring_plan},
    {"ps", sync::make_ps_plan, sync::check_ps_plan},
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

namespace {

const Entry& entry_of(std::string_view strategy) {
  for (const Entry& e : kStrategies)
    if (e.name == strategy) return e;
  throw InputError("sync: unknown strategy '" + std::string(strategy) + "' (choose " +
                   known_names() + ")");
}

// The input every strategy needs: a positive size, and at least 2 distinct GPUs of `machine`
// (all of its GPUs when none are named).
sync::SyncInput checked_input(const Entry& entry, const Machine& machine,
                              const SyncOptions& options) {
  sync::SyncInput input{machine,
                        entry.name,
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
  return input;
}

}  // namespace

void check_sync_plan(std::string_view strategy, const Machine& machine,
                     const SyncOptions& options) {
  const Entry& entry = entry_of(strategy);
  const sync::SyncInput input = checked_input(entry, machine, options);
  try {
    if (entry.check != nullptr) entry.check(input);
  } catch (const std::invalid_argument& e) {  // e.g. no route between two devices
    sync::fail(input, e.what());
  }
}

SyncPlan make_sync_plan(std::string_view strategy, const Machine& machine,
                        const SyncOptions& options) {
  const Entry& entry = entry_of(strategy);
  const sync::SyncInput input = checked_input(entry, machine, options);
  try {
    return entry.make(input);
  } catch (const std::invalid_argument& e) {  // e.g. no route between two devices
    sync::fail(input, e.what());
  }
}

}  // namespace opsim
