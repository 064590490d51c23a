// The source and destination arrays of a CPU stream's memory-bound ops: page-aligned source,
// destination half a page off it, filled when they grow.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "engine/exec/operand_pair.hpp"

namespace opsim {
namespace {

std::uintptr_t page_offset(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 4096;
}

TEST(OperandPair, DestinationStartsHalfAPageOffTheSource) {
  for (std::size_t floats : {1u, 1000u, 1024u, 1u << 20, 1000000u}) {
    OperandPair operands;
    operands.reserve(floats);
    EXPECT_EQ(page_offset(operands.source()), 0u) << floats;
    EXPECT_EQ((page_offset(operands.destination()) + 4096 - page_offset(operands.source())) % 4096,
              OperandPair::kSkewBytes)
        << floats;
    // The arrays do not overlap.
    EXPECT_GE(operands.destination(), operands.source() + floats) << floats;
  }
}

TEST(OperandPair, FillsWhenItGrowsAndKeepsOtherwise) {
  OperandPair operands;
  operands.reserve(1000);
  EXPECT_EQ(operands.floats(), 1000u);
  EXPECT_EQ(operands.source()[999], 1.0f);
  EXPECT_EQ(operands.destination()[999], 0.0f);
  operands.destination()[0] = 5.0f;
  float* source = operands.source();
  operands.reserve(10);  // fits: same arrays, contents kept
  EXPECT_EQ(operands.source(), source);
  EXPECT_EQ(operands.destination()[0], 5.0f);
  operands.reserve(5000);
  EXPECT_EQ(operands.floats(), 5000u);
  EXPECT_EQ(operands.source()[4999], 1.0f);
  EXPECT_EQ(operands.destination()[0], 0.0f);
  EXPECT_EQ(page_offset(operands.source()), 0u);
}

// One block serves every size laid out in it, each with a fresh pair's layout of that size.
TEST(OperandPair, LaysOutEachSizeAsAFreshPairInOneBlock) {
  OperandPair kept;
  kept.lay_out(1u << 20);
  float* const block = kept.source();
  for (std::size_t floats : {1u << 20, 1000u, 1u << 18, 1000000u}) {
    kept.lay_out(floats);
    OperandPair fresh;
    fresh.reserve(floats);
    EXPECT_EQ(kept.source(), block) << floats;  // no new block
    EXPECT_EQ(kept.floats(), floats);
    EXPECT_EQ(kept.destination() - kept.source(), fresh.destination() - fresh.source()) << floats;
    EXPECT_EQ(kept.source()[floats - 1], 1.0f) << floats;  // written when the block was made
    EXPECT_TRUE(std::isfinite(kept.destination()[floats - 1])) << floats;
  }
  kept.lay_out(1u << 21);  // larger than the block: a new one, laid out alike
  OperandPair fresh;
  fresh.reserve(1u << 21);
  EXPECT_EQ(kept.destination() - kept.source(), fresh.destination() - fresh.source());
  EXPECT_EQ(page_offset(kept.source()), 0u);
  EXPECT_EQ(kept.destination()[(1u << 21) - 1], 1.0f);
}

}  // namespace
}  // namespace opsim
