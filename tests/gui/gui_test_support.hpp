// What the GUI tests share beyond traces: the opsim CLI the windows start, letting queued
// events run, and finding an op by name.
#pragma once

#include <gtest/gtest.h>

#include <QApplication>
#include <QString>
#include <cstdint>
#include <string>

#include "engine/trace.hpp"

namespace opsim::gui::testing {

/// build/bin/opsim, which the windows run for simulations and replays.
inline QString cli_path() {
  return QStringLiteral(OPSIM_BINARY_DIR "/bin/opsim");
}

/// Runs the events queued so far (and those they queue), twenty rounds.
inline void settle() {
  for (int i = 0; i < 20; ++i) QApplication::processEvents();
}

/// The index of the first op called `name`; a test failure and 0 when there is none.
inline std::uint32_t op_named(const Trace& t, const std::string& name) {
  for (std::uint32_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i].name == name) return i;
  ADD_FAILURE() << "no op " << name;
  return 0;
}

}  // namespace opsim::gui::testing
