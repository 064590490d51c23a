#include "gui/trace_loader.hpp"

#include "engine/chrome_trace_reader.hpp"

namespace opsim::gui {

std::shared_ptr<Trace> load_trace_file(const std::string& path) {
  return std::make_shared<Trace>(read_chrome_trace(path));
}

}  // namespace opsim::gui
