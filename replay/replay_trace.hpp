// The recorded and the replayed timeline of a replay as opsim traces with the same ops in
// the same order on the same lanes (the recorded threads and CUDA streams), so that an
// overlay pairs each op with its twin.
#pragma once

#include <vector>

#include "engine/trace.hpp"
#include "replay/replay_graph.hpp"
#include "sim/simulate.hpp"

namespace opsim::replay {

/// The replayed timeline (`simulation` given) or the recorded one (nullptr): backend "sim"
/// or "real", one op per graph op, the graph's dependencies.
Trace replay_trace(const ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                   const SimulationResult* simulation);

}  // namespace opsim::replay
