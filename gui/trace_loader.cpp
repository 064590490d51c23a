#include "gui/trace_loader.hpp"

#include <filesystem>

#include "engine/chrome_trace_reader.hpp"

namespace opsim::gui {

std::shared_ptr<Trace> load_trace_file(const std::string& path) {
  return std::make_shared<Trace>(read_chrome_trace(path));
}

LoadedTrace load_pane_trace(const std::string& path) {
  LoadedTrace loaded;
  loaded.trace = load_trace_file(path);
  loaded.twins = OpTwins::of(*loaded.trace);
  const std::string steps = replay_steps_path(path);
  std::error_code error;
  if (loaded.twins && !steps.empty() && std::filesystem::exists(steps, error))
    loaded.steps = std::make_shared<const ReplaySteps>(read_replay_steps(steps));
  return loaded;
}

}  // namespace opsim::gui
