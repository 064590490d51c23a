// Simulated time stays inside what a trace stores: int64 nanoseconds, about 292 years.
// Before a simulation starts, every op's time alone on the machine (its flops at the
// device's rate, its bytes through the narrowest link of its route, its disk requests) is
// checked against that range, so that an input too large is refused naming the op rather
// than giving a wrapped-around makespan; a run whose ops fit alone but queue past the range
// is refused when its clock gets there, naming the op that would end beyond it.
#pragma once

#include "engine/op_graph.hpp"
#include "hw_models/machine.hpp"
#include "hw_models/units.hpp"

namespace opsim {

/// The longest simulated run: 9.2e9 s, just under 2^63 ns.
inline constexpr double kMostSimulatedSeconds = 9.2e9;

/// Seconds `op` takes alone on `machine` (no other op sharing anything); a lower bound of
/// its time in any run.
double op_time_alone_s(const Machine& machine, const Op& op);

/// Throws InputError "SOURCE: op 'NAME' (#i) alone takes T s, beyond the 292 years ..."
/// for the first op whose time alone leaves the representable range.
void check_ops_fit_in_simulated_time(const Machine& machine, const OpGraph& graph);

/// `clock_s` as nanoseconds; throws InputError naming op `id` of `graph` when it is past
/// kMostSimulatedSeconds.
TimeNs simulated_ns(double clock_s, const OpGraph& graph, OpId id);

}  // namespace opsim
