// "tree": the book's first data-parallel scheme. Every GPU sends its whole gradient to the
// first GPU, which adds them and broadcasts the sum back: 2(n-1) full-size transfers through
// GPU0's link, 60 ms for 160 MB on four GPUs behind a 16 GB/s switch.
#include "experiments/sync/sync_common.hpp"

namespace opsim::sync {

SyncPlan make_tree_plan(const SyncInput& input) {
  const DeviceId root = input.gpus.front();
  const std::span<const DeviceId> others(input.gpus.begin() + 1, input.gpus.end());
  const std::string detail = "gather on " + input.machine.device(root).name + ", broadcast back";
  return make_hub_plan(input, root, others, static_cast<int>(input.gpus.size()), detail);
}

}  // namespace opsim::sync
