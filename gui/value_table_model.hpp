// A table model whose cells have a raw value (Qt::UserRole: numbers for a sort proxy to order
// by) and a text (Qt::DisplayRole and Qt::ToolTipRole): the subclass says how many rows there
// are, each cell's value and text, and which columns read left-aligned (the rest, numbers,
// right-aligned). The real-vs-simulated and per-step error tables are such models.
#pragma once

#include <QAbstractTableModel>

namespace opsim::gui {

class ValueTableModel : public QAbstractTableModel {
 public:
  ValueTableModel(int column_count, QObject* parent)
      : QAbstractTableModel(parent), column_count_(column_count) {}

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  virtual int row_count() const = 0;
  /// The raw value of a cell (row and column in range).
  virtual QVariant value(int row, int column) const = 0;
  /// Its text; by default the value as it is.
  virtual QVariant text(int row, int column) const { return value(row, column); }
  virtual bool left_aligned(int column) const = 0;

 private:
  int column_count_;
};

}  // namespace opsim::gui
