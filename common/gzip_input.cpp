#include "common/gzip_input.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/input_error.hpp"

namespace opsim {
namespace {

std::string size_text(std::uint64_t bytes) {
  char text[48];
  if (bytes >= (std::uint64_t{1} << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / double(1 << 30));
  else if (bytes >= (std::uint64_t{1} << 20))
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / double(1 << 20));
  else
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  return text;
}

// zlib's message turned into ours (it is used to tell the cases apart, never shown).
std::string corruption(const z_stream& z) {
  const char* msg = z.msg != nullptr ? z.msg : "";
  if (std::strstr(msg, "check") != nullptr && std::strstr(msg, "header") == nullptr)
    return "corrupt gzip data: the checksum or length at its end does not match";
  if (std::strstr(msg, "header") != nullptr || std::strstr(msg, "method") != nullptr ||
      std::strstr(msg, "flags") != nullptr)
    return "corrupt gzip data: bad header";
  return "corrupt gzip data: a compressed block is invalid";
}

// Owns a z_stream set up for gzip only (no zlib or raw deflate).
class Inflater {
 public:
  explicit Inflater(const std::string& source) {
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK)
      throw InputError(source + ": cannot start gzip decompression (out of memory)");
  }
  ~Inflater() { inflateEnd(&z_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  z_stream& z() { return z_; }

 private:
  z_stream z_{};
};

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip_input(std::string_view in, const std::string& source, std::uint64_t max_bytes) {
  Inflater inflater(source);
  z_stream& z = inflater.z();
  // zlib counts in 32-bit units: hand it at most 1 GiB at a time either way.
  constexpr std::size_t kChunk = std::size_t{1} << 30;
  // The output may grow to one byte past the limit, which tells "exactly at the limit" from
  // "over it". Start near the size the trailer claims, if that is believable (deflate
  // compresses at most about 1032:1), else at four times the input.
  const std::uint64_t ceiling = max_bytes + 1;
  std::uint64_t start = std::max<std::uint64_t>(std::uint64_t{in.size()} * 4, 1 << 16);
  if (in.size() >= 18) {
    const auto* tail = reinterpret_cast<const unsigned char*>(in.data() + in.size() - 4);
    const std::uint64_t claimed =
        tail[0] | (tail[1] << 8) | (tail[2] << 16) | (std::uint64_t{tail[3]} << 24);
    if (claimed <= std::uint64_t{in.size()} * 1032 + 64) start = claimed + 1;
  }
  std::string out;
  out.resize(static_cast<std::size_t>(std::min(start, ceiling)));
  std::size_t in_pos = 0, out_pos = 0;
  for (;;) {
    if (out_pos == out.size()) {
      if (out.size() >= ceiling) break;  // over the limit: reported below
      out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(out.size() * 2, ceiling)));
    }
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + in_pos));
    z.avail_in = static_cast<uInt>(std::min(in.size() - in_pos, kChunk));
    z.next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
    z.avail_out = static_cast<uInt>(std::min(out.size() - out_pos, kChunk));
    const uInt had_in = z.avail_in, had_out = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    in_pos += had_in - z.avail_in;
    out_pos += had_out - z.avail_out;
    if (out_pos > max_bytes) break;
    if (rc == Z_STREAM_END) {
      // Another member follows, or zero padding (as tape archives leave), or the end.
      std::string_view rest = in.substr(in_pos);
      if (rest.empty()) {
        out.resize(out_pos);
        return out;
      }
      if (is_gzip(rest)) {
        inflateReset(&z);
        continue;
      }
      if (rest.find_first_not_of('\0') == std::string_view::npos) {
        out.resize(out_pos);
        return out;
      }
      throw InputError(source + ": data after the end of the gzip stream (at compressed byte " +
                       std::to_string(in_pos) + " of " + std::to_string(in.size()) + ")");
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR) {
      if (z.avail_out == 0) continue;  // the output is full: grow it
      throw InputError(source + ": truncated gzip data: the stream ends after " +
                       std::to_string(in.size()) + " compressed bytes (" + std::to_string(out_pos) +
                       " decompressed) without its end marker");
    }
    if (rc == Z_MEM_ERROR)
      throw InputError(source + ": out of memory while decompressing the gzip data");
    throw InputError(source + ": " + corruption(z) + " (at compressed byte " +
                     std::to_string(in_pos) + ")");
  }
  throw InputError(source + ": gzip data decompresses to more than " + size_text(max_bytes) +
                   ", the most opsim reads (a gzip bomb, or a file too large to read)");
}

std::string gunzip_prefix(std::string_view compressed, std::size_t max_bytes) {
  Inflater inflater("gzip prefix");
  z_stream& z = inflater.z();
  std::string out(max_bytes, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z.avail_in = static_cast<uInt>(std::min<std::size_t>(compressed.size(), std::size_t{1} << 30));
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(std::min<std::size_t>(max_bytes, std::size_t{1} << 30));
  // One call takes what it can: a cut-off or damaged stream ends the prefix where it breaks.
  inflate(&z, Z_SYNC_FLUSH);
  out.resize(out.size() - z.avail_out);
  return out;
}

}  // namespace opsim
