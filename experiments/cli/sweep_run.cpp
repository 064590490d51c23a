#include "experiments/cli/sweep_run.hpp"

#include <csignal>
#include <cstdio>

#include "common/input_error.hpp"
#include "experiments/cli/number_text.hpp"
#include "experiments/cli/progress_bar.hpp"
#include "experiments/cli/sweep_point_run.hpp"
#include "experiments/cli/sweep_table.hpp"

namespace opsim {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void note_stop_signal(int signal) {
  g_stop_signal = signal;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Whether a row's error cell (the fourth column from the end) is filled.
bool row_failed(const std::string& row) {
  std::vector<std::string> fields;
  split_csv_line(row, fields);
  return fields.size() >= 4 && !fields[fields.size() - 4].empty();
}

}  // namespace

SweepPlan plan_sweep(SweepSpec spec, SweepShard shard) {
  SweepPlan plan;
  plan.points = sweep_points(spec);
  for (const SweepPoint& point : plan.points) plan.keys.push_back(point_key(spec, point));
  plan.fingerprint = sweep_fingerprint(plan.keys);
  plan.header = sweep_header(spec);
  for (std::size_t i = shard.index; i < plan.points.size(); i += shard.count)
    plan.selected.push_back(i);
  plan.spec = std::move(spec);
  return plan;
}

std::vector<std::size_t> points_to_run(const SweepPlan& plan, const SweepJournal& journal) {
  std::vector<std::size_t> todo;
  for (std::size_t index : plan.selected)
    if (!journal.has(index)) todo.push_back(index);
  return todo;
}

std::string simulate_point(const SweepPlan& plan, std::size_t index) {
  return run_sweep_point(plan.spec, plan.points[index]);
}

SweepTally::SweepTally(const SweepPlan& plan) : plan_(plan) {}

std::string SweepTally::row(std::size_t index, const ChildOutcome& outcome, double seconds) {
  ++ran_;
  if (seconds > slowest_s_) {
    slowest_s_ = seconds;
    slowest_ = index;
  }
  if (!outcome.ok() && failed_++ == 0) {
    first_failure_ = index;
    first_failure_outcome_ = outcome;
  } else if (!outcome.ok() && first_failure_outcome_.failure == ChildFailure::kInputError &&
             outcome.failure != ChildFailure::kInputError) {
    first_failure_ = index;  // a crash or internal error outranks bad input
    first_failure_outcome_ = outcome;
  }
  const std::string cells = outcome.ok() ? outcome.text : failed_point_cells(outcome.text);
  return sweep_row(plan_.keys, plan_.points[index], index, cells, plan_.fingerprint);
}

std::string SweepTally::summary(const SweepJournal& journal) const {
  std::size_t done = 0, failed_rows = 0;
  for (std::size_t index : plan_.selected) {
    if (!journal.has(index)) continue;
    ++done;
    if (row_failed(journal.row(index))) ++failed_rows;
  }
  const double wall_s = seconds_since(start_);
  std::string text =
      std::to_string(done) + " of " + std::to_string(plan_.selected.size()) + " points done";
  if (ran_ != done) text += " (" + std::to_string(ran_) + " in this run)";
  text += ", " + std::to_string(failed_rows) + " failed, " + fixed_text(wall_s, 1) + " s";
  if (ran_ > 0 && wall_s > 0)
    text += ", " + fixed_text(static_cast<double>(ran_) / wall_s, 1) + " points/s";
  if (slowest_s_ >= 0)
    text += "; slowest " + fixed_text(slowest_s_, 3) +
            " s: " + describe_point(plan_.spec, plan_.points[slowest_]);
  return text;
}

void SweepTally::throw_first_failure(const SweepJournal& journal) const {
  if (failed_ == 0) return;
  ChildOutcome outcome = first_failure_outcome_;
  outcome.text += " (" + std::to_string(failed_) + " of " + std::to_string(journal.done()) +
                  " points failed; the error column names each) [sweep: " + summary(journal) + "]";
  throw_if_failed(outcome, describe_point(plan_.spec, plan_.points[first_failure_]) + ": ");
}

StopOnSignal::StopOnSignal() {
  g_stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: poll returns at once
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

StopOnSignal::~StopOnSignal() {
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
}

int StopOnSignal::received() {
  return g_stop_signal;
}

int run_points_locally(const SweepPlan& plan, const std::vector<std::size_t>& todo,
                       SweepJournal& journal, SweepTally& tally, unsigned parallel,
                       double grace_s) {
  IsolatedJobPool pool;
  pool.set_children_ignore_interrupts(true);
  ProgressBar progress(todo.size(), "points");
  std::vector<std::chrono::steady_clock::time_point> started(plan.points.size());
  bool killed = false;
  std::chrono::steady_clock::time_point stop_time;
  std::size_t next = 0;
  auto fill_slots = [&] {
    for (; StopOnSignal::received() == 0 && next < todo.size() && pool.running() < parallel;
         ++next) {
      const std::size_t index = todo[next];
      started[index] = std::chrono::steady_clock::now();
      pool.start(index, [&plan, index] { return simulate_point(plan, index); });
    }
  };
  fill_slots();
  while (pool.running() > 0) {
    const bool stopping = StopOnSignal::received() != 0;
    if (stopping && stop_time == std::chrono::steady_clock::time_point{})
      stop_time = std::chrono::steady_clock::now();
    if (stopping && seconds_since(stop_time) > grace_s) {
      pool.kill_all();  // their points run again on resume
      killed = true;
    }
    std::vector<std::pair<std::size_t, std::string>> rows;
    for (const auto& [index, outcome] : pool.wait(stopping ? 100 : 1000)) {
      // Killed after the grace period, or by a signal meant for the whole sweep: the
      // point runs again on resume rather than leave a row that blames it.
      if ((killed || StopOnSignal::received() != 0) && outcome.failure == ChildFailure::kCrashed)
        continue;
      rows.emplace_back(index, tally.row(index, outcome, seconds_since(started[index])));
    }
    // The next points start before these rows are synced (a sync takes milliseconds); the
    // rows count as done, on the progress bar and in the summary, only once on disk.
    fill_slots();
    journal.append(rows);
    progress.advance(rows.size());
  }
  progress.finish();
  return StopOnSignal::received();
}

}  // namespace opsim
