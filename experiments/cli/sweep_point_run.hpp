// One sweep point, simulated in this process (a child of the sweep: one SimGrid engine per
// process): a strategy, a collective, a workload file or a replayed trace, with the point's
// machine edits. Its result is the row's metric cells.
//
//   const std::string cells = run_sweep_point(spec, points[7]);   // "0.06,0.06,2.66,..."
#pragma once

#include <string>
#include <vector>

#include "experiments/cli/sweep_spec.hpp"

namespace opsim {

/// The CSV columns after the axes, the same for every kind of point (a metric that does not
/// apply stays empty): makespan_s, lower_bound_s, algbw_GBps, busbw_GBps, bytes_moved,
/// busiest_link, busiest_link_utilization, ops, gpus_used, sim_wall_s, error.
const std::vector<std::string>& sweep_metric_columns();

/// Runs the point and returns its metric cells, CSV-quoted and comma-joined, the error
/// cell (last) empty. Throws InputError when the point does not apply (an unknown strategy,
/// a what-if naming no link of the machine, too few GPUs), anything else when it fails.
std::string run_sweep_point(const SweepSpec& spec, const SweepPoint& point);

/// The metric cells of a point that failed with `error` (one line).
std::string failed_point_cells(const std::string& error);

}  // namespace opsim
