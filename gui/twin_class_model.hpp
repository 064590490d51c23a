// The real-vs-simulated table of the overlays shown (`opsim validate --trace-dir` and `opsim
// replay --trace-dir` output): one row per op class of each overlay with its ops and busy time
// (sum of op durations) recorded and simulated and the difference, the figures `opsim
// validate` prints per op class. Qt::DisplayRole gives formatted text, Qt::UserRole the raw
// number (seconds, counts, the difference as a fraction).
#pragma once

#include <vector>

#include "gui/op_twins.hpp"
#include "gui/value_table_model.hpp"

namespace opsim::gui {

class TwinClassModel : public ValueTableModel {
  Q_OBJECT
 public:
  enum Column {
    kTrace,
    kClass,
    kRealOps,
    kSimOps,
    kRealBusy,
    kSimBusy,
    kDifference,
    kRelative,
    kColumnCount
  };

  explicit TwinClassModel(QObject* parent = nullptr) : ValueTableModel(kColumnCount, parent) {}

  struct Overlay {
    QString title;
    std::vector<ClassDifference> classes;
  };
  void set_overlays(std::vector<Overlay> overlays);

  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString trace;
    ClassDifference c;
  };
  int row_count() const override { return static_cast<int>(rows_.size()); }
  QVariant value(int row, int column) const override;
  QVariant text(int row, int column) const override;
  bool left_aligned(int column) const override { return column <= kClass; }

  std::vector<Row> rows_;
};

}  // namespace opsim::gui
