#include "gui/sweep_plot.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

#include "common/closest_name.hpp"
#include "common/input_error.hpp"
#include "common/sweep_columns.hpp"

namespace opsim::gui {
namespace {

constexpr const char* kBookkeeping[] = {"key", "error", "point", "points", "sweep", "trace_file"};
// The simulator's own host time: it differs from run to run and says nothing about the
// simulated machine, so it is charted only when asked for.
constexpr const char* kHostMetrics[] = {"sim_wall_s"};
constexpr const char* kSeriesPreference[] = {"strategy", "algorithm", "op", "topology"};

template <typename Names>
bool is_one_of(const std::string& name, const Names& names) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

bool is_error_row(const CsvTable& table, const CsvRow& row) {
  const auto error = table.column("error");
  return error && !row.fields[*error].empty();
}

bool is_numeric_column(const CsvTable& table, std::size_t column) {
  bool any = false;
  double ignored;
  for (const CsvRow& row : table.rows) {
    const std::string& cell = row.fields[column];
    if (cell.empty() || is_error_row(table, row)) continue;
    if (!parse_number(cell, ignored)) return false;
    any = true;
  }
  return any;
}

std::size_t column_index(const CsvTable& table, const std::string& name, const std::string& flag,
                         const std::string& source) {
  if (const auto index = table.column(name)) return *index;
  std::vector<std::string_view> names(table.columns.begin(), table.columns.end());
  throw InputError(source + ": " + flag + " " + name + ": no such column " +
                   name_suggestion(name, names));
}

// The rows --where keeps, error rows counted and left out.
std::vector<std::size_t> selected_rows(const CsvTable& table, const PlotRequest& request,
                                       const std::string& source, std::size_t& error_rows) {
  std::vector<std::pair<std::size_t, std::string>> conditions;
  for (const std::string& condition : request.where) {
    const std::size_t equals = condition.find('=');
    if (equals == std::string::npos || equals == 0)
      throw InputError(source + ": --where " + condition + ": expected COLUMN=VALUE");
    conditions.emplace_back(column_index(table, condition.substr(0, equals), "--where", source),
                            condition.substr(equals + 1));
  }
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const CsvRow& row = table.rows[i];
    const bool kept = std::all_of(conditions.begin(), conditions.end(),
                                  [&](const auto& c) { return row.fields[c.first] == c.second; });
    if (!kept) continue;
    if (is_error_row(table, row)) {
      ++error_rows;
      continue;
    }
    rows.push_back(i);
  }
  return rows;
}

bool varies(const CsvTable& table, std::size_t column, const std::vector<std::size_t>& rows) {
  for (std::size_t r : rows)
    if (table.rows[r].fields[column] != table.rows[rows.front()].fields[column]) return true;
  return false;
}

// Whether each value of column `from` comes with a single value of column `to`.
bool determines(const CsvTable& table, std::size_t from, std::size_t to,
                const std::vector<std::size_t>& rows) {
  std::map<std::string, const std::string*> seen;
  for (std::size_t r : rows) {
    const auto& fields = table.rows[r].fields;
    const auto [it, added] = seen.emplace(fields[from], &fields[to]);
    if (!added && *it->second != fields[to]) return false;
  }
  return true;
}

// Parameters that vary apart from x and the series: each splits lines. One that follows from
// x, the series or a column already chosen (gpus from topology) would only repeat it.
std::vector<std::string> style_columns_of(const CsvTable& table, const SweepColumns& columns,
                                          const std::string& x, const std::string& series,
                                          const std::vector<std::size_t>& rows) {
  std::vector<std::size_t> known = {*table.column(x)};
  if (!series.empty()) known.push_back(*table.column(series));
  std::vector<std::string> chosen;
  for (const std::string& parameter : columns.parameters) {
    const std::size_t index = *table.column(parameter);
    if (parameter == x || parameter == series || !varies(table, index, rows)) continue;
    if (std::any_of(known.begin(), known.end(),
                    [&](std::size_t k) { return determines(table, k, index, rows); }))
      continue;
    chosen.push_back(parameter);
    known.push_back(index);
  }
  return chosen;
}

// A numeric column's value in each row, checked: a cell that is not a number is refused.
double number_at(const CsvTable& table, std::size_t row, std::size_t column,
                 const std::string& flag, const std::string& source) {
  double value = 0;
  const CsvRow& r = table.rows[row];
  if (!parse_number(r.fields[column], value))
    throw InputError(source + ":" + std::to_string(r.line) + ": " + flag + " " +
                     table.columns[column] + ": '" + r.fields[column] + "' is not a number");
  return value;
}

std::string choose_series(const CsvTable& table, const SweepColumns& columns,
                          const PlotRequest& request, const std::vector<std::size_t>& rows) {
  const auto usable = [&](const std::string& name) {
    const auto index = table.column(name);
    return index && name != request.x && varies(table, *index, rows);
  };
  for (const char* name : kSeriesPreference)
    if (std::find(columns.parameters.begin(), columns.parameters.end(), name) !=
            columns.parameters.end() &&
        usable(name))
      return name;
  for (const std::string& name : columns.parameters)
    if (usable(name)) return name;
  return {};
}

std::vector<std::string> chosen_metrics(const CsvTable& table, const SweepColumns& columns,
                                        const PlotRequest& request,
                                        const std::vector<std::size_t>& rows,
                                        const std::string& source) {
  if (!request.y.empty()) {
    for (const std::string& y : request.y) {
      const std::size_t index = column_index(table, y, "--y", source);
      if (!is_numeric_column(table, index))
        throw InputError(source + ": --y " + y + ": not a numeric column");
    }
    return request.y;
  }
  std::vector<std::string> metrics;
  for (const std::string& metric : columns.metrics)
    if (metric != request.x && metric != request.series && !is_one_of(metric, kHostMetrics) &&
        varies(table, *table.column(metric), rows))
      metrics.push_back(metric);
  if (metrics.empty())
    throw InputError(source + ": no metric varies over the plotted rows (give one with --y)");
  return metrics;
}

// "ring · nvlink-ring:8 · gpus=8": text values as they are, numbers with their column.
std::string style_label(const CsvTable& table, const CsvRow& row,
                        const std::vector<std::string>& style_columns) {
  std::string label;
  for (const std::string& column : style_columns) {
    const std::string& value = row.fields[*table.column(column)];
    double ignored;
    label += " · " + (parse_number(value, ignored) ? column + "=" + value : value);
  }
  return label;
}

SweepChartPlan plan_chart(const CsvTable& table, const SweepPlot& plot, const std::string& x,
                          const std::string& metric, const std::vector<std::size_t>& rows,
                          const std::string& source) {
  const std::size_t x_column = *table.column(x), y_column = *table.column(metric);
  const auto series_column = table.column(plot.series_column);
  std::map<std::string, int> colors, styles;
  std::map<std::pair<int, int>, std::size_t> index_of;
  SweepChartPlan chart;
  chart.metric = metric;
  std::vector<double> xs, ys;
  for (std::size_t r : rows) {
    const CsvRow& row = table.rows[r];
    if (row.fields[x_column].empty() || row.fields[y_column].empty()) continue;
    const PlotPoint point{number_at(table, r, x_column, "--x", source),
                          number_at(table, r, y_column, "--y", source), r};
    const std::string color_key = series_column ? row.fields[*series_column] : metric;
    const std::string style_key = style_label(table, row, plot.style_columns);
    const int color = colors.emplace(color_key, int(colors.size())).first->second;
    const int style = styles.emplace(style_key, int(styles.size())).first->second;
    const auto [it, added] = index_of.emplace(std::pair{color, style}, chart.series.size());
    if (added) chart.series.push_back({color_key + style_key, color, style, {}});
    chart.series[it->second].points.push_back(point);
    xs.push_back(point.x);
    ys.push_back(point.y);
  }
  if (xs.empty())
    throw InputError(source + ": no row has both " + x + " and " + metric + " to plot");
  for (PlotSeries& s : chart.series)
    std::stable_sort(s.points.begin(), s.points.end(),
                     [](const PlotPoint& a, const PlotPoint& b) { return a.x < b.x; });
  chart.x = plot_axis(x, xs, false);
  chart.y = plot_axis(metric, ys, true);
  return chart;
}

}  // namespace

