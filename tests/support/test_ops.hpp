// Ops built in code for the tests that run op graphs.
#pragma once

#include "engine/op_graph.hpp"

namespace opsim::test {

/// A copy of `bytes` from `src` to `dst`.
inline Op copy_op(DeviceId src, DeviceId dst, double bytes) {
  Op op;
  op.kind = OpKind::kCopy;
  op.device = src;
  op.peer = dst;
  op.bytes = bytes;
  return op;
}

}  // namespace opsim::test
