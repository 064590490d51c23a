// The scenario form: topology, gradient size, GPUs, comm-only, strategies and what-if
// parameters. Emits scenario_changed on every edit so the window re-simulates: at once for
// spin boxes, check boxes and picks from the list, after a pause in typing for free text.
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
  /// Fired at once for discrete edits, kTypingPauseMs after the last keystroke in a text field.
  void scenario_changed(const opsim::gui::Scenario& scenario);

 public:
  static constexpr int kTypingPauseMs = 300;

 private:
  void edited();  ///< a discrete edit: re-simulate now
  void typed();   ///< a keystroke: re-simulate when typing pauses

  QComboBox* topology_;
  QLineEdit* bytes_;
  QSpinBox* gpus_;
  QCheckBox* comm_only_;
  std::vector<QCheckBox*> strategies_;
  QDoubleSpinBox* bandwidth_scale_;
  QPlainTextEdit* overrides_;
  QTimer* typing_pause_;
  bool loading_ = false;
};

}  // namespace opsim::gui
