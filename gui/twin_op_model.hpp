// The real-vs-simulated table op by op of the overlays shown: one row per pair of twins
// (gui/op_twins.hpp) with the op, its class, when and how long it ran real and simulated, and
// the differences (simulated minus real). Qt::DisplayRole gives formatted text, Qt::UserRole
// the raw number (seconds) so that a sort proxy orders rows by value.
#pragma once

#include <memory>
#include <vector>

#include "engine/trace.hpp"
#include "gui/op_twins.hpp"
#include "gui/value_table_model.hpp"

namespace opsim::gui {

class TwinOpModel : public ValueTableModel {
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

  explicit TwinOpModel(QObject* parent = nullptr) : ValueTableModel(kColumnCount, parent) {}

  struct Overlay {
    QString title;
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const OpTwins> twins;
  };
  void set_overlays(std::vector<Overlay> overlays);

  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    std::size_t overlay = 0;
    TwinTiming timing;
  };
  int row_count() const override { return static_cast<int>(rows_.size()); }
  QVariant value(int row, int column) const override;
  QVariant text(int row, int column) const override;
  bool left_aligned(int column) const override { return column <= kClass; }

  std::vector<Overlay> overlays_;
  std::vector<Row> rows_;
};

}  // namespace opsim::gui
