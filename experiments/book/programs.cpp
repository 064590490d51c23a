#include "experiments/book/programs.hpp"

#include <vector>

namespace opsim::book {

using frontend::Array;
using frontend::Context;
using frontend::DeviceRef;

void tiny_ops_program(Context& ctx, DeviceRef device, int ops, bool sync) {
  const Array x = ctx.full(device, 1, 16, 1.0f);
  const Array one = ctx.full(device, 1, 16, 1.0f);
  ctx.waitall();
  for (int i = 0; i < ops; ++i) {
    const Array y = ctx.add(x, one);
    if (sync) ctx.wait_to_read(y);
  }
  ctx.waitall();
}

void one_group_program(Context& ctx, MatmulGroup g, int count, std::size_t n) {
  ctx.set_stream_hint(g.stream);
  const Array x = ctx.random(g.device, n, n, 1);
  std::vector<Array> results;
  for (int i = 0; i < count; ++i) results.push_back(ctx.dot(x, x));
  ctx.set_stream_hint(-1);
  ctx.waitall();
}

void two_groups_program(Context& ctx, MatmulGroup a, MatmulGroup b, int count, std::size_t n,
                        bool barrier) {
  ctx.set_stream_hint(a.stream);
  const Array xa = ctx.random(a.device, n, n, 1);
  ctx.set_stream_hint(b.stream);
  const Array xb = ctx.random(b.device, n, n, 2);
  ctx.waitall();  // inputs ready: the groups' matmuls are what is timed
  std::vector<Array> results;
  ctx.set_stream_hint(a.stream);
  for (int i = 0; i < count; ++i) results.push_back(ctx.dot(xa, xa));
  if (barrier) ctx.waitall();
  ctx.set_stream_hint(b.stream);
  for (int i = 0; i < count; ++i) results.push_back(ctx.dot(xb, xb));
  ctx.set_stream_hint(-1);
  ctx.waitall();
}

void compute_copy_program(Context& ctx, DeviceRef gpu, DeviceRef host, int count, std::size_t n,
                          bool barrier) {
  const Array x = ctx.random(gpu, n, n, 1);
  ctx.waitall();
  std::vector<Array> results, copies;
  for (int i = 0; i < count; ++i) {
    results.push_back(ctx.dot(x, x));
    if (!barrier) copies.push_back(ctx.copy_to(results.back(), host));
  }
  if (barrier) {
    ctx.waitall();
    for (const Array& r : results) copies.push_back(ctx.copy_to(r, host));
  }
  ctx.waitall();
}

void mlp_program(Context& ctx, DeviceRef device, const MlpShape& s, bool barrier) {
  constexpr float kLearningRate = 1e-4f;
  ctx.set_stream_hint(0);
  Array w1 = ctx.random(device, s.inputs, s.hidden1, 11);
  Array w2 = ctx.random(device, s.hidden1, s.hidden2, 12);
  Array w3 = ctx.random(device, s.hidden2, 1, 13);
  const Array minus_one = ctx.full(device, s.batch, 1, -1.0f);
  ctx.waitall();
  for (int b = 0; b < s.batches; ++b) {
    ctx.set_stream_hint(1);  // the data loader
    const Array x = ctx.random(device, s.batch, s.inputs, 1000 + 2 * static_cast<std::uint64_t>(b));
    const Array y = ctx.random(device, s.batch, 1, 1001 + 2 * static_cast<std::uint64_t>(b));
    ctx.set_stream_hint(0);  // training
    const Array h1 = ctx.dot(x, w1);
    const Array h2 = ctx.dot(h1, w2);
    const Array out = ctx.dot(h2, w3);
    const Array d_out =
        ctx.add(out, ctx.mul(y, minus_one));  // squared-loss gradient (x2 folded in lr)
    const Array d_w3 = ctx.dot(h2, d_out, true, false);
    const Array d_h2 = ctx.dot(d_out, w3, false, true);
    const Array d_w2 = ctx.dot(h1, d_h2, true, false);
    const Array d_h1 = ctx.dot(d_h2, w2, false, true);
    const Array d_w1 = ctx.dot(x, d_h1, true, false);
    ctx.axpy(w1, -kLearningRate, d_w1);
    ctx.axpy(w2, -kLearningRate, d_w2);
    ctx.axpy(w3, -kLearningRate, d_w3);
    const Array loss = ctx.sum(ctx.mul(d_out, d_out));
    if (barrier) ctx.waitall();
  }
  ctx.set_stream_hint(-1);
  ctx.waitall();
}

}  // namespace opsim::book
