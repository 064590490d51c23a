// One collective, simulated: make_collective's graph run on the machine, as `opsim collective`
// and `opsim nccl-check` run each size. SimGrid allows one engine per process, so call it in
// a child (run_isolated_jobs), one call per child.
//
//   jobs.push_back([&] { return makespan_text(simulate_collective_s(m, "allreduce", opts)); });
#pragma once

#include <string>
#include <string_view>

#include "experiments/collectives/collective.hpp"
#include "hw_models/machine.hpp"

namespace opsim {

/// The collective's simulated time in seconds. With `trace_path`, writes its Chrome trace
/// there too. Throws InputError as make_collective does.
double simulate_collective_s(const Machine& machine, std::string_view op,
                             const CollectiveOptions& options, const std::string& trace_path = "");

/// A time as a child sends it back: every digit a double holds ("%.17g").
std::string makespan_text(double seconds);

}  // namespace opsim