bool parse_number(const std::string& text, double& value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno != ERANGE && std::isfinite(value);
}

std::string SweepPlot::note() const {
  std::string note;
  if (error_rows > 0)
    note = std::to_string(error_rows) + (error_rows == 1 ? " row" : " rows") +
           " with an error skipped (see the error column)";
  if (dropped_torn_last_row)
    note += std::string(note.empty() ? "" : "; ") + "a torn last row (a write cut short) dropped";
  const std::string& splitter = style_columns.empty() ? series_column : style_columns.front();
  if (lone_points && !splitter.empty())
    note += std::string(note.empty() ? "" : "; ") + "every line is one point: " + splitter +
            " changes with x (pick one with --where " + splitter + "=VALUE)";
  return note;
}

SweepColumns sweep_columns_of(const CsvTable& table) {
  SweepColumns columns;
  const auto first_result =
      std::find_if(table.columns.begin(), table.columns.end(),
                   [](const std::string& c) { return is_one_of(c, kSweepResultColumns); });
  const bool is_sweep = first_result != table.columns.end();
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    const std::string& name = table.columns[i];
    if (is_one_of(name, kBookkeeping)) continue;
    const bool numeric = is_numeric_column(table, i);
    const bool result = is_sweep ? i >= std::size_t(first_result - table.columns.begin()) : numeric;
    if (!result) columns.parameters.push_back(name);
    if (result && numeric) columns.metrics.push_back(name);
  }
  return columns;
}

