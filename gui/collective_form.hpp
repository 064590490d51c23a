// The collective part of the scenario panel: op, the algorithms to time (only those the CLI
// accepts for the op are offered), protocol, size per rank and GPUs.
#pragma once

#include <QGroupBox>
#include <vector>

#include "gui/collective_scenario.hpp"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace opsim::gui {

class CollectiveForm : public QGroupBox {
  Q_OBJECT
 public:
  explicit CollectiveForm(QWidget* parent = nullptr);

  /// The checked algorithms among those offered for the op.
  CollectiveScenario collective() const;
  /// Shows `collective`; algorithms that do not apply to its op are left out.
  void set_collective(const CollectiveScenario& collective);
  /// The algorithms the form offers now (those of algorithms_for(op)), in order.
  QStringList offered_algorithms() const;

 signals:
  void edited();  ///< a discrete edit (op, algorithm, protocol, GPUs, GPUs per thread)
  void typed();   ///< a keystroke in the size field

 private:
  void offer_algorithms_of_op();

  QComboBox* op_;
  std::vector<QCheckBox*> algorithms_;
  QComboBox* protocol_;
  QLineEdit* sizes_;
  QSpinBox* gpus_;
  QSpinBox* gpus_per_thread_;
  QSpinBox* gpus_per_server_;
};

}  // namespace opsim::gui
