#include "engine/name_store.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace opsim {
namespace {

constexpr std::size_t kBlock = kHugePageBytes;

// Names that fill a block to its last byte, one that would straddle the next boundary, an
// empty one, one longer than two blocks, names after it and names stored once for several
// ops must all read back as written, also from a copy and after a move.
TEST(NameStore, NamesReadBackAcrossBlockBoundariesAndLongNames) {
  std::vector<std::string> written;
  written.push_back(std::string(kBlock - 16, 'a'));  // a record of kBlock - 11 bytes
  written.push_back("0123456789");                   // ends the first block exactly
  written.push_back("next block");
  written.push_back(std::string(kBlock - 30, 'b'));  // leaves 14 bytes of its block
  written.push_back("does not fit in the rest");     // moves to the third block's start
  written.push_back("");
  written.push_back(std::string(2 * kBlock + 5, 'c'));  // a block of its own
  written.push_back("");
  written.push_back("after the long name");
  written.push_back(std::string(2 * kBlock - 5, 'd'));  // a record of exactly two blocks
  written.push_back("last");
  written.push_back("last");                 // the same as the name before: one record for both
  written.push_back(std::string(300, 'e'));  // a length past one byte
  written.push_back("last");                 // the same as two names before
  written.push_back(std::string(300, 'e'));

  NameStore names;
  for (const std::string& name : written) names.push_back(name);
  const NameStore copy = names;
  const NameStore moved = std::move(names);
  for (const NameStore* store : std::initializer_list<const NameStore*>{&moved, &copy}) {
    ASSERT_EQ(store->size(), written.size());
    for (std::size_t i = 0; i < written.size(); ++i)
      EXPECT_EQ((*store)[i], written[i]) << "name " << i;
  }
}

TEST(NameStore, ManySmallNamesSpanSeveralBlocks) {
  NameStore names;
  const std::size_t count = 3 * kBlock / 7;  // about 3.4 blocks of names 6 to 7 long
  for (std::size_t i = 0; i < count; ++i) names.push_back("n" + std::to_string(i));
  ASSERT_EQ(names.size(), count);
  for (std::size_t i = 0; i < count; i += 9973) EXPECT_EQ(names[i], "n" + std::to_string(i));
  EXPECT_EQ(names[count - 1], "n" + std::to_string(count - 1));
}

}  // namespace
}  // namespace opsim
