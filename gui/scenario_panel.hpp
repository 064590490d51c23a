// The scenario form: topology, gradient size, GPUs, comm-only, strategies and what-if
// parameters. Emits scenario_changed (debounced) on every edit so the window re-simulates.
#pragma once

#include <QWidget>

#include "gui/scenario.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QTimer;

namespace opsim::gui {

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioPanel(QWidget* parent = nullptr);

  Scenario scenario() const;
  void set_scenario(const Scenario& scenario);

 signals:
  /// Fired 400 ms after the last edit.
  void scenario_changed(const opsim::gui::Scenario& scenario);

 private:
  void edited();

  QComboBox* topology_;
  QLineEdit* bytes_;
  QSpinBox* gpus_;
  QCheckBox* comm_only_;
  std::vector<QCheckBox*> strategies_;
  QDoubleSpinBox* bandwidth_scale_;
  QPlainTextEdit* overrides_;
  QTimer* debounce_;
  bool loading_ = false;
};

}  // namespace opsim::gui
