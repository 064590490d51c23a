// Reading a file the user named, without blocking or exhausting memory: only regular files
// are read (a FIFO, directory or device is refused at once, never opened for a blocking
// read), and a file larger than the caller's limit is refused before it is read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace opsim {

/// Inputs larger than this are refused unless a reader says otherwise: a JSON document
/// parses into several times its size in memory.
inline constexpr std::uint64_t kMaxInputFileBytes = std::uint64_t{2} << 30;

/// The whole content of `path`. Throws InputError "PATH: <why>" (one line) when `path` is
/// missing, unreadable, not a regular file, or larger than `max_bytes`; `what` names the
/// kind of file in the message ("workload file", "trace").
std::string read_input_file(const std::string& path, std::string_view what,
                            std::uint64_t max_bytes = kMaxInputFileBytes);

/// Throws InputError unless `path` names a regular file (or a symlink to one) that can be
/// opened for reading; never blocks on a FIFO. For readers that open the file themselves.
void check_input_file(const std::string& path, std::string_view what);

}  // namespace opsim
