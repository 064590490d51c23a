// The in-order queues the scheduler assigns ops to: compute streams, copy engines and
// collective channel lanes (kernel copies, kGpuChannelLanes) per GPU, compute and memcpy workers
// and the program's host thread per CPU, request queues per disk. Each stream runs one op at a
// time, in the order ops reach it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw_models/machine.hpp"

namespace opsim {

using StreamIndex = std::uint32_t;

enum class StreamKind : std::uint8_t { kCompute, kCopy, kHost, kIo, kChannel };

/// Channel lanes per GPU: NCCL's most channels (MAXCHANNELS, 64); a kernel copy's `stream`
/// is taken modulo this.
constexpr int kGpuChannelLanes = 64;

std::string_view to_string(StreamKind kind);

struct StreamInfo {
  DeviceId device = kNoDevice;
  StreamKind kind = StreamKind::kCompute;
  std::uint16_t index = 0;  ///< among the device's streams of this kind
  std::string name;         ///< "gpu0/compute0", "gpu0/copy-out", "cpu0/host"
};

class StreamTable {
 public:
  /// `host_threads`: host streams per CPU (the program's threads), named "host" when there is
  /// one, else "host0", "host1", ...
  explicit StreamTable(const Machine& machine, std::uint32_t host_threads = 1);

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

/// The core a CPU stream's worker thread is pinned to, as an index into the `cores` the
/// process may run on, or -1 where it floats (the OS places it): the real executor pins
/// there and the simulator gives the stream that core's speed (CpuModel::core_pass_speeds).
/// Compute streams count up from the first core, each alone on a core where the CPU has at
/// least as many streams as cores (one BLAS thread each; streams of several threads float);
/// memcpy streams count down from the last core, so the first compute and the first memcpy
/// stream run side by side. Host streams, disk queues and GPU streams float, as does
/// everything on a one-core process.
int pinned_core(const Machine& machine, const StreamTable& streams, StreamIndex stream, int cores);

}  // namespace opsim
