// Mangled topology files either parse or fail with a one-line InputError that starts with
// the file name: never a crash, never another exception type.
#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <string>

#include "common/input_error.hpp"
#include "topologies/embedded_presets.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim {
namespace {

std::string mangle(std::string text, std::mt19937& rng) {
  static const std::string kPieces[] = {"{", "}",  "[",  "]",  ":", "-",  " ",   "\n",   "  ", "#",
                                        "'", "\"", "&a", "*a", "0", "-1", "nan", "GB/s", ","};
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const std::size_t at = rng() % text.size();
    switch (rng() % 3) {
      case 0:
        text.erase(at, 1 + rng() % 8);
        break;
      case 1:
        text.insert(at, kPieces[rng() % std::size(kPieces)]);
        break;
      default:
        text[at] = static_cast<char>(' ' + rng() % 95);
        break;
    }
  }
  return text;
}

TEST(TopologyFuzz, MangledPresetsFailCleanly) {
  std::mt19937 rng(20261122);
  int parsed = 0, rejected = 0;
  for (const EmbeddedPreset& preset : embedded_presets()) {
    for (int round = 0; round < 150; ++round) {
      const std::string text = mangle(std::string(preset.yaml), rng);
      try {
        parse_topology_yaml(text, "fuzz.yaml");
        ++parsed;
      } catch (const InputError& e) {
        const std::string message = e.what();
        ASSERT_TRUE(std::regex_search(message, std::regex("^fuzz\\.yaml:[0-9]+:[0-9]+: .+")))
            << message;
        ASSERT_EQ(message.find('\n'), std::string::npos) << message;
        ++rejected;
      } catch (const std::exception& e) {
        FAIL() << "not an InputError: " << e.what() << "\n" << text;
      }
    }
  }
  // Both outcomes occur: comments absorb some edits, most break something.
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace opsim
