// `opsim sweep merge A.csv B.csv ... -o all.csv`: joins the CSVs of one sweep's shards
// (`--shard I/N`) or of separate runs into one, in grid order, one row per point. Every
// input must hold rows of the same sweep (same columns, same `sweep` fingerprint). Points
// held twice keep the first row (a point with two different results is reported);
// points held by no input are reported by index. Exit 0 only when every point is there once.
#pragma once

#include <string>
#include <vector>

namespace opsim {

struct SweepMergeOptions {
  std::vector<std::string> inputs;
  std::string out_path;
};

/// Writes the merged CSV (atomically) and one summary line on stderr; returns 0 when the
/// sweep is complete, 1 when points are missing. Throws InputError for unreadable inputs
/// and inputs of different sweeps.
int run_sweep_merge(const SweepMergeOptions& options);

}  // namespace opsim
