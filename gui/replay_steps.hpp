// The per-step error of a replay: each ProfilerStep's recorded and replayed length, as
// `opsim replay --format json` prints it and `--trace-dir` writes it beside the overlay
// (<stem>.overlay.json and <stem>.steps.json). No Qt.
//
//   ReplaySteps s = read_replay_steps("out/rank0.steps.json");   // throws InputError
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opsim::gui {

struct StepError {
  std::int64_t rank = 0;
  std::string name;  ///< "ProfilerStep#4", or "whole trace"
  double recorded_s = 0;
  double replayed_s = 0;
  double error = 0;  ///< (replayed - recorded) / recorded
};

struct ReplaySteps {
  std::vector<std::string> traces;  ///< the recorded traces, one per rank, as opsim replay got them
  std::string machine;              ///< what it was replayed on ("pcie-switch:2")
  std::vector<StepError> steps;
  double median_abs_error = 0;
  double worst_abs_error = 0;
};

/// Reads the JSON report; throws InputError "SOURCE: ..." when it is not one.
ReplaySteps parse_replay_steps(std::string_view json_text, const std::string& source);
ReplaySteps read_replay_steps(const std::string& path);

/// Where the report of the overlay at `overlay_path` lies: "DIR/X.overlay.json" ->
/// "DIR/X.steps.json"; "" when the name does not end in ".overlay.json".
std::string replay_steps_path(const std::string& overlay_path);

}  // namespace opsim::gui
