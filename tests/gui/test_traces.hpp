// Traces built in code for the GUI tests: the book's 4-GPU PCIe-switch server running the
// "tree" allreduce (gather to gpu0, then broadcast), 160 MB at 16 GB/s: 60 ms.
#pragma once

#include <memory>

#include "engine/trace.hpp"

namespace opsim::gui::testing {

/// One millisecond in trace time (ns).
inline constexpr TimeNs kMs = 1000000;

/// gpu0..gpu3 (compute0, copy-out, copy-in lanes) and cpu0 (host) on server0, links
/// pcie_gpu0..3 and pcie_cpu0 (up/down, 16 GB/s). Gather 1..3 -> gpu0 in [0, 30 ms] sharing
/// "pcie_gpu0 down", a reduce on gpu0 [30, 32 ms], broadcast gpu0 -> 1..3 in [32, 62 ms].
std::shared_ptr<Trace> tree_trace();

/// One lane with `spans` back-to-back 1 us ops (for culling and merging).
std::shared_ptr<Trace> dense_trace(std::size_t spans);

}  // namespace opsim::gui::testing
