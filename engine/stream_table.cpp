#include "engine/stream_table.hpp"

#include <stdexcept>

namespace opsim {

std::string_view to_string(StreamKind kind) {
  switch (kind) {
    case StreamKind::kCompute:
      return "compute";
    case StreamKind::kCopy:
      return "copy";
    case StreamKind::kHost:
      return "host";
    case StreamKind::kIo:
      return "io";
    case StreamKind::kChannel:
      return "channel";
  }
  return "compute";
}

namespace {
constexpr std::size_t kKinds = 5;
std::size_t slot(DeviceId device, StreamKind kind) {
  return static_cast<std::size_t>(device) * kKinds + static_cast<std::size_t>(kind);
}
}  // namespace

StreamTable::StreamTable(const Machine& machine, std::uint32_t host_threads)
    : first_(machine.devices().size() * kKinds, 0), count_(machine.devices().size() * kKinds, 0) {
  auto add = [&](DeviceId device, StreamKind kind, int count, auto&& label) {
    first_[slot(device, kind)] = static_cast<std::uint32_t>(streams_.size());
    count_[slot(device, kind)] = static_cast<std::uint32_t>(count);
    for (int i = 0; i < count; ++i) {
      streams_.push_back(StreamInfo{device, kind, static_cast<std::uint16_t>(i),
                                    machine.device(device).name + "/" + label(i)});
    }
  };
  for (DeviceId d = 0; d < machine.devices().size(); ++d) {
    const Device& device = machine.device(d);
    switch (device.kind) {
      case DeviceKind::kGpu: {
        add(d, StreamKind::kCompute, std::max(1, device.gpu.compute_streams),
            [](int i) { return "compute" + std::to_string(i); });
        const int engines = std::max(1, device.gpu.copy_engines);
        add(d, StreamKind::kCopy, engines, [engines](int i) {
          if (engines >= 2 && i == 0) return std::string("copy-out");
          if (engines >= 2 && i == 1) return std::string("copy-in");
          return "copy" + std::to_string(i);
        });
        add(d, StreamKind::kChannel, kGpuChannelLanes,
            [](int i) { return "channel" + std::to_string(i); });
        break;
      }
      case DeviceKind::kCpu:
        add(d, StreamKind::kCompute, std::max(1, device.cpu.compute_streams),
            [](int i) { return "compute" + std::to_string(i); });
        add(d, StreamKind::kCopy, std::max(1, device.cpu.copy_streams),
            [](int i) { return "memcpy" + std::to_string(i); });
        host_threads = std::max<std::uint32_t>(1, host_threads);
        add(d, StreamKind::kHost, static_cast<int>(host_threads), [host_threads](int i) {
          return host_threads == 1 ? std::string("host") : "host" + std::to_string(i);
        });
        break;
      case DeviceKind::kDisk:
        add(d, StreamKind::kIo, std::max(1, device.disk.queues),
            [](int i) { return "queue" + std::to_string(i); });
        break;
      case DeviceKind::kSwitch:
      case DeviceKind::kNic:
        break;
    }
  }
}

std::uint32_t StreamTable::count(DeviceId device, StreamKind kind) const {
  const std::size_t s = slot(device, kind);
  return s < count_.size() ? count_[s] : 0;
}

StreamIndex StreamTable::at(DeviceId device, StreamKind kind, std::uint32_t index) const {
  const std::uint32_t n = count(device, kind);
  if (n == 0)
    throw std::invalid_argument("device has no stream of kind " + std::string(to_string(kind)));
  return first_[slot(device, kind)] + index % n;
}

int pinned_core(const Machine& machine, const StreamTable& streams, StreamIndex stream, int cores) {
  if (cores <= 1 || stream >= streams.size()) return -1;
  const StreamInfo& info = streams.info(stream);
  if (machine.device(info.device).kind != DeviceKind::kCpu) return -1;
  switch (info.kind) {
    case StreamKind::kCompute:
      if (streams.count(info.device, StreamKind::kCompute) < static_cast<std::uint32_t>(cores))
        return -1;
      return info.index % cores;
    case StreamKind::kCopy:
      return cores - 1 - info.index % cores;
    case StreamKind::kHost:
    case StreamKind::kIo:
    case StreamKind::kChannel:
      return -1;
  }
  return -1;
}

}  // namespace opsim
