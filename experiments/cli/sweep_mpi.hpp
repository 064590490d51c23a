// `mpirun -n K opsim sweep SPEC -o FILE`: rank 0 owns the journal and hands out one point at
// a time to whichever rank asks (so a long point stalls only its rank); ranks 1..K-1 each
// run their points in forked children (a crash loses that point, not the rank), one at a
// time or -j at a time when -j is given, and send back each row's cells. Rank 0 does not
// simulate: on a busy machine its quick answers keep every worker fed. Built only where CMake finds MPI (OPSIM_HAVE_MPI).
//
//   if (mpi_launch_detected()) return run_sweep_mpi(plan, options);
#pragma once

#include "experiments/cli/sweep_command.hpp"
#include "experiments/cli/sweep_run.hpp"

namespace opsim {

/// Whether this process was started by an MPI launcher (mpirun, srun): their environment
/// variables, read without initializing MPI, so the plain binary never needs mpirun.
bool mpi_launch_detected();

/// Runs the sweep over every rank; the exit code for every rank (rank 0's decides).
int run_sweep_mpi(const SweepPlan& plan, const SweepOptions& options);

}  // namespace opsim
