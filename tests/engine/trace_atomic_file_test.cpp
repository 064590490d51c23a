#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/atomic_file.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "engine/csv_trace_writer.hpp"
#include "engine/trace_files.hpp"
#include "common/input_error.hpp"
#include "trace_test_support.hpp"

namespace opsim {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::path(OPSIM_BINARY_DIR) / "test_scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(AtomicFile, WritesAndLeavesNoTemporary) {
  const fs::path dir = scratch_dir("atomic_ok");
  write_file_atomically(dir / "out.txt", "first");
  write_file_atomically(dir / "out.txt", "second, longer");
  EXPECT_EQ(slurp(dir / "out.txt"), "second, longer");
  EXPECT_EQ(entries(dir), 1u);
  EXPECT_EQ(fs::status(dir / "out.txt").permissions() & fs::perms::others_read,
            fs::perms::others_read);
}

TEST(AtomicFile, MissingDirectoryThrowsNamingThePath) {
  const fs::path dir = scratch_dir("atomic_missing");
  const fs::path target = dir / "no" / "such" / "dir" / "out.json";
  try {
    write_file_atomically(target, "x");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(target.string() + ": cannot write:", 0), 0u) << e.what();
  }
  EXPECT_EQ(entries(dir), 0u);
}

TEST(AtomicFile, FailedRenameKeepsTargetAndRemovesTemporary) {
  // The target is a non-empty directory: rename() must fail, after the data was written.
  const fs::path dir = scratch_dir("atomic_rename");
  fs::create_directories(dir / "target");
  write_file_atomically(dir / "target" / "keep.txt", "kept");
  try {
    write_file_atomically(dir / "target", "would clobber");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rename failed"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(dir), 1u);
  EXPECT_EQ(slurp(dir / "target" / "keep.txt"), "kept");
}

TEST(AtomicFile, WriterThatThrowsMidwayDoesNotClobber) {
  const fs::path dir = scratch_dir("atomic_midway");
  const Trace good = test::hand_made_trace();
  write_chrome_trace(good, dir / "t.json");
  write_csv_trace(good, dir / "t.csv");
  const std::string before = slurp(dir / "t.json");
  const std::string csv_before = slurp(dir / "t.csv");
  Trace bad = good;
  bad.link_spans.push_back({99, 3, 0, 1});  // names an op that does not exist
  EXPECT_THROW(write_chrome_trace(bad, dir / "t.json"), std::out_of_range);
  EXPECT_EQ(slurp(dir / "t.json"), before);
  EXPECT_EQ(slurp(dir / "t.csv"), csv_before);
  EXPECT_EQ(entries(dir), 2u);
}

TEST(AtomicFile, UncommittedFileIsDiscarded) {
  const fs::path dir = scratch_dir("atomic_uncommitted");
  write_file_atomically(dir / "a.txt", "old");
  {
    AtomicFile file(dir / "a.txt");
    file.stream() << "new";
    EXPECT_TRUE(fs::exists(file.temp_path()));
    EXPECT_EQ(file.temp_path().parent_path(), dir);
  }
  EXPECT_EQ(slurp(dir / "a.txt"), "old");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(TraceFiles, FormatByExtension) {
  const fs::path dir = scratch_dir("trace_files");
  const Trace trace = test::hand_made_trace();
  write_trace_file(trace, dir / "t.json");
  write_trace_file(trace, dir / "t.csv");
  EXPECT_TRUE(read_trace_file(dir / "t.json") == trace);
  EXPECT_EQ(slurp(dir / "t.csv").rfind("name,class,device,peer,lane,", 0), 0u);
  EXPECT_THROW(write_trace_file(trace, dir / "t.txt"), InputError);
  EXPECT_THROW(read_trace_file(dir / "t.csv"), InputError);
  EXPECT_EQ(entries(dir), 2u);
}

}  // namespace
}  // namespace opsim
