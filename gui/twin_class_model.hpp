// The real-vs-simulated table of the overlays shown (`opsim validate --trace-dir` and `opsim
// replay --trace-dir` output): one row per op class of each overlay with its ops and busy time
// (sum of op durations) recorded and simulated and the difference, the figures `opsim
// validate` prints per op class. Qt::DisplayRole gives formatted text, Qt::UserRole the raw
// number (seconds, counts, the difference as a fraction).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "gui/op_twins.hpp"

namespace opsim::gui {

class TwinClassModel : public QAbstractTableModel {
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

  explicit TwinClassModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  struct Overlay {
    QString title;
    std::vector<ClassDifference> classes;
  };
  void set_overlays(std::vector<Overlay> overlays);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString trace;
    ClassDifference c;
  };
  QVariant value(const Row& r, int column) const;

  std::vector<Row> rows_;
};

}  // namespace opsim::gui
