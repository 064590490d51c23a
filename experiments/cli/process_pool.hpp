// Runs jobs in forked child processes, a few at a time. SimGrid allows one engine per
// process, so every simulation of a comparison or a sweep gets its own process; the child
// sends its result back as a string through a pipe.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace opsim {

struct ChildOutcome {
  bool ok = false;
  std::string output;  ///< the job's return value, or the error message when !ok
};

/// Runs every job, at most `parallel` at once, each in a fresh forked child. A job that
/// throws reports its what(); a child that crashes reports its signal. `on_done(index)`
/// is called in the parent as each job ends (for progress bars). Results keep job order.
/// Call only from a single-threaded process.
std::vector<ChildOutcome> run_in_children(const std::vector<std::function<std::string()>>& jobs,
                                          unsigned parallel,
                                          const std::function<void(std::size_t)>& on_done = {});

}  // namespace opsim
