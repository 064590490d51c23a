// The real-vs-simulated table op by op of the overlays shown: one row per pair of twins
// (gui/op_twins.hpp) with the op, its class, when and how long it ran real and simulated, and
// the differences (simulated minus real). Qt::DisplayRole gives formatted text, Qt::UserRole
// the raw number (seconds) so that a sort proxy orders rows by value.
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "engine/trace.hpp"
#include "gui/op_twins.hpp"

namespace opsim::gui {

class TwinOpModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kTrace,
    kOp,
    kClass,
    kRealStart,
    kSimStart,
    kStartShift,
    kRealDuration,
    kSimDuration,
    kDurationChange,
    kColumnCount
  };

  explicit TwinOpModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  struct Overlay {
    QString title;
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const OpTwins> twins;
  };
  void set_overlays(std::vector<Overlay> overlays);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    std::size_t overlay = 0;
    TwinTiming timing;
  };
  QVariant value(const Row& r, int column) const;

  std::vector<Overlay> overlays_;
  std::vector<Row> rows_;
};

}  // namespace opsim::gui
