// All-to-all: every GPU sends S/n to each other GPU directly (NCCL's grouped send/recv),
// posted in rounds of peer offset k: each round is a permutation, so when a GPU's copy
// engines take its sends one after another no GPU receives two at once. Each GPU sends and
// receives (n-1)/n * S. Send/recv (nccl-tests' sendrecv_perf): GPU i sends S to GPU i+1.
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_direct_all_to_all(StepBuilder& builder, std::span<const DeviceId> gpus, double bytes) {
  const std::size_t n = gpus.size();
  const double piece = bytes / static_cast<double>(n);
  sync::NameBuffer name;
  for (std::size_t k = 1; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = (i + k) % n;
      name.clear().text("a2a ").number(i).text("→").number(j);
      builder.copy(gpus[i], gpus[j], piece, name.view(), -1, k == 1);
    }
}

void add_sendrecv(StepBuilder& builder, std::span<const DeviceId> gpus, double bytes) {
  const std::size_t n = gpus.size();
  sync::NameBuffer name;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = (i + 1) % n;
    name.clear().text("send ").number(i).text("→").number(j);
    builder.copy(gpus[i], gpus[j], bytes, name.view(), -1, true);
  }
}

}  // namespace opsim::collectives
