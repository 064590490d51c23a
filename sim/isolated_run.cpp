#include "sim/isolated_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "common/input_error.hpp"

namespace opsim {
namespace {

// The first byte a child writes says what the text after it is.
constexpr char kResult = 'R';
constexpr char kInputError = 'I';
constexpr char kInternalError = 'E';

[[noreturn]] void throw_errno(const char* call) {
  throw std::system_error(errno, std::generic_category(), call);
}

bool write_all(int fd, const std::string& data) {
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

std::string physical_memory_text() {
  const double bytes =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  char text[32];
  std::snprintf(text, sizeof text, "%.0f GiB", bytes / double(1u << 30));
  return text;
}

std::string answer_of(const std::function<std::string()>& job) {
  try {
    return kResult + job();
  } catch (const InputError& e) {
    return kInputError + std::string(e.what());
  } catch (const std::bad_alloc&) {
    // The run asked for more than this machine's memory: the input is too large for it.
    return kInputError + std::string("out of memory: this run needs more than the ") +
           physical_memory_text() + " of memory this machine has; simulate fewer GPUs or ops";
  } catch (const std::exception& e) {
    return kInternalError + std::string(e.what());
  } catch (...) {
    return kInternalError + std::string("unknown exception");
  }
}

[[noreturn]] void child_main(int fd, pid_t parent, bool ignore_interrupts,
                             const std::function<std::string()>& job) {
  // Die with the parent; it may have died before prctl, and then we were reparented.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(3);
  if (ignore_interrupts) {
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGTERM, SIG_IGN);
  }
  const bool written = write_all(fd, answer_of(job));
  ::close(fd);
  // _exit: no atexit handlers or static destructors of the parent's state (SimGrid's).
  ::_exit(written ? 0 : 3);
}

ChildOutcome outcome_of(const std::string& received, int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    return {ChildFailure::kCrashed, "child process killed by signal " + std::to_string(signal) +
                                        " (" + ::strsignal(signal) + ")"};
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !received.empty()) {
    const std::string text = received.substr(1);
    if (received[0] == kResult) return {ChildFailure::kNone, text};
    if (received[0] == kInputError) return {ChildFailure::kInputError, text};
    if (received[0] == kInternalError) return {ChildFailure::kInternalError, text};
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return {ChildFailure::kInternalError,
          "child process exited with status " + std::to_string(code) + " without a result"};
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

IsolatedJobPool::~IsolatedJobPool() {
  kill_all();
  for (const Child& child : running_) {
    ::close(child.fd);
    reap(child.pid);
  }
}

void IsolatedJobPool::start(std::size_t id, const std::function<std::string()>& job) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    errno = error;
    throw_errno("fork");
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], parent, ignore_interrupts_, job);
  }
  ::close(fds[1]);
  running_.push_back(Child{id, pid, fds[0], {}});
}

std::vector<std::pair<std::size_t, ChildOutcome>> IsolatedJobPool::wait(int timeout_ms) {
  std::vector<std::pair<std::size_t, ChildOutcome>> ended;
  if (running_.empty()) return ended;
  std::vector<pollfd> polls;
  for (const Child& child : running_) polls.push_back(pollfd{child.fd, POLLIN, 0});
  if (::poll(polls.data(), polls.size(), timeout_ms) < 0) {
    if (errno == EINTR) return ended;
    throw_errno("poll");
  }
  for (std::size_t i = running_.size(); i-- > 0;) {
    if (!(polls[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    Child& child = running_[i];
    char chunk[1 << 16];
    const ssize_t n = ::read(child.fd, chunk, sizeof chunk);
    if (n > 0) {
      child.received.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    ::close(child.fd);
    ended.emplace_back(child.id, outcome_of(child.received, reap(child.pid)));
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return ended;
}

void IsolatedJobPool::kill_all() {
  for (const Child& child : running_) ::kill(child.pid, SIGKILL);
}

std::vector<ChildOutcome> run_isolated_jobs(
    const std::vector<std::function<std::string()>>& jobs, unsigned parallel,
    const std::function<void(std::size_t, const ChildOutcome&)>& on_done) {
  std::vector<ChildOutcome> outcomes(jobs.size());
  IsolatedJobPool pool;
  std::size_t next = 0;
  if (parallel == 0) parallel = 1;
  while (next < jobs.size() || pool.running() > 0) {
    for (; next < jobs.size() && pool.running() < parallel; ++next) pool.start(next, jobs[next]);
    for (auto& [index, outcome] : pool.wait(-1)) {
      outcomes[index] = std::move(outcome);
      if (on_done) on_done(index, outcomes[index]);
    }
  }
  return outcomes;
}

void throw_if_failed(const ChildOutcome& outcome, const std::string& context) {
  switch (outcome.failure) {
    case ChildFailure::kNone:
      return;
    case ChildFailure::kInputError:
      throw InputError(context + outcome.text);
    case ChildFailure::kInternalError:
    case ChildFailure::kCrashed:
      throw ChildProcessFailure(context + outcome.text);
  }
}

std::string run_isolated(const std::function<std::string()>& job) {
  std::vector<ChildOutcome> outcomes = run_isolated_jobs({job}, 1);
  throw_if_failed(outcomes.front());
  return std::move(outcomes.front().text);
}

}  // namespace opsim
