#include "gui/value_table_model.hpp"

namespace opsim::gui {

int ValueTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : row_count();
}

int ValueTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : column_count_;
}

QVariant ValueTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const int column = index.column();
  if (role == Qt::TextAlignmentRole)
    return left_aligned(column) ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::UserRole) return value(index.row(), column);
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) return text(index.row(), column);
  return {};
}

}  // namespace opsim::gui
