#include "gui/replay_steps.hpp"

#include <nlohmann/json.hpp>

#include "common/input_error.hpp"
#include "common/input_file.hpp"

namespace opsim::gui {
namespace {

using json = nlohmann::json;

StepError step_of(const json& s) {
  StepError e;
  e.rank = s.at("rank").get<std::int64_t>();
  e.name = s.at("name").get<std::string>();
  e.recorded_s = s.at("recorded_s").get<double>();
  e.replayed_s = s.at("replayed_s").get<double>();
  e.error = s.at("error").get<double>();
  return e;
}

}  // namespace

ReplaySteps parse_replay_steps(std::string_view json_text, const std::string& source) {
  try {
    const json doc = json::parse(json_text);
    ReplaySteps r;
    r.traces = doc.at("traces").get<std::vector<std::string>>();
    r.machine = doc.at("machine").get<std::string>();
    for (const json& s : doc.at("steps")) r.steps.push_back(step_of(s));
    r.median_abs_error = doc.at("median_abs_error").get<double>();
    r.worst_abs_error = doc.at("worst_abs_error").get<double>();
    return r;
  } catch (const json::exception& e) {
    throw InputError(source + ": not an opsim replay report: " + e.what());
  }
}

ReplaySteps read_replay_steps(const std::string& path) {
  return parse_replay_steps(read_input_file(path, "replay report"), path);
}

std::string replay_steps_path(const std::string& overlay_path) {
  constexpr std::string_view kOverlay = ".overlay.json";
  if (!overlay_path.ends_with(kOverlay)) return {};
  return overlay_path.substr(0, overlay_path.size() - kOverlay.size()) + ".steps.json";
}

}  // namespace opsim::gui
