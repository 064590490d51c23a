// The per-step error table of the replays shown: one row per ProfilerStep of each replayed
// trace (its file name, rank, step, recorded, replayed, error). Qt::DisplayRole gives formatted
// text, Qt::UserRole the raw number (seconds, or the error as a fraction).
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "gui/replay_steps.hpp"

namespace opsim::gui {

class StepErrorModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kTrace, kRank, kStep, kRecorded, kReplayed, kError, kColumnCount };

  explicit StepErrorModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  /// Null entries are skipped.
  void set_replays(const std::vector<std::shared_ptr<const ReplaySteps>>& replays);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString trace;
    StepError step;
  };
  QVariant display(const Row& r, int column) const;
  QVariant value(const Row& r, int column) const;

  std::vector<Row> rows_;
};

/// "+1.23 %": a fraction as a signed percentage with two decimals.
QString format_percent(double fraction);

}  // namespace opsim::gui
