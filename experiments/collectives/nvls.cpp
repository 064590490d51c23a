// NVLS, NCCL's in-switch allreduce (NVLink SHARP) within one server: GPU i owns shard i of S;
// the switch reads shard i from every GPU, reduces it and hands it to GPU i, which writes it
// back once for the switch to multicast to all. Each GPU's switch port then carries its
// whole buffer plus one shard each way, S(n+1)/n, against a ring's 2(n-1)/n * S. opsim's
// copies join memories, not switches, so the graph spreads those port loads over direct
// GPU-to-GPU copies of S(n+1)/(n(n-1)) each, which load every port exactly so; the switch's
// reduction runs at nvls_efficiency of the NVLink rate (NCCL's nvlsEfficiency). The copies
// go in rounds of peer offset k on one stream per GPU: each round is a permutation, so every
// port carries one copy each way at a time. Reduce-scatter and all-gather (NCCL 2.19 on):
// GPU i reads shard i reduced from every GPU, or writes its shard once for the switch to
// multicast to all; a port carries (n-1)/n S one way, as a ring's, so the graph is S/n from
// every GPU to every other.
#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

void add_nvls(StepBuilder& builder, std::string_view op, std::span<const DeviceId> gpus,
              double bytes) {
  const std::size_t n = gpus.size();
  const double nvls_efficiency =
      builder.protocol() == Protocol::kWire ? 1.0 : builder.machine().collectives().nvls_efficiency;
  const double port_bytes = op == "allreduce" ? bytes * static_cast<double>(n + 1) / n
                                              : bytes * static_cast<double>(n - 1) / n;
  const double piece = port_bytes / static_cast<double>(n - 1) / nvls_efficiency;
  sync::NameBuffer name;
  for (std::size_t k = 1; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = (i + k) % n;
      name.clear().text("nvls ").number(i).text("→").number(j);
      builder.copy(gpus[i], gpus[j], piece, name.view(), 0, k == 1);
    }
}

}  // namespace opsim::collectives
