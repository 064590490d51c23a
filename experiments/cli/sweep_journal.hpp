// The sweep's output file as a journal: every finished point is appended as one line and
// synced to disk before it counts as done, so that a SIGKILL at any moment leaves valid
// CSV (at most a torn last line, which the next run cuts off and redoes). Re-opening the
// file of the same sweep reads which points are done; a file of another sweep (other
// columns, another point set) is refused unless the caller restarts it.
//
//   SweepJournal journal("out.csv", header, keys, fingerprint, /*restart=*/false);
//   if (!journal.has(7)) journal.append({{7, row}});   // on disk when it returns
//   journal.finish();                                     // all done: rows in grid order
//
// The path must be a regular file or a new one: a symlink, FIFO, device or directory is
// refused (a journal is appended to and cut, which a stream cannot be). Two sweeps writing
// one file at once are refused too (an exclusive lock on it).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace opsim {

class SweepJournal {
 public:
  /// Opens or creates `path` (empty: rows stay in memory and finish() prints them). Throws
  /// InputError "PATH: why" for a path it must not write, another sweep's file (unless `restart`:
  /// then the file starts over), a locked file.
  SweepJournal(std::string path, std::string header, std::vector<std::string> keys,
               std::string fingerprint, bool restart);
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;
  ~SweepJournal();

  bool has(std::size_t point) const { return !rows_[point].empty(); }
  std::size_t done() const { return done_; }
  /// The row of a finished point ("" when not done).
  const std::string& row(std::size_t point) const { return rows_[point]; }
  /// Appends the rows (index, line without line break) with one write and one fsync.
  /// Throws InputError naming the path when the disk refuses.
  void append(const std::vector<std::pair<std::size_t, std::string>>& rows);
  /// Rewrites the file with its rows in grid order (atomically: a kill leaves the old one),
  /// or prints them to stdout when there is no file.
  void finish();

 private:
  void open_existing(bool restart);
  void create_fresh();
  void read_rows(const std::string& text);

  std::string path_;
  std::string header_;
  std::vector<std::string> keys_;
  std::string fingerprint_;
  std::vector<std::string> rows_;
  std::size_t done_ = 0;
  int fd_ = -1;
};

}  // namespace opsim
