#include "experiments/nccl_check/nccl_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "experiments/collectives/collective.hpp"

namespace opsim {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

std::vector<double> abs_time_errors(const std::vector<NcclCheckRow>& rows) {
  std::vector<double> errors;
  for (const NcclCheckRow& row : rows) errors.push_back(std::abs(row.time_error_pct));
  return errors;
}

// The two times differ by more than the busbw goal's tolerance.
bool measurements_disagree(double time_s, double other_time_s) {
  if (!std::isfinite(other_time_s)) return false;
  return std::max(time_s, other_time_s) / std::min(time_s, other_time_s) >
         1 + kGoalBusbwErrorPct / 100;
}

// Out of place an all-to-all also copies each GPU's own part, S/n: where that is a tenth of
// S or more (n <= 10), its two runs may differ by the goal's tolerance without any noise.
bool differs_by_design(const NcclReferenceModel& model) {
  return model.op == "all_to_all" && 1.0 / model.gpus >= kGoalBusbwErrorPct / 100;
}

}  // namespace

std::vector<NcclCheckRow> compare_with_reference(const NcclReference& reference,
                                                 const std::vector<double>& opsim_times_s) {
  if (opsim_times_s.size() != reference.rows.size())
    throw std::invalid_argument("compare_with_reference: one opsim time per reference row");
  const double factor =
      bus_factor(reference.model.op, static_cast<std::size_t>(reference.model.gpus));
  std::vector<NcclCheckRow> rows;
  for (std::size_t i = 0; i < reference.rows.size(); ++i) {
    const NcclReferenceRow& published = reference.rows[i];
    NcclCheckRow row;
    row.bytes = published.bytes;
    row.reference_time_s = published.time_s;
    row.opsim_time_s = opsim_times_s[i];
    row.time_error_pct = (row.opsim_time_s / row.reference_time_s - 1) * 100;
    row.reference_busbw_GBps = published.busbw_GBps;
    row.opsim_busbw_GBps = algbw_bytes_per_s(row.bytes, row.opsim_time_s) / 1e9 * factor;
    row.busbw_error_pct = published.busbw_GBps >= kLeastComparableBusbw_GBps
                              ? (row.opsim_busbw_GBps / published.busbw_GBps - 1) * 100
                              : std::nan("");
    row.reference_noisy = !differs_by_design(reference.model) &&
                          measurements_disagree(published.time_s, published.time_inplace_s);
    rows.push_back(row);
  }
  return rows;
}

NcclCheckSummary summarize(const std::vector<NcclCheckRow>& rows) {
  NcclCheckSummary summary;
  summary.sizes = rows.size();
  summary.median_abs_time_error_pct = median(abs_time_errors(rows));
  bool any_large = false;
  for (const NcclCheckRow& row : rows) {
    const double ratio = row.opsim_time_s > 0 ? row.opsim_time_s / row.reference_time_s
                                              : std::numeric_limits<double>::infinity();
    summary.worst_time_ratio = std::max({summary.worst_time_ratio, ratio, 1 / ratio});
    if (row.bytes < kGoalLargeBytes || !std::isfinite(row.busbw_error_pct)) continue;
    if (row.reference_noisy) {
      ++summary.noisy_large_sizes;
    } else {
      any_large = true;
      summary.worst_abs_busbw_error_pct =
          std::max(summary.worst_abs_busbw_error_pct, std::abs(row.busbw_error_pct));
    }
  }
  if (!any_large) summary.worst_abs_busbw_error_pct = std::nan("");
  summary.goal_met = !rows.empty() &&
                     summary.median_abs_time_error_pct <= kGoalMedianTimeErrorPct &&
                     summary.worst_time_ratio <= kGoalWorstTimeRatio &&
                     (!any_large || summary.worst_abs_busbw_error_pct <= kGoalBusbwErrorPct);
  return summary;
}

double pooled_median_abs_time_error_pct(const std::vector<std::vector<NcclCheckRow>>& tables) {
  std::vector<double> errors;
  for (const auto& rows : tables) {
    const std::vector<double> table_errors = abs_time_errors(rows);
    errors.insert(errors.end(), table_errors.begin(), table_errors.end());
  }
  return median(errors);
}

}  // namespace opsim
