// The in-order queues the scheduler assigns ops to: compute streams and copy engines per
// GPU, compute and memcpy workers and the program's host thread per CPU, request queues
// per disk. Each stream runs one op at a time, in the order ops reach it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw_models/machine.hpp"

namespace opsim {

using StreamIndex = std::uint32_t;

enum class StreamKind : std::uint8_t { kCompute, kCopy, kHost, kIo };

std::string_view to_string(StreamKind kind);

struct StreamInfo {
  DeviceId device = kNoDevice;
  StreamKind kind = StreamKind::kCompute;
  std::uint16_t index = 0;  ///< among the device's streams of this kind
  std::string name;         ///< "gpu0/compute0", "gpu0/copy-out", "cpu0/host"
};

class StreamTable {
 public:
  explicit StreamTable(const Machine& machine);

  std::size_t size() const { return streams_.size(); }
  const StreamInfo& info(StreamIndex s) const { return streams_[s]; }
  /// Number of streams of `kind` on `device` (0 if the device has none).
  std::uint32_t count(DeviceId device, StreamKind kind) const;
  /// The `index`-th stream of `kind` on `device`; index is taken modulo count().
  StreamIndex at(DeviceId device, StreamKind kind, std::uint32_t index) const;

 private:
  std::vector<StreamInfo> streams_;
  // first stream and count per (device, kind)
  std::vector<std::uint32_t> first_;
  std::vector<std::uint32_t> count_;
};

}  // namespace opsim