std::string default_x_column(const CsvTable& table) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < table.rows.size(); ++i)
    if (!is_error_row(table, table.rows[i])) rows.push_back(i);
  std::vector<std::string> candidates;
  for (const std::string& name : sweep_columns_of(table).parameters) {
    const std::size_t index = *table.column(name);
    double ignored;
    const bool numeric = std::all_of(rows.begin(), rows.end(), [&](std::size_t r) {
      return parse_number(table.rows[r].fields[index], ignored);
    });
    if (!rows.empty() && numeric && varies(table, index, rows)) candidates.push_back(name);
  }
  for (const char* preferred : {"bytes", "gpus"})
    if (std::find(candidates.begin(), candidates.end(), preferred) != candidates.end())
      return preferred;
  return candidates.empty() ? std::string() : candidates.front();
}

SweepPlot plan_sweep_plot(const CsvTable& table, const PlotRequest& request,
                          const std::string& source) {
  if (request.x.empty()) throw InputError(source + ": --x: give the column for the x axis");
  const std::size_t x_column = column_index(table, request.x, "--x", source);
  if (!request.series.empty()) (void)column_index(table, request.series, "--series", source);
  if (!request.series.empty() && request.series == request.x)
    throw InputError(source + ": --series " + request.series + ": the same column as --x");
  SweepPlot plot;
  plot.dropped_torn_last_row = table.dropped_torn_last_row;
  const std::vector<std::size_t> rows = selected_rows(table, request, source, plot.error_rows);
  if (rows.empty())
    throw InputError(source + ": no row to plot" +
                     (plot.error_rows > 0 ? " (every selected row has an error)" : ""));
  for (std::size_t r : rows)
    if (!table.rows[r].fields[x_column].empty()) (void)number_at(table, r, x_column, "--x", source);
  const SweepColumns columns = sweep_columns_of(table);
  plot.series_column =
      request.series.empty() ? choose_series(table, columns, request, rows) : request.series;
  plot.style_columns = style_columns_of(table, columns, request.x, plot.series_column, rows);
  PlotRequest resolved = request;
  resolved.series = plot.series_column;
  for (const std::string& metric : chosen_metrics(table, columns, resolved, rows, source))
    plot.charts.push_back(plan_chart(table, plot, request.x, metric, rows, source));
  plot.rows_plotted = rows.size();
  plot.lone_points = std::all_of(plot.charts.begin(), plot.charts.end(), [](const auto& chart) {
    return std::all_of(chart.series.begin(), chart.series.end(),
                       [](const PlotSeries& s) { return s.points.size() <= 1; });
  });
  return plot;
}

}  // namespace opsim::gui
