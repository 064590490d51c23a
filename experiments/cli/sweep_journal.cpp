#include "experiments/cli/sweep_journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "common/atomic_file.hpp"
#include "common/input_error.hpp"
#include "experiments/cli/sweep_table.hpp"

namespace opsim {
namespace {

constexpr std::size_t kBookkeepingColumns = 3;  // point, points, sweep

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw InputError(path + ": " + why);
}

std::string system_error_text(int error) {
  return std::strerror(error);
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string read_all(int fd, const std::string& path) {
  std::string text;
  char chunk[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refuse(path, "cannot read the sweep's results: " + system_error_text(errno));
    if (n == 0) return text;
    text.append(chunk, static_cast<std::size_t>(n));
  }
}

void sync_directory_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const int dir = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  (void)::fsync(dir);
  ::close(dir);
}

}  // namespace

SweepJournal::SweepJournal(std::string path, std::string header, std::vector<std::string> keys,
                           std::string fingerprint, bool restart)
    : path_(std::move(path)),
      header_(std::move(header)),
      keys_(std::move(keys)),
      fingerprint_(std::move(fingerprint)),
      rows_(keys_.size()) {
  if (path_.empty()) return;  // rows kept in memory, printed by finish()
  struct stat info {};
  if (::lstat(path_.c_str(), &info) != 0) {
    if (errno != ENOENT) refuse(path_, "cannot write the results: " + system_error_text(errno));
    create_fresh();
    return;
  }
  if (S_ISLNK(info.st_mode))
    refuse(path_,
           "cannot write the results: it is a symbolic link (a sweep appends to its "
           "output in place; name the file itself)");
  if (!S_ISREG(info.st_mode))
    refuse(path_, std::string("cannot write the results: it is ") +
                      (S_ISDIR(info.st_mode)    ? "a directory"
                       : S_ISFIFO(info.st_mode) ? "a FIFO (named pipe)"
                                                : "not a regular file") +
                      " (a sweep appends to its output in place)");
  open_existing(restart);
}

SweepJournal::~SweepJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void SweepJournal::create_fresh() {
  fd_ = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) refuse(path_, "cannot create the results file: " + system_error_text(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
    refuse(path_, "another sweep is writing this file; wait for it or choose another --out");
  if (!write_all(fd_, header_ + "\n") || ::fdatasync(fd_) != 0)
    refuse(path_, "cannot write the results: " + system_error_text(errno));
  sync_directory_of(path_);
}

void SweepJournal::open_existing(bool restart) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) refuse(path_, "cannot write the results: " + system_error_text(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
    refuse(path_, "another sweep is writing this file; wait for it or choose another --out");
  std::string text = restart ? std::string() : read_all(fd_, path_);
  const std::size_t header_end = text.find('\n');
  // A file cut inside its header (killed while creating it) starts over; so does --restart.
  const bool torn_header =
      header_end == std::string::npos && header_.compare(0, text.size(), text) == 0;
  if (restart || text.empty() || torn_header) {
    if (::ftruncate(fd_, 0) != 0 || !write_all(fd_, header_ + "\n") || ::fdatasync(fd_) != 0)
      refuse(path_, "cannot write the results: " + system_error_text(errno));
    return;
  }
  if (text.compare(0, header_end, header_) != 0)
    refuse(path_,
           "holds other columns than this sweep writes (another spec, or not a sweep's output); "
           "rerun with --restart to replace it, or choose another --out");
  // A torn last line (killed while appending it) is cut off: its point runs again.
  const std::size_t complete = text.rfind('\n') + 1;
  if (complete < text.size()) {
    if (::ftruncate(fd_, static_cast<off_t>(complete)) != 0 || ::fdatasync(fd_) != 0)
      refuse(path_, "cannot cut its torn last line: " + system_error_text(errno));
    text.resize(complete);
  }
  read_rows(text.substr(header_end + 1));
}

void SweepJournal::read_rows(const std::string& text) {
  std::vector<std::string> fields;
  split_csv_line(header_, fields);
  const std::size_t columns = fields.size();
  std::size_t line_number = 1, begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    const std::string_view line(text.data() + begin, end - begin);
    begin = end + 1;
    ++line_number;
    const std::string place = path_ + ":" + std::to_string(line_number);
    if (!split_csv_line(line, fields) || fields.size() != columns)
      refuse(place, "not a row of this sweep (" + std::to_string(fields.size()) + " of " +
                        std::to_string(columns) + " columns); rerun with --restart to start over");
    const std::string& fingerprint = fields[columns - 1];
    char* used = nullptr;
    const unsigned long long index = std::strtoull(fields[columns - 3].c_str(), &used, 10);
    if (fingerprint != fingerprint_ || fields[columns - 2] != std::to_string(keys_.size()) ||
        *used != '\0' || index >= keys_.size() || fields[0] != keys_[index])
      refuse(place,
             "a row of another sweep: the spec changed since it was written; rerun with "
             "--restart to start over, or choose another --out");
    if (rows_[index].empty()) {  // a repeated point keeps its first row
      rows_[index] = std::string(line);
      ++done_;
    }
  }
}

void SweepJournal::append(const std::vector<std::pair<std::size_t, std::string>>& rows) {
  std::string text;
  for (const auto& [index, row] : rows) {
    if (!rows_[index].empty()) continue;
    text += row + "\n";
    rows_[index] = row;
    ++done_;
  }
  if (text.empty() || fd_ < 0) return;
  if (!write_all(fd_, text) || ::fdatasync(fd_) != 0)
    refuse(path_, "cannot append the results: " + system_error_text(errno));
}

void SweepJournal::finish() {
  if (path_.empty()) {
    std::cout << header_ << "\n";
    for (const std::string& row : rows_)
      if (!row.empty()) std::cout << row << "\n";
    std::cout.flush();
    return;
  }
  AtomicFile file(path_);
  file.stream() << header_ << "\n";
  for (const std::string& row : rows_)
    if (!row.empty()) file.stream() << row << "\n";
  file.commit();
  ::close(fd_);  // the lock goes with the old file
  fd_ = -1;
}

}  // namespace opsim
