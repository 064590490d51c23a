// What `opsim calibrate` measures, one id per kind of measurement. A parameter table row
// names the measurement that sets it; the calibration's items and the profile it builds use
// these ids (experiments/calibration/measurement_key.hpp adds the size or core a kind is
// taken at and the display name), so a measurement the profile needs and the plan lacks is
// found by a test, not looked up by text at run time.
#pragma once

namespace opsim {

enum class MeasurementId {
  kNone,  ///< not calibrated: a preset's or the user's figure
  // CPU compute
  kGemmOneThread,   ///< flop/s of one thread's SGEMM of side n, over every core
  kGemmAllThreads,  ///< flop/s of an SGEMM of side n on every hardware thread
  kGemmEveryCore,   ///< flop/s each one-thread SGEMM keeps with one running on every core
  kCoreSpeedGemm,   ///< a core's one-thread SGEMM rate / the mean core's
  // CPU memory
  kMemcpyOneStream,         ///< bytes/s one memcpy thread copies (the largest size)
  kMemcpyTwoStreams,        ///< bytes/s two memcpy threads copy together (the largest size)
  kMemcpyOneStreamBySize,   ///< the same at a smaller size
  kMemcpyTwoStreamsBySize,  ///< the same, two streams, at a smaller size
  kElementwise,             ///< bytes/s one thread's elementwise pass touches (the largest set)
  kElementwiseBySize,       ///< the same over a smaller working set
  kCoreSpeedElementwise,    ///< a core's elementwise rate / the mean core's
  kCoreSpeedMemcpy,         ///< a core's memcpy rate / the mean core's
  kDramFirstAccess,         ///< s per dependent load of a pointer chase beyond the caches
  // Disk
  kDiskSequentialWrite,
  kDiskSequentialRead,
  kDiskRandomRead,                  ///< s per random 4 KiB read
  kDiskRandomWrite,                 ///< s per random 4 KiB write
  kDiskRandomReadBesideSequential,  ///< s per random 4 KiB read beside a sequential read
  kDiskSequentialReadBesideRandom,
  kDiskSequentialReadBesideWrite,
  kDiskSequentialWriteBesideRead,
  kDiskSequentialReadsTogether,
  kDiskIoCores,                  ///< cores a disk read takes from busy cores
  kDiskReadBesideOneBusyCore,    ///< a read's speed beside one busy core, a fraction
  kDiskReadBesideEveryCoreBusy,  ///< the same beside every core busy
  kDiskWriteBesideOneBusyCore,
  kDiskWriteBesideEveryCoreBusy,
  // Host dispatch
  kHostDispatch,                ///< s the frontend takes to issue one op
  kHostDispatchNeighbourSpeed,  ///< a GEMM's speed beside a busy-waiting dispatch, a fraction
  // GPU 0 and its copies
  kGpuDependentGemm,  ///< s per SGEMM of side n in a chain of dependent ones
  kGpuElementwise,
  kGpuLaunchGap,
  kGpuDependentSmallKernels,
  kGpuQueuedSmallKernels,
  kGpuDependentPasses,
  kGpuHostToDevice,
  kGpuDeviceToHost,
  kGpuCopiesBothDirections,
  kGpuHostToDevicePageable,
  kGpuDeviceToHostPageable,
  kGpuCopyLatencyPageable,
  kGpuCopyLatency,
  kGpuPeerCopyLatency,
  kGpuPeerCopy,
};

}  // namespace opsim
