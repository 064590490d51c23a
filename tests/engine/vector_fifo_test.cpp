// The scheduler's per-stream queue: first in, first out across its compactions.
#include "engine/vector_fifo.hpp"

#include <gtest/gtest.h>

namespace opsim {
namespace {

TEST(VectorFifo, KeepsOrderThroughDrainsAndCompactions) {
  VectorFifo<int> fifo;
  EXPECT_TRUE(fifo.empty());
  int next_in = 0;
  int next_out = 0;
  // Pushes 3, pops 2, so the queue grows while its front moves: past 64 popped items the
  // popped ones are dropped; every item still comes out in order.
  for (int round = 0; round < 500; ++round) {
    for (int k = 0; k < 3; ++k) fifo.push_back(next_in++);
    for (int k = 0; k < 2; ++k) {
      ASSERT_EQ(fifo.front(), next_out++);
      fifo.pop_front();
    }
    ASSERT_EQ(fifo.size(), static_cast<std::size_t>(next_in - next_out));
  }
  while (!fifo.empty()) {
    ASSERT_EQ(fifo.front(), next_out++);
    fifo.pop_front();
  }
  EXPECT_EQ(next_out, 1500);
  fifo.push_back(7);  // usable again once drained
  EXPECT_EQ(fifo.front(), 7);
  EXPECT_EQ(fifo.size(), 1u);
}

}  // namespace
}  // namespace opsim
