// Output files that are never half-written and never replace what they should not.
// A regular file (or a new one) is written to a unique temporary in the same directory,
// synced and renamed over the target once complete; a failed or interrupted write leaves
// the old file as it was. A symlink given as the output writes its target (the link stays
// a link). A FIFO or a character device (/dev/stdout, a terminal) is written as a stream,
// never replaced. A directory, a block device or a socket is refused.
//
//   check_output_path("out/trace.json", "trace");   // before the work: throws InputError
//   AtomicFile file("out/trace.json");
//   file.stream() << header;
//   file.commit();            // throws InputError "out/trace.json: cannot write: ..."
//
// Temporaries are named ".NAME.tmp-PID-XXXXXX": SIGINT, SIGTERM and SIGHUP remove the
// process's own before it dies, and a later write of NAME removes those of processes that
// no longer exist (killed with SIGKILL).
#pragma once

#include <filesystem>
#include <fstream>
#include <string_view>

namespace opsim {

class AtomicFile {
 public:
  /// Creates the temporary file beside the target of `path` (or opens a stream target);
  /// throws InputError naming `path` on failure.
  explicit AtomicFile(std::filesystem::path path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFile();

  std::ostream& stream() { return out_; }
  /// Flushes, syncs and renames the temporary over the target; throws InputError on failure
  /// (the temporary is removed, the target is left as it was).
  void commit();

  const std::filesystem::path& path() const { return path_; }
  /// Empty when the target is written as a stream (FIFO, character device).
  const std::filesystem::path& temp_path() const { return temp_path_; }

 private:
  [[noreturn]] void fail(std::string_view what, int error);

  std::filesystem::path path_;    // as given
  std::filesystem::path target_;  // after following symlinks
  std::filesystem::path temp_path_;
  std::ofstream out_;
  int slot_ = -1;  // in the table of temporaries removed on a fatal signal
  bool committed_ = false;
};

/// Throws InputError "PATH: cannot write <what>: <why>" unless `path` can be written: its
/// directory exists and is writable, and it is not a directory, block device or socket.
/// Call before the work whose result goes there.
void check_output_path(const std::filesystem::path& path, std::string_view what);

/// Writes `contents` to `path` atomically; throws InputError naming `path` on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace opsim
