// Runs the built `opsim` binary for end-to-end tests and captures what it printed.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "tests/support/scratch_files.hpp"

namespace opsim::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs build/bin/`program` with `args` in `dir` (files it writes by default land there), with
/// no standard input; `env` (e.g. "env -u DISPLAY") goes before the program.
inline CommandResult run_program(const std::string& program, const std::string& args,
                                 const std::filesystem::path& dir, const std::string& env = "") {
  const auto out = dir / "stdout", err = dir / "stderr";
  const std::string command = "cd " + dir.string() + " && " + env + " " + OPSIM_BINARY_DIR +
                              "/bin/" + program + " " + args + " >" + out.string() + " 2>" +
                              err.string() + " </dev/null";
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(out);
  result.err = slurp(err);
  return result;
}

/// Starts `argv` (argv[0] looked up in PATH) in the background, no standard input or output,
/// stderr into `err_path`, in a process group of its own (kill(-pid, ...) ends all it
/// started); returns its pid.
inline pid_t start_process(const std::vector<std::string>& argv,
                           const std::filesystem::path& err_path) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int null = ::open("/dev/null", O_RDWR);
  ::dup2(null, STDIN_FILENO);
  ::dup2(null, STDOUT_FILENO);
  ::dup2(err, STDERR_FILENO);
  ::setpgid(0, 0);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  ::_exit(127);
}

/// The pids of `parent`'s children, read from /proc.
inline std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string pid, command, state;
    pid_t ppid = 0;
    if (stat >> pid >> command >> state >> ppid && ppid == parent)
      children.push_back(std::stoi(pid));
  }
  return children;
}

/// Runs build/bin/opsim with `args` in `dir`.
inline CommandResult run_opsim(const std::string& args, const std::filesystem::path& dir) {
  return run_program("opsim", args, dir);
}

}  // namespace opsim::test
