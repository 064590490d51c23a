#include "engine/csv_trace_writer.hpp"

#include <charconv>

#include "common/atomic_file.hpp"

namespace opsim {

namespace {

// Shortest decimal (no exponent) that reads back to the same double.
std::string format_number(double value) {
  char buffer[512];
  const auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed);
  if (result.ec != std::errc()) {
    const auto fallback = std::to_chars(buffer, buffer + sizeof(buffer), value);
    return std::string(buffer, fallback.ptr);
  }
  return std::string(buffer, result.ptr);
}

}  // namespace

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

void write_csv_trace(const Trace& trace, std::ostream& out) {
  out << "name,class,device,peer,lane,start_ns,end_ns,duration_ns,bytes,flops\n";
  for (const TraceOp& op : trace.ops) {
    const std::string lane = op.lane < trace.lanes.size() ? trace.lanes[op.lane].name : "";
    out << csv_field(op.name) << ',' << csv_field(op.op_class) << ',' << csv_field(op.device) << ','
        << csv_field(op.peer) << ',' << csv_field(lane) << ',' << op.start_ns << ',' << op.end_ns
        << ',' << (op.end_ns - op.start_ns) << ',' << format_number(op.bytes) << ','
        << format_number(op.flops) << '\n';
  }
}

void write_csv_trace(const Trace& trace, const std::filesystem::path& path) {
  AtomicFile file(path);
  write_csv_trace(trace, file.stream());
  file.commit();
}

}  // namespace opsim
