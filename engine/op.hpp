// An op: the unit the scheduler orders and a backend executes. Compact (one op per
// transfer of a 1024-GPU ring is two million ops), so names live in the OpGraph.
#pragma once

#include <cstdint>
#include <string_view>

#include "hw_models/machine.hpp"

namespace opsim {

using OpId = std::uint32_t;

enum class OpKind : std::uint8_t {
  kCompute,       ///< a kernel on `device`: flops and bytes touched
  kCopy,          ///< `bytes` from memory of `device` to memory of `peer`
  kDiskRead,      ///< `bytes` from disk `device` into memory of `peer`
  kDiskWrite,     ///< `bytes` from memory of `peer` onto disk `device`
  kHostDispatch,  ///< the issuing program spends `seconds` on CPU `device` (t1 per op)
};

enum class KernelClass : std::uint8_t { kGemm, kElementwise, kReduce, kFill, kNoop };
enum class DataType : std::uint8_t { kF32, kF16 };
enum class AccessPattern : std::uint8_t { kSequential, kRandom };

std::string_view to_string(OpKind kind);
std::string_view to_string(KernelClass kernel);
std::string_view to_string(DataType type);
std::string_view to_string(AccessPattern pattern);

struct Op {
  OpKind kind = OpKind::kCompute;
  KernelClass kernel = KernelClass::kNoop;
  DataType dtype = DataType::kF32;
  AccessPattern pattern = AccessPattern::kSequential;
  /// Compute and host dispatch only: the op takes exactly `seconds` (a duration recorded on a
  /// real machine, which already holds whatever slowed it there), not a time from the model.
  bool fixed_time = false;
  /// Copy: moved by a kernel's threads, as NCCL's channels move theirs (one thread block
  /// each), not by a DMA engine: it runs on the source GPU's channel lane `stream`, so more
  /// channels than copy engines do not queue behind one another.
  bool kernel_copy = false;
  /// Copy: no route latency of its own. The rest of a transfer whose first part went before
  /// it on the same lane (its bytes follow that part's on the wire), or a kernel copy whose
  /// `seconds` already holds the route's latency (so that its lane wait can hide it).
  bool continues_transfer = false;
  /// Kernel copy: its fixed delay starts once its lane is free, not while it waits for it (a
  /// collective's channel that has its NIC to itself: nothing overlaps its per-step cost).
  bool serial_step_delay = false;
  /// Compute: where it runs (kNoDevice: the scheduler places it). Copy: source memory.
  /// Disk ops: the disk. Host dispatch: the CPU whose program thread issues it.
  DeviceId device = kNoDevice;
  /// Copy: destination memory. Disk read: destination memory; disk write: source memory.
  DeviceId peer = kNoDevice;
  /// Preferred stream on its device (taken modulo the stream count); -1: scheduler picks.
  std::int32_t stream = -1;
  std::uint32_t block_bytes = 0;  ///< disk ops with random access: bytes per request
  double flops = 0;               ///< compute: floating-point operations
  double bytes = 0;               ///< compute: bytes touched in memory; copy and disk: bytes moved
  /// Host dispatch: host time spent; fixed_time ops: duration; copy: a fixed delay before its
  /// bytes move, beyond its route's latency (a collective protocol's per-step cost; simulated).
  double seconds = 0;

  /// The device whose memory holds the op's result (compute: device; copy and disk read: peer;
  /// disk write and dispatch: device).
  DeviceId result_device() const {
    return (kind == OpKind::kCopy || kind == OpKind::kDiskRead) ? peer : device;
  }
};

/// A short human label for an op's kind, e.g. "gemm", "copy", "disk read".
/// Memory an op takes on its result device when it starts and gives back when it ends. Kept
/// beside the graph's ops (OpGraph::memory_effect), not in them: a graph without any (a
/// collective of 16 million copies) then carries no 256 MB of zeros.
struct MemoryEffect {
  double alloc_bytes = 0;
  double release_bytes = 0;
};

std::string_view op_class(const Op& op);

}  // namespace opsim
