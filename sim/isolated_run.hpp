// Runs a job in a forked child process and returns the string it produced, so that one
// process can run many SimGrid simulations (SimGrid allows one Engine per process).
//
//   std::string json = run_isolated([&] { return to_json(simulate(machine, graph)); });
//
// The child inherits the parent's memory (the machine, the graph) by fork(); only the
// result string crosses back, through a pipe.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace opsim {

/// The child threw: what() is the child's exception message.
class IsolatedRunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs `job` in a child process and returns its result. Throws IsolatedRunError with the
/// child's message when the job throws, and with the exit status or signal when the child
/// dies without answering (a crash, an abort, std::exit). Throws std::system_error when
/// fork or pipe fail. Do not call it while other threads hold locks the job needs.
std::string run_isolated(const std::function<std::string()>& job);

}  // namespace opsim
