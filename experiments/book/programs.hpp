// The book's programs, written once against the frontend. Each runs unchanged on a real
// Context or a recording one; devices are passed in so that one program serves a GPU
// machine and a CPU-only host.
#pragma once

#include "engine/frontend/context.hpp"

namespace opsim::book {

/// async: `ops` tiny additions; with `sync` each is waited for (wait_to_read), else one
/// waitall at the end.
void tiny_ops_program(frontend::Context& ctx, frontend::DeviceRef device, int ops, bool sync);

/// A group of `count` n x n matmuls on `device`, pinned to stream `stream` (results kept).
struct MatmulGroup {
  frontend::DeviceRef device;
  int stream = 0;
};
/// cpu-gpu: group a's matmuls, optionally a barrier (waitall), then group b's.
void two_groups_program(frontend::Context& ctx, MatmulGroup a, MatmulGroup b, int count,
                        std::size_t n, bool barrier);
/// One group alone (a part of two_groups_program).
void one_group_program(frontend::Context& ctx, MatmulGroup g, int count, std::size_t n);

/// compute-copy: `count` matmuls on `gpu`, results copied to `host`; with `barrier` all
/// matmuls finish (waitall) before the copies are issued, else each copy follows its matmul.
void compute_copy_program(frontend::Context& ctx, frontend::DeviceRef gpu, frontend::DeviceRef host,
                          int count, std::size_t n, bool barrier);

struct MlpShape {
  std::size_t batch = 1024, inputs = 512, hidden1 = 2048, hidden2 = 512;
  int batches = 150;
};
/// mlp-memory: SGD on a dense inputs-hidden1-hidden2-1 network (activations omitted: the
/// experiment is about dispatch and memory, not accuracy). Each batch's data is generated on
/// stream 1 (a data loader), training runs on stream 0; with `barrier`, waitall per batch.
void mlp_program(frontend::Context& ctx, frontend::DeviceRef device, const MlpShape& shape,
                 bool barrier);

}  // namespace opsim::book
