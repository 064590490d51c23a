#include "common/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/input_error.hpp"

namespace opsim {
namespace {

std::string not_regular_reason(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "is a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device";
  return "is not a regular file";
}

std::string mib_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / double(1 << 20));
  return text;
}

// An open descriptor of a regular file; O_NONBLOCK so that opening a FIFO returns at once.
class InputDescriptor {
 public:
  InputDescriptor(const std::string& path, std::string_view what) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0)
      throw InputError(path + ": cannot open " + std::string(what) + ": " + std::strerror(errno));
    if (::fstat(fd_, &stat_) != 0) {
      const int error = errno;
      ::close(fd_);
      throw InputError(path + ": cannot read " + std::string(what) + ": " + std::strerror(error));
    }
    if (!S_ISREG(stat_.st_mode)) {
      ::close(fd_);
      throw InputError(path + ": " + not_regular_reason(stat_.st_mode) + ", not a " +
                       std::string(what));
    }
  }
  ~InputDescriptor() { ::close(fd_); }
  InputDescriptor(const InputDescriptor&) = delete;
  InputDescriptor& operator=(const InputDescriptor&) = delete;

  int fd() const { return fd_; }
  std::uint64_t size_bytes() const { return static_cast<std::uint64_t>(stat_.st_size); }

 private:
  std::string path_;
  int fd_ = -1;
  struct stat stat_ {};
};

}  // namespace

void check_input_file(const std::string& path, std::string_view what) {
  InputDescriptor descriptor(path, what);
}

std::string read_input_file(const std::string& path, std::string_view what,
                            std::uint64_t max_bytes) {
  InputDescriptor descriptor(path, what);
  if (descriptor.size_bytes() > max_bytes)
    throw InputError(path + ": " + std::string(what) + " of " + mib_text(descriptor.size_bytes()) +
                     " is larger than the " + mib_text(max_bytes) + " opsim reads");
  std::string content;
  content.resize(static_cast<std::size_t>(descriptor.size_bytes()));
  std::size_t filled = 0;
  while (true) {
    if (filled == content.size()) content.resize(content.size() + 65536);  // grew while read
    const ssize_t got = ::read(descriptor.fd(), content.data() + filled, content.size() - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw InputError(path + ": cannot read " + std::string(what) + ": " + std::strerror(errno));
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
    if (filled > max_bytes)
      throw InputError(path + ": " + std::string(what) + " grew past the " + mib_text(max_bytes) +
                       " opsim reads");
  }
  content.resize(filled);
  return content;
}

}  // namespace opsim
