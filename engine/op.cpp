#include "engine/op.hpp"

namespace opsim {

std::string_view to_string(OpKind kind) {
  switch (kind) {
    case OpKind::kCompute: return "compute";
    case OpKind::kCopy: return "copy";
    case OpKind::kDiskRead: return "disk_read";
    case OpKind::kDiskWrite: return "disk_write";
    case OpKind::kHostDispatch: return "dispatch";
  }
  return "compute";
}

std::string_view to_string(KernelClass kernel) {
  switch (kernel) {
    case KernelClass::kGemm: return "gemm";
    case KernelClass::kElementwise: return "elementwise";
    case KernelClass::kReduce: return "reduce";
    case KernelClass::kFill: return "fill";
    case KernelClass::kNoop: return "noop";
  }
  return "noop";
}

std::string_view to_string(DataType type) { return type == DataType::kF16 ? "f16" : "f32"; }

std::string_view to_string(AccessPattern pattern) {
  return pattern == AccessPattern::kRandom ? "random" : "sequential";
}

std::string_view op_class(const Op& op) {
  return op.kind == OpKind::kCompute ? to_string(op.kernel) : to_string(op.kind);
}

}  // namespace opsim
