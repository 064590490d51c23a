#include "engine/trace_files.hpp"

#include "engine/chrome_trace_reader.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "engine/csv_trace_writer.hpp"
#include "common/input_error.hpp"

namespace opsim {

void write_trace_file(const Trace& trace, const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  if (extension == ".json") {
    write_chrome_trace(trace, path);
  } else if (extension == ".csv") {
    write_csv_trace(trace, path);
  } else {
    throw InputError(path.string() + ": unknown trace format \"" + extension +
                     "\" (use .json for a Chrome/Perfetto trace or .csv)");
  }
}

Trace read_trace_file(const std::filesystem::path& path) {
  if (path.extension() != ".json") {
    throw InputError(path.string() + ": opsim reads .json traces only (Chrome trace format)");
  }
  return read_chrome_trace(path.string());
}

}  // namespace opsim
