// The simulation's own timer queue (sim/sim_backend_impl.hpp): earliest date first, ties in
// the order set, whether a timer went to its in-order lane or to its heap.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/sim_backend_impl.hpp"

namespace opsim::sim_internals {
namespace {

std::vector<std::uint32_t> pop_slots(TimerQueue& queue, std::size_t count) {
  std::vector<std::uint32_t> slots;
  for (std::size_t i = 0; i < count && !queue.empty(); ++i) {
    slots.push_back(queue.top().slot);
    queue.pop();
  }
  return slots;
}

TEST(TimerQueue, EarliestFirstAndTiesInTheOrderSet) {
  TimerQueue queue;
  queue.push(2.0, 0);
  queue.push(2.0, 1);
  queue.push(1.0, 2);  // out of order: the heap
  queue.push(3.0, 3);
  queue.push(2.0, 4);  // out of order, tied with 0 and 1: after them
  EXPECT_EQ(pop_slots(queue, 10), (std::vector<std::uint32_t>{2, 0, 1, 4, 3}));
  EXPECT_TRUE(queue.empty());
}

// The in-order lane is a circular buffer: it must keep its order when it wraps around and
// when it grows while wrapped.
TEST(TimerQueue, InOrderTimersSurviveWrapAroundAndGrowth) {
  TimerQueue queue;
  std::uint32_t next_slot = 0;
  std::uint32_t expected_slot = 0;
  double date_s = 0;
  for (int round = 0; round < 5; ++round) {
    const std::size_t pushes = 700 + 900 * static_cast<std::size_t>(round);
    for (std::size_t i = 0; i < pushes; ++i) queue.push(date_s += 1e-6, next_slot++);
    for (std::uint32_t slot : pop_slots(queue, pushes / 2 + 300)) EXPECT_EQ(slot, expected_slot++);
  }
  for (std::uint32_t slot : pop_slots(queue, next_slot)) EXPECT_EQ(slot, expected_slot++);
  EXPECT_EQ(expected_slot, next_slot);
  EXPECT_TRUE(queue.empty());
}

}  // namespace
}  // namespace opsim::sim_internals
