#include "experiments/cli/process_pool.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace opsim {
namespace {

void write_all(int fd, const std::string& data) {
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

struct Running {
  std::size_t index;
  pid_t pid;
  int fd;
  std::string buffer;
};

}  // namespace

std::vector<ChildOutcome> run_in_children(const std::vector<std::function<std::string()>>& jobs,
                                          unsigned parallel,
                                          const std::function<void(std::size_t)>& on_done) {
  std::vector<ChildOutcome> outcomes(jobs.size());
  std::vector<Running> running;
  std::size_t next = 0;
  if (parallel == 0) parallel = 1;

  auto start = [&](std::size_t index) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::close(fds[0]);
      // First byte: 'o' for a result, 'e' for an error message.
      try {
        write_all(fds[1], "o" + jobs[index]());
        ::close(fds[1]);
        ::_exit(0);
      } catch (const std::exception& e) {
        write_all(fds[1], std::string("e") + e.what());
      } catch (...) {
        write_all(fds[1], "eunknown error");
      }
      ::close(fds[1]);
      ::_exit(1);
    }
    ::close(fds[1]);
    running.push_back(Running{index, pid, fds[0], {}});
  };

  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && running.size() < parallel) start(next++);
    std::vector<pollfd> polls;
    for (const Running& r : running) polls.push_back(pollfd{r.fd, POLLIN, 0});
    if (::poll(polls.data(), polls.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (std::size_t i = running.size(); i-- > 0;) {
      if (!(polls[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Running& r = running[i];
      char chunk[65536];
      const ssize_t n = ::read(r.fd, chunk, sizeof chunk);
      if (n > 0) {
        r.buffer.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      ::close(r.fd);
      int status = 0;
      while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
      }
      ChildOutcome& outcome = outcomes[r.index];
      if (!r.buffer.empty() && r.buffer[0] == 'o' && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0) {
        outcome.ok = true;
        outcome.output = r.buffer.substr(1);
      } else if (!r.buffer.empty() && r.buffer[0] == 'e') {
        outcome.output = r.buffer.substr(1);
      } else if (WIFSIGNALED(status)) {
        outcome.output =
            std::string("simulation process crashed (") + ::strsignal(WTERMSIG(status)) + ")";
      } else {
        outcome.output =
            "simulation process exited with status " + std::to_string(WEXITSTATUS(status));
      }
      const std::size_t done = r.index;
      running.erase(running.begin() + static_cast<long>(i));
      if (on_done) on_done(done);
    }
  }
  return outcomes;
}

}  // namespace opsim
