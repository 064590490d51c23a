// Files the tests write: scratch folders of their own and reading a file back whole.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace opsim::test {

/// What the file at `path` holds (empty when it cannot be read).
inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// The scratch directories this test process made, removed with what is in them when it
/// exits (ctest runs every test in a process of its own: one directory each).
struct ScratchDirs {
  std::vector<std::filesystem::path> dirs;
  ~ScratchDirs() {
    for (const auto& dir : dirs) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }
};

/// A scratch directory of this test process: "<tmp>/<prefix>_<pid>".
inline std::filesystem::path scratch_dir(std::string_view prefix) {
  static ScratchDirs made;
  const auto dir = std::filesystem::temp_directory_path() /
                   (std::string(prefix) + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  if (std::find(made.dirs.begin(), made.dirs.end(), dir) == made.dirs.end())
    made.dirs.push_back(dir);
  return dir;
}

/// "<build>/test_scratch/NAME", emptied: the folder of one test's files, kept after the run
/// for a look at what the test wrote.
inline std::filesystem::path empty_build_scratch_dir(const std::filesystem::path& name) {
  const std::filesystem::path dir = std::filesystem::path(OPSIM_BINARY_DIR) / "test_scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace opsim::test
