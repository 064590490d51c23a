// Files are replaced atomically: contents go to a temporary file in the same directory,
// which is renamed over the target only once fully written. A failed write leaves the old
// file untouched and no temporary behind.
//
//   AtomicFile file("out/trace.json");
//   file.stream() << header;
//   file.commit();            // throws InputError "out/trace.json: cannot write: ..."
#pragma once

#include <filesystem>
#include <fstream>
#include <string_view>

namespace opsim {

class AtomicFile {
 public:
  /// Creates the temporary file beside `path`; throws InputError naming `path` on failure.
  explicit AtomicFile(std::filesystem::path path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFile();

  std::ostream& stream() { return out_; }
  /// Flushes, syncs and renames the temporary over `path`; throws InputError on failure
  /// (the temporary is removed, `path` is left as it was).
  void commit();

  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& temp_path() const { return temp_path_; }

 private:
  [[noreturn]] void fail(std::string_view what, int error);

  std::filesystem::path path_;
  std::filesystem::path temp_path_;
  std::ofstream out_;
  bool committed_ = false;
};

/// Writes `contents` to `path` atomically; throws InputError naming `path` on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace opsim
