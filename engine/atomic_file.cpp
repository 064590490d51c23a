#include "engine/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/input_error.hpp"

namespace opsim {

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)) {
  const std::filesystem::path dir = path_.has_parent_path() ? path_.parent_path() : ".";
  std::string pattern = (dir / ("." + path_.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail("cannot create a temporary file beside it", errno);
  temp_path_ = name.data();
  // mkstemp makes the file private (0600); a trace is an ordinary output file.
  (void)::fchmod(fd, 0644);
  ::close(fd);
  out_.open(temp_path_, std::ios::binary | std::ios::trunc);
  if (!out_) fail("cannot open the temporary file", errno);
}

AtomicFile::~AtomicFile() {
  if (!committed_ && !temp_path_.empty()) {
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(temp_path_, ignored);
  }
}

void AtomicFile::fail(std::string_view what, int error) {
  if (!temp_path_.empty()) {
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(temp_path_, ignored);
    temp_path_.clear();
  }
  std::string message = path_.string() + ": cannot write: " + std::string(what);
  if (error != 0) message += " (" + std::string(std::strerror(error)) + ")";
  throw InputError(message);
}

void AtomicFile::commit() {
  out_.flush();
  if (!out_) fail("write failed", errno);
  out_.close();
  if (out_.fail()) fail("close failed", errno);
  // Sync before rename so that a crash cannot leave a renamed but empty file.
  const int fd = ::open(temp_path_.c_str(), O_RDONLY);
  if (fd < 0) fail("cannot reopen the temporary file", errno);
  const int synced = ::fsync(fd);
  const int sync_error = errno;
  ::close(fd);
  if (synced != 0) fail("fsync failed", sync_error);
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) fail("rename failed", errno);
  committed_ = true;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  AtomicFile file(path);
  file.stream().write(contents.data(), static_cast<std::streamsize>(contents.size()));
  file.commit();
}

}  // namespace opsim
