// The sweep CSV's layout: one row per point,
//
//   key,<one column per axis>,makespan_s,...,sim_wall_s,error,point,points,sweep
//
// `key` is the point's hash (sweep_spec.hpp's point_key), `point` its index in grid order,
// `points` how many the whole sweep has and `sweep` a hash of every point's key in order:
// rows of one sweep (its shards, its resumed runs) share it. Rows hold no line breaks.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/csv_table.hpp"
#include "experiments/cli/sweep_spec.hpp"

namespace opsim {

/// The columns, in order, of `spec`'s CSV.
std::vector<std::string> sweep_columns(const SweepSpec& spec);

/// The header line (no line break).
std::string sweep_header(const SweepSpec& spec);

/// 16 hex digits over every point's key in grid order: any change to the points, their
/// values or their order changes it.
std::string sweep_fingerprint(const std::vector<std::string>& keys);

/// A row: key, axis values, the metric cells (sweep_point_run.hpp), bookkeeping.
std::string sweep_row(const std::vector<std::string>& keys, const SweepPoint& point,
                      std::size_t index, const std::string& metric_cells,
                      const std::string& fingerprint);

}  // namespace opsim
