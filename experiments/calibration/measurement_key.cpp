#include "experiments/calibration/measurement_key.hpp"

#include "experiments/calibration/memcpy_sizes.hpp"

namespace opsim::calibration {
namespace {

using M = MeasurementId;

struct Kind {
  MeasurementId id;
  std::string_view name;  // the whole name, or the part a size or core completes
  std::string_view unit;
  std::string_view group;
};

constexpr Kind kKinds[] = {
    {M::kNone, "", "", ""},
    {M::kGemmOneThread, "gemm", "flop/s", "gemm"},
    {M::kGemmAllThreads, "gemm", "flop/s", "gemm"},
    {M::kGemmEveryCore, "gemm", "flop/s", "gemm"},
    {M::kCoreSpeedGemm, "gemm speed on core ", "fraction", "gemm"},
    {M::kMemcpyOneStream, "memcpy 1 stream", "bytes/s", "memcpy"},
    {M::kMemcpyTwoStreams, "memcpy 2 streams", "bytes/s", "memcpy"},
    {M::kMemcpyOneStreamBySize, "memcpy", "bytes/s", "memcpy"},
    {M::kMemcpyTwoStreamsBySize, "memcpy", "bytes/s", "memcpy"},
    {M::kElementwise, "elementwise 1 thread", "bytes/s", "elementwise"},
    {M::kElementwiseBySize, "elementwise ", "bytes/s", "elementwise"},
    {M::kCoreSpeedElementwise, "elementwise speed on core ", "fraction", "elementwise"},
    {M::kCoreSpeedMemcpy, "memcpy speed on core ", "fraction", "memcpy"},
    {M::kDramFirstAccess, "dram first access", "s", "dram"},
    {M::kDiskSequentialWrite, "disk sequential write", "bytes/s", "disk"},
    {M::kDiskSequentialRead, "disk sequential read", "bytes/s", "disk"},
    {M::kDiskRandomRead, "disk random 4KiB read", "s", "disk"},
    {M::kDiskRandomWrite, "disk random 4KiB write", "s", "disk"},
    {M::kDiskRandomReadBesideSequential, "disk random 4KiB read beside a sequential read", "s",
     "disk"},
    {M::kDiskSequentialReadBesideRandom, "disk sequential read beside random reads", "bytes/s",
     "disk"},
    {M::kDiskSequentialReadBesideWrite, "disk sequential read beside a sequential write", "bytes/s",
     "disk"},
    {M::kDiskSequentialWriteBesideRead, "disk sequential write beside a sequential read", "bytes/s",
     "disk"},
    {M::kDiskSequentialReadsTogether, "disk sequential reads, two at once", "bytes/s", "disk"},
    {M::kDiskIoCores, "disk I/O cores beside busy cores", "cores", "disk"},
    {M::kDiskReadBesideOneBusyCore, "disk sequential read beside one busy core", "fraction",
     "disk"},
    {M::kDiskReadBesideEveryCoreBusy, "disk sequential read beside every core busy", "fraction",
     "disk"},
    {M::kDiskWriteBesideOneBusyCore, "disk sequential write beside one busy core", "fraction",
     "disk"},
    {M::kDiskWriteBesideEveryCoreBusy, "disk sequential write beside every core busy", "fraction",
     "disk"},
    {M::kHostDispatch, "host dispatch per op", "s", "host dispatch"},
    {M::kHostDispatchNeighbourSpeed, "host dispatch's neighbour speed", "fraction",
     "host dispatch"},
    {M::kGpuDependentGemm, "gpu dependent gemm ", "s", "gpu"},
    {M::kGpuElementwise, "gpu elementwise", "bytes/s", "gpu"},
    {M::kGpuLaunchGap, "gpu launch gap", "s", "gpu"},
    {M::kGpuDependentSmallKernels, "gpu dependent small kernels", "s", "gpu"},
    {M::kGpuQueuedSmallKernels, "gpu queued small kernels", "s", "gpu"},
    {M::kGpuDependentPasses, "gpu dependent 32 MB passes", "s", "gpu"},
    {M::kGpuHostToDevice, "gpu host to device", "bytes/s", "gpu"},
    {M::kGpuDeviceToHost, "gpu device to host", "bytes/s", "gpu"},
    {M::kGpuCopiesBothDirections, "gpu copies both directions", "bytes/s", "gpu"},
    {M::kGpuHostToDevicePageable, "gpu host to device pageable", "bytes/s", "gpu"},
    {M::kGpuDeviceToHostPageable, "gpu device to host pageable", "bytes/s", "gpu"},
    {M::kGpuCopyLatencyPageable, "gpu copy latency pageable", "s", "gpu"},
    {M::kGpuCopyLatency, "gpu copy latency", "s", "gpu"},
    {M::kGpuPeerCopyLatency, "gpu peer copy latency", "s", "gpu"},
    {M::kGpuPeerCopy, "gpu peer copy", "bytes/s", "gpu"},
};

const Kind& kind_of(MeasurementId id) {
  static_assert(std::size(kKinds) == static_cast<std::size_t>(M::kGpuPeerCopy) + 1,
                "every MeasurementId has its row, in order");
  return kKinds[static_cast<std::size_t>(id)];
}

}  // namespace

std::string measurement_name(const MeasurementKey& key) {
  const std::string base(kind_of(key.id).name);
  const std::string n = std::to_string(key.size), count = std::to_string(key.count);
  switch (key.id) {
    case M::kGemmOneThread:
      return "gemm " + n + " x1 thread";
    case M::kGemmAllThreads:
      return "gemm " + n + " x" + count + " thread";
    case M::kGemmEveryCore:
      return "gemm " + n + " on every core at once";
    case M::kCoreSpeedGemm:
    case M::kCoreSpeedElementwise:
    case M::kCoreSpeedMemcpy:
      return base + count;
    case M::kMemcpyOneStreamBySize:
      return memcpy_measurement_name(key.size);
    case M::kMemcpyTwoStreamsBySize:
      return memcpy_measurement_name(key.size, 2);
    case M::kElementwiseBySize:
      return base + std::to_string(key.size >> 20) + " MiB";
    case M::kGpuDependentGemm:
      return base + n;
    default:
      return base;
  }
}

std::string_view measurement_unit(MeasurementId id) {
  return kind_of(id).unit;
}

std::string_view measurement_group(MeasurementId id) {
  return kind_of(id).group;
}

}  // namespace opsim::calibration
