#include "gui/trace_loader.hpp"

#include "hw_models/input_error.hpp"

#if __has_include("engine/chrome_trace_reader.hpp")
#include "engine/chrome_trace_reader.hpp"
#define OPSIM_GUI_HAS_TRACE_READER 1
#else
#define OPSIM_GUI_HAS_TRACE_READER 0
#endif

namespace opsim::gui {

bool can_read_trace_files() {
  return OPSIM_GUI_HAS_TRACE_READER != 0;
}

std::shared_ptr<Trace> load_trace_file(const std::string& path) {
#if OPSIM_GUI_HAS_TRACE_READER
  auto trace = std::make_shared<Trace>(read_chrome_trace(path));
  return trace;
#else
  throw InputError(path + ": this build has no Chrome trace reader (engine/chrome_trace_reader)");
#endif
}

}  // namespace opsim::gui
