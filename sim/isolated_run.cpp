#include "sim/isolated_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace opsim {
namespace {

// The child writes one status byte ('R' result, 'E' error message) and then the text.
constexpr char kResult = 'R';
constexpr char kError = 'E';

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void child_main(int fd, const std::function<std::string()>& job) {
  std::string message(1, kResult);
  try {
    message += job();
  } catch (const std::exception& e) {
    message.assign(1, kError);
    message += e.what();
  } catch (...) {
    message.assign(1, kError);
    message += "unknown exception";
  }
  const bool ok = write_all(fd, message.data(), message.size());
  ::close(fd);
  // _exit: no atexit handlers or static destructors of the parent's state (SimGrid's).
  ::_exit(ok ? 0 : 3);
}

}  // namespace

std::string run_isolated(const std::function<std::string()>& job) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::system_error(err, std::generic_category(), "fork");
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], job);
  }
  ::close(fds[1]);
  std::string received;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    received.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (clean_exit && !received.empty() && received[0] == kResult) return received.substr(1);
  if (clean_exit && !received.empty() && received[0] == kError)
    throw IsolatedRunError(received.substr(1));
  if (WIFSIGNALED(status))
    throw IsolatedRunError("isolated run: child process killed by signal " +
                           std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) +
                           ")");
  throw IsolatedRunError("isolated run: child process exited with status " +
                         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                         " without a result");
}

}  // namespace opsim
