#include "common/temporary_files.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace opsim {
namespace {

// A fixed table the signal handler can walk without allocating: a path is published by
// storing its slot's `in_use` after the bytes are written.
constexpr int kSlots = 64;
constexpr std::size_t kPathBytes = 4096;
struct Slot {
  std::atomic<bool> in_use{false};
  char path[kPathBytes];
};
std::array<Slot, kSlots> slots;
std::mutex claim_mutex;

extern "C" void remove_temporaries_and_die(int signal_number) {
  for (Slot& slot : slots)
    if (slot.in_use.load(std::memory_order_acquire)) ::unlink(slot.path);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (::sigaction(signal_number, nullptr, &current) != 0) continue;
      if (current.sa_handler != SIG_DFL) continue;  // someone else's, or ignored
      struct sigaction handler {};
      handler.sa_handler = remove_temporaries_and_die;
      sigemptyset(&handler.sa_mask);
      ::sigaction(signal_number, &handler, nullptr);
    }
  });
}

bool process_exists(long pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

}  // namespace

int remember_temporary(const std::string& path) {
  install_handlers_once();
  if (path.size() >= kPathBytes) return -1;
  std::lock_guard lock(claim_mutex);
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = slots[static_cast<std::size_t>(i)];
    if (slot.in_use.load(std::memory_order_relaxed)) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.in_use.store(true, std::memory_order_release);
    return i;
  }
  return -1;  // more than kSlots at once: the stale sweep of a later run removes it
}

void forget_temporary(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  slots[static_cast<std::size_t>(slot)].in_use.store(false, std::memory_order_release);
}

std::string temporary_prefix(const std::string& name) {
  return "." + name + ".tmp-" + std::to_string(static_cast<long>(::getpid())) + "-";
}

void remove_stale_temporaries(const std::string& directory, const std::string& name) {
  DIR* dir = ::opendir(directory.c_str());
  if (!dir) return;
  const std::string prefix = "." + name + ".tmp-";
  while (const dirent* entry = ::readdir(dir)) {
    const std::string file = entry->d_name;
    if (file.rfind(prefix, 0) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(file.c_str() + prefix.size(), &end, 10);
    if (end == file.c_str() + prefix.size() || *end != '-') continue;  // not ours
    if (!process_exists(pid)) ::unlink((directory + "/" + file).c_str());
  }
  ::closedir(dir);
}

}  // namespace opsim
