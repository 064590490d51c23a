// Runs jobs in forked child processes and brings back each one's result string, or why it
// failed: bad input, an internal error, or a crash. SimGrid allows one Engine per process,
// so every simulation of a comparison, a sweep or a validation gets a process of its own.
//
//   std::string json = run_isolated([&] { return to_json(simulate(machine, graph)); });
//
// A child inherits the parent's memory (the machine, the graph) by fork(); only the result
// crosses back, through a pipe, after one byte that says what kind of answer it is. A child
// dies with its parent.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace opsim {

enum class ChildFailure {
  kNone,           ///< the job returned its result
  kInputError,     ///< the job threw InputError: the user's input is wrong
  kInternalError,  ///< the job threw anything else, or the child exited without answering
  kCrashed,        ///< the child was killed by a signal
};

struct ChildOutcome {
  ChildFailure failure = ChildFailure::kNone;
  std::string text;  ///< the job's result, or a one-line reason when it failed
  bool ok() const { return failure == ChildFailure::kNone; }
};

/// A child that failed for a reason other than bad input (an internal error or a crash).
class ChildProcessFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Children started one at a time and collected as they end: the loop under
/// run_isolated_jobs, for a caller that decides what to start next as results come in (a
/// sweep that resumes, stops on SIGINT or takes its points from MPI rank 0).
///
///   IsolatedJobPool pool;
///   pool.start(7, [] { return simulate_point(7); });
///   for (auto& [id, outcome] : pool.wait(100)) record(id, outcome);
///
/// Call only from a single-threaded process, as run_isolated_jobs.
class IsolatedJobPool {
 public:
  IsolatedJobPool() = default;
  IsolatedJobPool(const IsolatedJobPool&) = delete;
  IsolatedJobPool& operator=(const IsolatedJobPool&) = delete;
  /// Kills and reaps the children still running.
  ~IsolatedJobPool();

  /// `ignore`: children ignore SIGINT and SIGTERM, so a Ctrl-C at the terminal or a SIGTERM
  /// to the whole process group stops the parent from handing out work while they finish
  /// theirs (the parent kills them with SIGKILL when they take too long; they die with it).
  void set_children_ignore_interrupts(bool ignore) { ignore_interrupts_ = ignore; }
  /// Forks a child that runs `job`; throws std::system_error when pipe or fork fail.
  void start(std::size_t id, const std::function<std::string()>& job);
  std::size_t running() const { return running_.size(); }
  /// Waits at most `timeout_ms` (-1: until one ends) and returns the children that ended,
  /// with the ids they were started with. Returns early and empty when a signal arrives.
  std::vector<std::pair<std::size_t, ChildOutcome>> wait(int timeout_ms);
  /// Sends SIGKILL to every running child; wait() then reports them as crashed.
  void kill_all();

 private:
  struct Child {
    std::size_t id;
    int pid;
    int fd;
    std::string received;
  };
  std::vector<Child> running_;
  bool ignore_interrupts_ = false;
};

/// Runs every job, at most `parallel` at once, each in a fresh forked child.
/// `on_done(index, outcome)` is called in the parent as each job ends (for progress bars, or
/// to note what a job wrote). Outcomes keep job order.
/// Throws std::system_error when pipe, fork or poll fail. Call only from a single-threaded
/// process (the children copy no other threads, and the locks those held stay held).
std::vector<ChildOutcome> run_isolated_jobs(
    const std::vector<std::function<std::string()>>& jobs, unsigned parallel,
    const std::function<void(std::size_t, const ChildOutcome&)>& on_done = {});

/// Throws what `outcome` says, each message prefixed with `context` (e.g. "ring on dgx1: "):
/// InputError for bad input, ChildProcessFailure otherwise. Does nothing when it is ok.
void throw_if_failed(const ChildOutcome& outcome, const std::string& context = "");

/// Runs one job in a child and returns its result, or throws as throw_if_failed does.
std::string run_isolated(const std::function<std::string()>& job);

}  // namespace opsim
