// The summary table: one row per strategy, collective algorithm or trace (makespan, algbw and
// busbw, the algorithm and protocol that ran, lower bound, busiest link and its utilization,
// bytes moved, peak memory). Qt::DisplayRole gives formatted text,
// Qt::UserRole the raw number in SI units (seconds, bytes, fraction).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "gui/summary.hpp"

namespace opsim::gui {

class SummaryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kName,
    kMakespan,
    kAlgbw,
    kBusbw,
    kChosen,
    kLowerBound,
    kBusiestLink,
    kLinkUtilization,
    kBytesMoved,
    kPeakMemory,
    kColumnCount
  };

  explicit SummaryModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  void set_rows(std::vector<SummaryRow> rows);
  const std::vector<SummaryRow>& rows() const { return rows_; }
  /// False when no row has a value in `column` (the window hides such columns).
  bool column_has_data(int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<SummaryRow> rows_;
};

/// "60.000 ms": milliseconds with three decimals (the seed's reference numbers read that way).
QString format_ms(double seconds);

}  // namespace opsim::gui
