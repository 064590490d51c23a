#include "engine/chunked_vector.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <utility>

namespace opsim {
namespace {

TEST(ChunkedVector, ValuesReadBackAcrossChunksAfterMoveAndCopy) {
  using Vector = ChunkedVector<std::uint32_t>;
  static_assert(Vector::kChunkSize * sizeof(std::uint32_t) % kHugePageBytes == 0);
  const std::size_t count = 2 * Vector::kChunkSize + 3;
  Vector values;
  for (std::size_t i = 0; i < count; ++i) values.push_back(static_cast<std::uint32_t>(i * 7));
  const std::uint32_t* first = &values[0];

  Vector moved = std::move(values);
  EXPECT_EQ(values.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  values.push_back(5);           // and usable: its own chunk, not the moved one's
  EXPECT_EQ(values[0], 5u);
  const Vector copy = moved;
  for (const Vector* vector : std::initializer_list<const Vector*>{&moved, &copy}) {
    ASSERT_EQ(vector->size(), count);
    for (std::size_t i : {std::size_t{0}, Vector::kChunkSize - 1, Vector::kChunkSize,
                          2 * Vector::kChunkSize, count - 1})
      EXPECT_EQ((*vector)[i], i * 7) << i;
  }
  EXPECT_EQ(first, &moved[0]);  // moving keeps the chunks where they are
  moved.push_back(1);
  EXPECT_EQ(moved.back(), 1u);
  EXPECT_EQ(moved.size(), count + 1);
}

}  // namespace
}  // namespace opsim
