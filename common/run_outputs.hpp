// The files one run writes into an output directory (`compare --trace-dir`, `validate
// --trace-dir`): kept when the run completes, removed when it fails, so that a failed run
// leaves nothing of its own that could pass for a complete set of traces.
//
//   RunOutputs traces("out/traces");
//   traces.prepare();                       // creates out/traces (and out) where missing
//   write_chrome_trace(trace, "out/traces/ring.json");
//   traces.wrote("out/traces/ring.json");
//   ...
//   traces.keep();                          // the run succeeded
//
// Without keep(), the destructor (an exception on its way to the exit code) removes every
// file recorded with wrote(), then the directories prepare() created, when they are empty.
// A file of the same name that an earlier run left was replaced by this run's and goes with
// it; files this run did not write stay. SIGINT, SIGTERM and SIGHUP remove the recorded
// files too (temporary_files.hpp), a SIGKILL leaves them. A path that is not a regular file
// (a symlink, whose target was written, a FIFO, a device) is never removed.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace opsim {

class RunOutputs {
 public:
  /// `directory` empty: nothing is written, every call does nothing.
  explicit RunOutputs(std::filesystem::path directory) : directory_(std::move(directory)) {}
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;
  ~RunOutputs();

  const std::filesystem::path& directory() const { return directory_; }
  /// Creates the directory and its missing parents (once); throws InputError
  /// "--trace-dir DIR: <why>" when it cannot.
  void prepare();
  /// Records a complete file this run wrote.
  void wrote(const std::filesystem::path& file);
  /// The run succeeded: what it wrote stays.
  void keep();

 private:
  void forget_all();

  std::filesystem::path directory_;
  bool prepared_ = false;
  bool kept_ = false;
  std::vector<std::filesystem::path> created_;  // deepest first
  struct Written {
    std::filesystem::path path;
    int slot;  // in the table of files removed on a fatal signal
  };
  std::vector<Written> written_;
};

}  // namespace opsim
