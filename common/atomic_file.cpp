#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/temporary_files.hpp"

namespace opsim {
namespace {

namespace fs = std::filesystem;

enum class TargetKind { kFile, kStream, kRefused };

struct Target {
  fs::path path;  // symlinks followed; the path itself when it does not exist yet
  TargetKind kind = TargetKind::kFile;
  std::string refusal;
};

// What writing `path` would write: the file a symlink (chain) points to, or the path.
Target resolve_target(const fs::path& path) {
  Target target;
  std::error_code error;
  target.path = path;
  for (int hops = 0; hops < 40 && fs::is_symlink(target.path, error); ++hops) {
    const fs::path link = fs::read_symlink(target.path, error);
    if (error) break;
    target.path = link.is_absolute() ? link : target.path.parent_path() / link;
  }
  struct stat info {};
  if (::stat(target.path.c_str(), &info) != 0) return target;  // new file
  if (S_ISREG(info.st_mode)) return target;
  if (S_ISFIFO(info.st_mode) || S_ISCHR(info.st_mode)) {
    target.kind = TargetKind::kStream;
    return target;
  }
  target.kind = TargetKind::kRefused;
  target.refusal = S_ISDIR(info.st_mode)   ? "it is a directory"
                   : S_ISBLK(info.st_mode) ? "it is a block device"
                                           : "it is not a regular file, FIFO or character device";
  return target;
}

fs::path directory_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

}  // namespace

void check_output_path(const fs::path& path, std::string_view what) {
  const Target target = resolve_target(path);
  auto refuse = [&](const std::string& why) {
    throw InputError(path.string() + ": cannot write " + std::string(what) + ": " + why);
  };
  if (target.kind == TargetKind::kRefused) refuse(target.refusal);
  if (target.kind == TargetKind::kStream) return;
  const fs::path dir = directory_of(target.path);
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) refuse("directory '" + dir.string() + "' does not exist");
  if (!S_ISDIR(info.st_mode)) refuse("'" + dir.string() + "' is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    refuse("directory '" + dir.string() + "' is not writable");
}

AtomicFile::AtomicFile(fs::path path) : path_(std::move(path)) {
  const Target target = resolve_target(path_);
  target_ = target.path;
  if (target.kind == TargetKind::kRefused) fail(target.refusal, 0);
  if (target.kind == TargetKind::kStream) {
    out_.open(target_, std::ios::binary);
    if (!out_) fail("cannot open it", errno);
    return;
  }
  const fs::path dir = directory_of(target_);
  const std::string name = target_.filename().string();
  remove_stale_temporaries(dir.string(), name);
  std::string pattern = (dir / (temporary_prefix(name) + "XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const int fd = ::mkstemp(buffer.data());
  if (fd < 0) fail("cannot create a temporary file beside it", errno);
  temp_path_ = buffer.data();
  slot_ = remember_temporary(temp_path_.string());
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
    fs::remove(temp_path_, ignored);
  }
  forget_temporary(slot_);
}

void AtomicFile::fail(std::string_view what, int error) {
  if (!temp_path_.empty()) {
    out_.close();
    std::error_code ignored;
    fs::remove(temp_path_, ignored);
    temp_path_.clear();
    forget_temporary(slot_);
    slot_ = -1;
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
  if (temp_path_.empty()) {  // a stream target: written in place
    committed_ = true;
    return;
  }
  // Sync before rename so that a crash cannot leave a renamed but empty file.
  const int fd = ::open(temp_path_.c_str(), O_RDONLY);
  if (fd < 0) fail("cannot reopen the temporary file", errno);
  const int synced = ::fsync(fd);
  const int sync_error = errno;
  ::close(fd);
  if (synced != 0) fail("fsync failed", sync_error);
  if (std::rename(temp_path_.c_str(), target_.c_str()) != 0) fail("rename failed", errno);
  committed_ = true;
  forget_temporary(slot_);
  slot_ = -1;
}

void write_file_atomically(const fs::path& path, std::string_view contents) {
  AtomicFile file(path);
  file.stream().write(contents.data(), static_cast<std::streamsize>(contents.size()));
  file.commit();
}

}  // namespace opsim
