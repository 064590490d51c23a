// The scenario form: what to run (strategies side by side, or one collective op per
// algorithm), topology, the strategies' gradient size, GPUs, comm-only and strategies or the
// collective's op, algorithms, protocol, size and GPUs, and what-if parameters. Emits
// scenario_changed on every edit so the window re-simulates: at once for spin boxes, check boxes
// and picks from the list, after a pause in typing for free text.
#pragma once

#include <QWidget>

#include "gui/scenario.hpp"

class QCheckBox;
class QFormLayout;
class QGroupBox;
class QHBoxLayout;
class QPushButton;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QTimer;

namespace opsim::gui {

class CollectiveForm;

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioPanel(QWidget* parent = nullptr);

  Scenario scenario() const;
  void set_scenario(const Scenario& scenario);
  CollectiveForm* collective_form() const { return collective_; }

 signals:
  /// Fired at once for discrete edits, kTypingPauseMs after the last keystroke in a text field.
  void scenario_changed(const opsim::gui::Scenario& scenario);

 public:
  static constexpr int kTypingPauseMs = 300;

 private:
  void edited();  ///< a discrete edit: re-simulate now
  void typed();   ///< a keystroke: re-simulate when typing pauses
  /// Shows the strategies' fields or the collective's, as the kind picked says.
  void show_fields_of_kind();
  // The parts of the form, in order, and the edits that re-simulate.
  QGroupBox* build_machine_box();
  QHBoxLayout* build_topology_row(QWidget* parent);
  QGroupBox* build_strategies_box();
  QGroupBox* build_what_if_box();
  void connect_edits();

  QComboBox* kind_;
  QComboBox* topology_;
  QPushButton* browse_;
  QFormLayout* machine_form_;
  QLineEdit* bytes_;
  QSpinBox* gpus_;
  QCheckBox* comm_only_;
  std::vector<QCheckBox*> strategies_;
  QGroupBox* strategies_box_;
  CollectiveForm* collective_;
  QDoubleSpinBox* bandwidth_scale_;
  QPlainTextEdit* overrides_;
  QTimer* typing_pause_;
  bool loading_ = false;
};

}  // namespace opsim::gui
