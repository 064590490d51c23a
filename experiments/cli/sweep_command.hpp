// `opsim sweep SPEC [-o FILE]`: every point of a sweep spec (sweep_spec.hpp), one child
// process each, one CSV row each (sweep_table.hpp). With -o the file is a journal
// (sweep_journal.hpp): rerunning the same command resumes it; under `mpirun` rank 0 hands
// the points out to the other ranks (sweep_mpi.hpp). `opsim sweep merge A.csv B.csv -o all.csv`
// joins shards (--shard I/N).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "experiments/cli/command.hpp"

namespace opsim {

struct SweepOptions {
  std::string spec_path;
  std::string out_path;  ///< empty: stdout, no resume
  unsigned parallel = 2;
  bool jobs_given = false;  ///< -j on the command line (under mpirun: points per worker rank)
  bool restart = false;
  std::string shard = "1/1";  ///< "I/N": every N-th point from the I-th (1-based)
  double grace_s = 10;        ///< after SIGINT/SIGTERM, how long running points may finish
  std::string plot_path;      ///< non-empty: `opsim plot` of --out into this image at the end
};

int run_sweep(const SweepOptions& options);

/// With --plot, draws the finished --out CSV into the image (as `opsim plot` with its defaults).
void plot_sweep(const SweepOptions& options);

struct SweepPlan;
/// The sweep in this process's children, `options.parallel` at once (no MPI).
int run_sweep_locally(const SweepPlan& plan, const SweepOptions& options);

/// "sweep: 412 of 1000 points done, resuming" on stderr when some of `plan`'s points are
/// done (`todo`: those that are not).
void report_resume(const SweepPlan& plan, const std::vector<std::size_t>& todo);

/// Adds `opsim sweep` (and `opsim sweep merge`) to `opsim`.
Command register_sweep_command(CLI::App& opsim);

}  // namespace opsim
