// The preset topology files under topologies/presets/, compiled into the library by CMake
// (topologies/embed_presets.cmake) so that a binary finds them from any directory.
#pragma once

#include <span>
#include <string_view>

namespace opsim {

struct EmbeddedPreset {
  std::string_view name;    ///< file name without ".yaml", e.g. "dgx1-v100"
  std::string_view source;  ///< "topologies/presets/dgx1-v100.yaml", used in error messages
  std::string_view yaml;    ///< the file's contents
};

/// All presets, sorted by name.
std::span<const EmbeddedPreset> embedded_presets();

}  // namespace opsim
