#include "experiments/cli/sweep_merge.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>

#include "common/atomic_file.hpp"
#include "common/input_error.hpp"
#include "common/input_file.hpp"
#include "experiments/cli/sweep_table.hpp"

namespace opsim {
namespace {

constexpr std::size_t kMostListed = 10;

struct MergeState {
  std::string header;
  std::vector<std::string> columns;
  std::string fingerprint;
  std::size_t points = 0;
  std::map<std::size_t, std::string> rows;  // by grid index
  std::size_t duplicates = 0;
  std::vector<std::size_t> conflicts;  // indexes held with different results
};

// Two rows of one point agree when all but sim_wall_s (host time) match.
bool same_result(const std::string& a, const std::string& b,
                 const std::vector<std::string>& columns) {
  std::vector<std::string> fa, fb;
  split_csv_line(a, fa);
  split_csv_line(b, fb);
  const auto wall = std::find(columns.begin(), columns.end(), "sim_wall_s") - columns.begin();
  for (std::size_t i = 0; i < fa.size() && i < fb.size(); ++i)
    if (static_cast<std::ptrdiff_t>(i) != wall && fa[i] != fb[i]) return false;
  return fa.size() == fb.size();
}

void read_input(const std::string& path, MergeState& state) {
  const std::string text = read_input_file(path, "sweep CSV");
  std::size_t begin = 0, line_number = 0;
  std::vector<std::string> fields;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) break;  // a torn last line: that point is missing
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    const std::string place = path + ":" + std::to_string(++line_number);
    if (line_number == 1) {
      if (state.header.empty()) {
        state.header = line;
        split_csv_line(line, state.columns);
      } else if (line != state.header) {
        throw InputError(place + ": other columns than the first input's; not the same sweep");
      }
      if (state.columns.size() < 4 || state.columns.back() != "sweep")
        throw InputError(place + ": not a sweep's CSV (its last column is not 'sweep')");
      continue;
    }
    if (!split_csv_line(line, fields) || fields.size() != state.columns.size())
      throw InputError(place + ": " + std::to_string(fields.size()) + " fields, the header has " +
                       std::to_string(state.columns.size()));
    const std::size_t n = fields.size();
    char* used = nullptr;
    const std::size_t index = std::strtoull(fields[n - 3].c_str(), &used, 10);
    const std::size_t points = std::strtoull(fields[n - 2].c_str(), nullptr, 10);
    if (state.fingerprint.empty()) {
      state.fingerprint = fields[n - 1];
      state.points = points;
    }
    if (fields[n - 1] != state.fingerprint || points != state.points)
      throw InputError(place + ": a row of another sweep (its 'sweep' column is " + fields[n - 1] +
                       ", the first row's " + state.fingerprint + ")");
    if (*used != '\0' || index >= state.points)
      throw InputError(place + ": point '" + fields[n - 3] + "' is not an index below " +
                       std::to_string(state.points));
    const auto [at, inserted] = state.rows.emplace(index, line);
    if (inserted) continue;
    ++state.duplicates;
    if (!same_result(at->second, line, state.columns)) state.conflicts.push_back(index);
  }
}

std::string listed(const std::vector<std::size_t>& indexes) {
  std::string text;
  for (std::size_t i = 0; i < indexes.size() && i < kMostListed; ++i)
    text += (i ? ", " : "") + std::to_string(indexes[i]);
  return text + (indexes.size() > kMostListed ? ", ..." : "");
}

}  // namespace

int run_sweep_merge(const SweepMergeOptions& options) {
  check_output_path(options.out_path, "the merged results");
  MergeState state;
  for (const std::string& path : options.inputs) read_input(path, state);
  if (state.header.empty()) throw InputError(options.inputs.front() + ": empty, no header");
  AtomicFile out(options.out_path);
  out.stream() << state.header << "\n";
  for (const auto& [index, row] : state.rows) out.stream() << row << "\n";
  out.commit();
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < state.points; ++i)
    if (!state.rows.count(i)) missing.push_back(i);
  std::string report = std::to_string(state.rows.size()) + " of " + std::to_string(state.points) +
                       " points, " + std::to_string(state.duplicates) + " duplicate rows dropped";
  if (!state.conflicts.empty())
    report += " (" + std::to_string(state.conflicts.size()) +
              " with different results, the first input's kept: points " + listed(state.conflicts) +
              ")";
  std::cerr << "sweep merge: " << report << "; wrote " << options.out_path << "\n";
  if (!missing.empty())
    throw InputError(options.out_path + ": " + std::to_string(missing.size()) + " of " +
                     std::to_string(state.points) + " points missing (grid indexes " +
                     listed(missing) + "); run their shards, then merge again");
  return 0;
}

}  // namespace opsim
