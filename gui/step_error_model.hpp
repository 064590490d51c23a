// The per-step error table of the replays shown: one row per ProfilerStep of each replayed
// trace (its file name, rank, step, recorded, replayed, error). Qt::DisplayRole gives formatted
// text, Qt::UserRole the raw number (seconds, or the error as a fraction).
#pragma once

#include <memory>
#include <vector>

#include "gui/replay_steps.hpp"
#include "gui/value_table_model.hpp"

namespace opsim::gui {

class StepErrorModel : public ValueTableModel {
  Q_OBJECT
 public:
  enum Column { kTrace, kRank, kStep, kRecorded, kReplayed, kError, kColumnCount };

  explicit StepErrorModel(QObject* parent = nullptr) : ValueTableModel(kColumnCount, parent) {}

  /// Null entries are skipped.
  void set_replays(const std::vector<std::shared_ptr<const ReplaySteps>>& replays);

  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString trace;
    StepError step;
  };
  int row_count() const override { return static_cast<int>(rows_.size()); }
  QVariant value(int row, int column) const override;
  QVariant text(int row, int column) const override;
  bool left_aligned(int column) const override { return column == kTrace || column == kStep; }

  std::vector<Row> rows_;
};

/// "+1.23 %": a fraction as a signed percentage with two decimals.
QString format_percent(double fraction);

}  // namespace opsim::gui
