// Gzip-compressed input, decompressed in memory with a bound on its output: deflate reaches
// about 1000:1, so a file of a few megabytes can claim gigabytes (a "gzip bomb"). The bound is
// the same as for an uncompressed file (kMaxInputFileBytes, 2 GiB) unless the caller says
// otherwise: a compressed file is never allowed to become more than a plain one could be.
//
//   std::string bytes = read_input_file(path, "trace file");
//   if (is_gzip(bytes)) bytes = gunzip_input(bytes, path);   // throws InputError
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/input_file.hpp"

namespace opsim {

/// Whether `bytes` starts with the gzip magic number (1f 8b).
bool is_gzip(std::string_view bytes);

/// The decompressed content of a whole gzip file held in memory (one member or several
/// concatenated, as `cat a.gz b.gz` makes). Throws InputError, one line "SOURCE: <why>", when
/// the data is truncated, corrupt (bad header, block or checksum), followed by anything but
/// zero padding, or decompresses to more than `max_bytes`. zlib's own messages never reach
/// the user.
std::string gunzip_input(std::string_view compressed, const std::string& source,
                         std::uint64_t max_bytes = kMaxInputFileBytes);

/// Up to the first `max_bytes` that `compressed` (the start of a gzip file, perhaps cut off)
/// decompresses to, for telling a file's format; what precedes damage when it is damaged.
/// Throws InputError only when zlib cannot start (out of memory).
std::string gunzip_prefix(std::string_view compressed, std::size_t max_bytes);

}  // namespace opsim
