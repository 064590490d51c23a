// Running a sweep's points: the plan (which points, which are done), the tally of what
// finished (failures, the slowest point, the summary line), and the local runner that
// forks one child per point, `parallel` at once, and stops cleanly on SIGINT/SIGTERM.
//
//   SweepPlan plan = plan_sweep(load_sweep_spec("s.yaml"), {0, 1});
//   SweepJournal journal("out.csv", plan.header, plan.keys, plan.fingerprint, false);
//   SweepTally tally(plan);
//   run_points_locally(plan, points_to_run(plan, journal), journal, tally, /*parallel=*/2,
//                      /*grace_s=*/10);
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "experiments/cli/sweep_journal.hpp"
#include "experiments/cli/sweep_spec.hpp"
#include "sim/isolated_run.hpp"

namespace opsim {

/// Shard `index` of `count` (0-based index) takes the points whose grid index is index
/// modulo count; {0, 1} is the whole sweep.
struct SweepShard {
  std::size_t index = 0;
  std::size_t count = 1;
};

struct SweepPlan {
  SweepSpec spec;
  std::vector<SweepPoint> points;  ///< every point of the sweep, in grid order
  std::vector<std::string> keys;   ///< point_key of each
  std::string fingerprint;         ///< sweep_fingerprint(keys)
  std::string header;
  std::vector<std::size_t> selected;  ///< this shard's points
};

SweepPlan plan_sweep(SweepSpec spec, SweepShard shard);

/// The points of `plan.selected` the journal does not hold yet, in grid order.
std::vector<std::size_t> points_to_run(const SweepPlan& plan, const SweepJournal& journal);

/// The job a child runs for point `index`: its metric cells (sweep_point_run.hpp).
std::string simulate_point(const SweepPlan& plan, std::size_t index);

/// What finished: counts, the first failure, the slowest point; the summary line.
class SweepTally {
 public:
  explicit SweepTally(const SweepPlan& plan);
  /// The row for `outcome` of point `index`, which took `seconds` in its child.
  std::string row(std::size_t index, const ChildOutcome& outcome, double seconds);
  /// "1000 points (3 failed) in 9.8 s, 102 points/s; slowest 0.21 s: strategy=ring, ..."
  std::string summary(const SweepJournal& journal) const;
  /// Throws for the first failure of this run (InputError, or ChildProcessFailure for a
  /// crash), naming how many points failed, the summary in the same line; returns when none
  /// did.
  void throw_first_failure(const SweepJournal& journal) const;

 private:
  const SweepPlan& plan_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::size_t ran_ = 0;
  std::size_t failed_ = 0;
  std::size_t first_failure_ = 0;
  ChildOutcome first_failure_outcome_;
  double slowest_s_ = -1;
  std::size_t slowest_ = 0;
};

/// SIGINT and SIGTERM set a flag while it lives (the run stops handing out points), and
/// take their default action again afterwards.
class StopOnSignal {
 public:
  StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  ~StopOnSignal();
  /// The signal that arrived, or 0.
  static int received();
};

/// Runs `todo` (point indexes) in forked children, `parallel` at once, each finished
/// point's row on disk before the next starts in its slot. On SIGINT/SIGTERM it hands out
/// no more points and waits `grace_s` for the running ones, then kills them (their points
/// run again on resume). Returns the signal that stopped it, or 0.
int run_points_locally(const SweepPlan& plan, const std::vector<std::size_t>& todo,
                       SweepJournal& journal, SweepTally& tally, unsigned parallel, double grace_s);

}  // namespace opsim
