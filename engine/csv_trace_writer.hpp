// Writes a Trace's ops as CSV, one row per op, for spreadsheets and pandas:
//   name,class,device,peer,lane,start_ns,end_ns,duration_ns,bytes,flops
// Fields holding a comma, a double quote, CR or LF are quoted with quotes doubled
// (RFC 4180); rows end with "\n". Numbers are plain decimals that read back exactly.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

#include "engine/trace.hpp"

namespace opsim {

/// `field` quoted per RFC 4180 when it needs to be, else unchanged.
std::string csv_field(std::string_view field);

void write_csv_trace(const Trace& trace, std::ostream& out);
/// Writes atomically; throws InputError naming the path on failure.
void write_csv_trace(const Trace& trace, const std::filesystem::path& path);

}  // namespace opsim
