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
// every GPU to every other. NVLS works in chunks, each with a fixed cost on its channel
// (nvls_chunk_cost_s); the graph pays them before its first round.
#include <algorithm>
#include <cmath>
#include <utility>

#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

double nvls_chunk_bytes(const CollectiveModel& model, double bytes, std::size_t gpus) {
  const double concurrent = static_cast<double>(model.nvls_channels) * static_cast<double>(gpus);
  double chunk = model.nvls_chunk_bytes;
  // NCCL's own steps down for smaller collectives (src/enqueue.cc, calcCollChunking).
  const std::pair<double, double> steps[] = {{64, 65536}, {8, 32768}, {2, 16384}};
  for (const auto& [times, smaller] : steps)
    if (bytes < times * concurrent * chunk && chunk > smaller) chunk = smaller;
  return chunk;
}

double nvls_chunk_cost_s(const CollectiveModel& model, double bytes, std::size_t gpus) {
  const double concurrent = static_cast<double>(model.nvls_channels) * static_cast<double>(gpus);
  const double chunks_in_turn =
      std::ceil(bytes / (nvls_chunk_bytes(model, bytes, gpus) * concurrent));
  return std::max(1.0, chunks_in_turn) * model.nvls_chunk_s;
}

void add_nvls(StepBuilder& builder, std::string_view op, std::span<const DeviceId> gpus,
              double bytes) {
  const std::size_t n = gpus.size();
  const double nvls_efficiency =
      builder.protocol() == Protocol::kWire ? 1.0 : builder.machine().collectives().nvls_efficiency;
  const double port_bytes = op == "allreduce" ? bytes * static_cast<double>(n + 1) / n
                                              : bytes * static_cast<double>(n - 1) / n;
  const double piece = port_bytes / static_cast<double>(n - 1) / nvls_efficiency;
  const double chunks_s = builder.protocol() == Protocol::kWire
                              ? 0.0
                              : nvls_chunk_cost_s(builder.machine().collectives(), bytes, n);
  sync::NameBuffer name;
  for (std::size_t k = 1; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = (i + k) % n;
      name.clear().text("nvls ").number(i).text("→").number(j);
      const OpId copy = builder.copy(gpus[i], gpus[j], piece, name.view(), 0, k == 1);
      if (k == 1) builder.graph().mutable_op(copy).seconds += chunks_s;
    }
}

}  // namespace opsim::collectives
