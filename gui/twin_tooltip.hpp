// The hover text of an op that has a twin in an overlay (gui/op_twins.hpp): when and how long
// it ran recorded and replayed, and the difference (replayed minus recorded).
#pragma once

#include <QString>

#include "gui/op_twins.hpp"

namespace opsim::gui {

/// Rich text: "recorded: start 1.000 ms, duration 20.00 us<br>replayed: ...<br>difference:
/// start +3.000 us, duration -1.000 us (-5.0 %)".
QString twin_tooltip_html(const TwinTiming& timing);

}  // namespace opsim::gui
