#include "gui/trace_loader.hpp"

#include <filesystem>

#include "common/gzip_input.hpp"
#include "common/input_file.hpp"
#include "engine/chrome_trace_reader.hpp"
#include "gui/chrome_trace_import.hpp"
#include "gui/trace_format.hpp"

namespace opsim::gui {

ReadTrace read_trace_file(const std::string& path) {
  // One read into one buffer: traces of a million spans are hundreds of megabytes.
  std::string text = read_input_file(path, "trace file");
  if (is_gzip(text)) text = gunzip_input(text, path);
  const std::string_view start = std::string_view(text).substr(0, kTraceSniffBytes);
  if (trace_format_of(start) == TraceFormat::kOpsim)
    return {std::make_shared<Trace>(parse_chrome_trace(text, path)), 0};
  ChromeImport imported = import_chrome_trace(text, path);
  // otherData.opsim after the events (a file re-ordered by another tool): opsim's reader.
  if (imported.has_opsim_metadata)
    return {std::make_shared<Trace>(parse_chrome_trace(text, path)), 0};
  imported.trace.title = std::filesystem::path(path).filename().string();
  return {std::make_shared<Trace>(std::move(imported.trace)), imported.events_not_drawn};
}

std::shared_ptr<Trace> load_trace_file(const std::string& path) {
  return read_trace_file(path).trace;
}

LoadedTrace load_pane_trace(const std::string& path) {
  LoadedTrace loaded;
  ReadTrace read = read_trace_file(path);
  loaded.trace = std::move(read.trace);
  loaded.events_not_drawn = read.events_not_drawn;
  loaded.twins = OpTwins::of(*loaded.trace);
  const std::string steps = replay_steps_path(path);
  std::error_code error;
  if (loaded.twins && !steps.empty() && std::filesystem::exists(steps, error))
    loaded.steps = std::make_shared<const ReplaySteps>(read_replay_steps(steps));
  return loaded;
}

}  // namespace opsim::gui
