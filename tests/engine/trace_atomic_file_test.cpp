#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/atomic_file.hpp"
#include "common/input_error.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "engine/csv_trace_writer.hpp"
#include "engine/trace_files.hpp"
#include "tests/support/scratch_files.hpp"
#include "trace_test_support.hpp"

namespace opsim {
namespace {

namespace fs = std::filesystem;

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(AtomicFile, WritesAndLeavesNoTemporary) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_ok");
  write_file_atomically(dir / "out.txt", "first");
  write_file_atomically(dir / "out.txt", "second, longer");
  EXPECT_EQ(test::slurp(dir / "out.txt"), "second, longer");
  EXPECT_EQ(entries(dir), 1u);
  EXPECT_EQ(fs::status(dir / "out.txt").permissions() & fs::perms::others_read,
            fs::perms::others_read);
}

TEST(AtomicFile, MissingDirectoryThrowsNamingThePath) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_missing");
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
  // The target becomes a non-empty directory while the file is written: rename() fails.
  const fs::path dir = test::empty_build_scratch_dir("atomic_rename");
  AtomicFile file(dir / "target");
  file.stream() << "would clobber";
  fs::create_directories(dir / "target");
  write_file_atomically(dir / "target" / "keep.txt", "kept");
  try {
    file.commit();
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rename failed"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(dir), 1u);
  EXPECT_EQ(test::slurp(dir / "target" / "keep.txt"), "kept");
}

TEST(AtomicFile, DirectoryAndBlockDeviceAreRefusedBeforeWriting) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_refused");
  fs::create_directories(dir / "out");
  EXPECT_THROW(write_file_atomically(dir / "out", "x"), InputError);
  EXPECT_EQ(entries(dir), 1u);
  try {
    check_output_path(dir / "out", "trace");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "out").string() + ": cannot write trace: it is a directory");
  }
}

TEST(AtomicFile, CheckOutputPathNamesAMissingDirectory) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_check");
  try {
    check_output_path(dir / "missing" / "x.csv", "results");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "missing" / "x.csv").string() +
                                         ": cannot write results: directory '" +
                                         (dir / "missing").string() + "' does not exist");
  }
  EXPECT_NO_THROW(check_output_path(dir / "new.csv", "results"));
  EXPECT_NO_THROW(check_output_path("/dev/stdout", "results"));
  EXPECT_EQ(entries(dir), 0u);
}

TEST(AtomicFile, SymlinkWritesItsTargetAndStaysALink) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_symlink");
  write_file_atomically(dir / "victim.txt", "old");
  fs::create_symlink("victim.txt", dir / "link.txt");
  write_file_atomically(dir / "link.txt", "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(test::slurp(dir / "victim.txt"), "new");
  EXPECT_EQ(entries(dir), 2u);
}

TEST(AtomicFile, FifoIsWrittenAsAStreamNotReplaced) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_fifo");
  const fs::path fifo = dir / "out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = test::slurp(fifo); });
  write_file_atomically(fifo, "through the pipe");
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(entries(dir), 1u);
}

TEST(AtomicFile, TemporariesOfDeadProcessesAreRemovedByTheNextWrite) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_stale");
  // A process that died with its temporary still there (SIGKILL runs no cleanup).
  const pid_t child = ::fork();
  if (child == 0) {
    AtomicFile file(dir / "big.json");
    file.stream() << "half";
    file.stream().flush();
    ::kill(::getpid(), SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(entries(dir), 1u);  // the orphaned temporary
  write_file_atomically(dir / "big.json", "whole");
  EXPECT_EQ(entries(dir), 1u);
  EXPECT_EQ(test::slurp(dir / "big.json"), "whole");
}

TEST(AtomicFile, SigtermRemovesTheTemporaryBeingWritten) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_sigterm");
  const pid_t child = ::fork();
  if (child == 0) {
    AtomicFile file(dir / "out.json");
    file.stream() << "half";
    file.stream().flush();
    ::kill(::getpid(), SIGTERM);
    ::_exit(0);  // not reached: SIGTERM's default action ends the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(entries(dir), 0u);
}

TEST(AtomicFile, WriterThatThrowsMidwayDoesNotClobber) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_midway");
  const Trace good = test::hand_made_trace();
  write_chrome_trace(good, dir / "t.json");
  write_csv_trace(good, dir / "t.csv");
  const std::string before = test::slurp(dir / "t.json");
  const std::string csv_before = test::slurp(dir / "t.csv");
  Trace bad = good;
  bad.link_spans.push_back({99, 3, 0, 1});  // names an op that does not exist
  EXPECT_THROW(write_chrome_trace(bad, dir / "t.json"), std::out_of_range);
  EXPECT_EQ(test::slurp(dir / "t.json"), before);
  EXPECT_EQ(test::slurp(dir / "t.csv"), csv_before);
  EXPECT_EQ(entries(dir), 2u);
}

TEST(AtomicFile, UncommittedFileIsDiscarded) {
  const fs::path dir = test::empty_build_scratch_dir("atomic_uncommitted");
  write_file_atomically(dir / "a.txt", "old");
  {
    AtomicFile file(dir / "a.txt");
    file.stream() << "new";
    EXPECT_TRUE(fs::exists(file.temp_path()));
    EXPECT_EQ(file.temp_path().parent_path(), dir);
  }
  EXPECT_EQ(test::slurp(dir / "a.txt"), "old");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(TraceFiles, FormatByExtension) {
  const fs::path dir = test::empty_build_scratch_dir("trace_files");
  const Trace trace = test::hand_made_trace();
  write_trace_file(trace, dir / "t.json");
  write_trace_file(trace, dir / "t.csv");
  EXPECT_TRUE(read_trace_file(dir / "t.json") == trace);
  EXPECT_EQ(test::slurp(dir / "t.csv").rfind("name,class,device,peer,lane,", 0), 0u);
  EXPECT_THROW(write_trace_file(trace, dir / "t.txt"), InputError);
  EXPECT_THROW(read_trace_file(dir / "t.csv"), InputError);
  EXPECT_EQ(entries(dir), 2u);
}

}  // namespace
}  // namespace opsim
