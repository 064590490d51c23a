#include "gui/scenario_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include "gui/collective_form.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim::gui {

ScenarioPanel::ScenarioPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(8, 8, 8, 8);
  outer->addWidget(build_machine_box());
  outer->addWidget(build_strategies_box());
  collective_ = new CollectiveForm(this);
  outer->addWidget(collective_);
  outer->addWidget(build_what_if_box());
  auto* hint = new QLabel(tr("Every edit re-simulates in the background."), this);
  hint->setWordWrap(true);
  hint->setStyleSheet(QStringLiteral("color: #57606a;"));
  outer->addWidget(hint);
  outer->addStretch(1);
  typing_pause_ = new QTimer(this);
  typing_pause_->setSingleShot(true);
  typing_pause_->setInterval(kTypingPauseMs);
  connect(typing_pause_, &QTimer::timeout, this, [this] { emit scenario_changed(scenario()); });
  connect_edits();
  set_scenario(Scenario{});
}

// What runs, on which machine, and the strategies' workload (hidden for a collective).
QGroupBox* ScenarioPanel::build_machine_box() {
  auto* machine = new QGroupBox(tr("Machine and workload"), this);
  machine_form_ = new QFormLayout(machine);
  kind_ = new QComboBox(machine);
  kind_->addItem(tr("strategies (compare)"));
  kind_->addItem(tr("a collective (collective)"));
  kind_->setToolTip(
      tr("Strategies side by side (opsim compare), or one collective op timed "
         "per algorithm (opsim collective)"));
  machine_form_->addRow(tr("Run"), kind_);
  machine_form_->addRow(tr("Topology"), build_topology_row(machine));
  bytes_ = new QLineEdit(machine);
  bytes_->setToolTip(tr("Gradient size, e.g. 160MB, 1GiB"));
  machine_form_->addRow(tr("Gradient"), bytes_);
  gpus_ = new QSpinBox(machine);
  gpus_->setRange(1, 4096);
  machine_form_->addRow(tr("GPUs"), gpus_);
  comm_only_ = new QCheckBox(tr("communication only"), machine);
  comm_only_->setToolTip(tr("Leave out the reductions' compute (the book's arithmetic)"));
  machine_form_->addRow(QString(), comm_only_);
  return machine;
}

// The presets and families to pick or type over, and a button to browse for a file.
QHBoxLayout* ScenarioPanel::build_topology_row(QWidget* parent) {
  topology_ = new QComboBox(parent);
  topology_->setEditable(true);
  for (const TopologyInfo& t : list_topologies()) {
    topology_->addItem(QString::fromStdString(t.family ? t.example : t.name));
    topology_->setItemData(topology_->count() - 1, QString::fromStdString(t.description),
                           Qt::ToolTipRole);
  }
  topology_->setToolTip(tr("A preset name, or a topology file (Browse…)"));
  browse_ = new QPushButton(tr("…"), parent);
  browse_->setFixedWidth(28);
  browse_->setToolTip(tr("Choose a topology file"));
  auto* row = new QHBoxLayout;
  row->addWidget(topology_, 1);
  row->addWidget(browse_);
  return row;
}

QGroupBox* ScenarioPanel::build_strategies_box() {
  strategies_box_ = new QGroupBox(tr("Strategies to compare"), this);
  auto* grid = new QGridLayout(strategies_box_);
  const QStringList names = known_strategies();
  for (int i = 0; i < names.size(); ++i) {
    auto* cb = new QCheckBox(names[i], strategies_box_);
    strategies_.push_back(cb);
    grid->addWidget(cb, i / 2, i % 2);
  }
  return strategies_box_;
}

QGroupBox* ScenarioPanel::build_what_if_box() {
  auto* whatif = new QGroupBox(tr("What if"), this);
  auto* wform = new QFormLayout(whatif);
  bandwidth_scale_ = new QDoubleSpinBox(whatif);
  bandwidth_scale_->setRange(0.01, 100);
  bandwidth_scale_->setDecimals(2);
  bandwidth_scale_->setSingleStep(0.25);
  bandwidth_scale_->setSuffix(QStringLiteral(" ×"));
  bandwidth_scale_->setToolTip(tr("Every link's bandwidth times this (--link-bandwidth-scale)"));
  wform->addRow(tr("Link bandwidth"), bandwidth_scale_);
  overrides_ = new QPlainTextEdit(whatif);
  overrides_->setPlaceholderText(
      QStringLiteral("gpu0-sw0.bandwidth=8GB/s\ngpu1.fp32_peak=7TFLOPS"));
  overrides_->setToolTip(tr("One DEVICE_OR_LINK.FIELD=VALUE per line (--set)"));
  overrides_->setMaximumHeight(70);
  wform->addRow(tr("Overrides"), overrides_);
  return whatif;
}

// Discrete edits re-simulate at once, typing after a pause.
void ScenarioPanel::connect_edits() {
  connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
    show_fields_of_kind();
    edited();
  });
  connect(topology_, &QComboBox::currentTextChanged, this, &ScenarioPanel::typed);
  connect(topology_, &QComboBox::activated, this, &ScenarioPanel::edited);
  connect(bytes_, &QLineEdit::textEdited, this, &ScenarioPanel::typed);
  connect(gpus_, &QSpinBox::valueChanged, this, &ScenarioPanel::edited);
  connect(comm_only_, &QCheckBox::toggled, this, &ScenarioPanel::edited);
  for (QCheckBox* cb : strategies_) connect(cb, &QCheckBox::toggled, this, &ScenarioPanel::edited);
  connect(collective_, &CollectiveForm::edited, this, &ScenarioPanel::edited);
  connect(collective_, &CollectiveForm::typed, this, &ScenarioPanel::typed);
  connect(bandwidth_scale_, &QDoubleSpinBox::valueChanged, this, &ScenarioPanel::edited);
  connect(overrides_, &QPlainTextEdit::textChanged, this, &ScenarioPanel::typed);
  connect(browse_, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Topology file"), QString(), tr("Topology (*.yaml *.yml *.json);;All files (*)"));
    if (!file.isEmpty()) topology_->setCurrentText(file);
  });
}

Scenario ScenarioPanel::scenario() const {
  Scenario s;
  s.kind = kind_->currentIndex() == 1 ? ScenarioKind::kCollective : ScenarioKind::kStrategies;
  s.collective = collective_->collective();
  s.topology = topology_->currentText().trimmed();
  s.gradient_bytes = bytes_->text().trimmed();
  s.gpus = gpus_->value();
  s.comm_only = comm_only_->isChecked();
  s.strategies.clear();
  for (QCheckBox* cb : strategies_) {
    if (cb->isChecked()) s.strategies << cb->text();
  }
  s.link_bandwidth_scale = bandwidth_scale_->value();
  s.overrides = overrides_->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  return s;
}

void ScenarioPanel::set_scenario(const Scenario& s) {
  loading_ = true;
  kind_->setCurrentIndex(s.kind == ScenarioKind::kCollective ? 1 : 0);
  show_fields_of_kind();
  collective_->set_collective(s.collective);
  topology_->setCurrentText(s.topology);
  bytes_->setText(s.gradient_bytes);
  gpus_->setValue(s.gpus);
  comm_only_->setChecked(s.comm_only);
  for (QCheckBox* cb : strategies_) cb->setChecked(s.strategies.contains(cb->text()));
  bandwidth_scale_->setValue(s.link_bandwidth_scale);
  overrides_->setPlainText(s.overrides.join(QLatin1Char('\n')));
  loading_ = false;
}

void ScenarioPanel::show_fields_of_kind() {
  const bool collective = kind_->currentIndex() == 1;
  machine_form_->setRowVisible(bytes_, !collective);
  machine_form_->setRowVisible(gpus_, !collective);
  machine_form_->setRowVisible(comm_only_, !collective);
  strategies_box_->setHidden(collective);
  collective_->setHidden(!collective);
}

void ScenarioPanel::edited() {
  if (loading_) return;
  typing_pause_->stop();
  emit scenario_changed(scenario());
}

void ScenarioPanel::typed() {
  if (!loading_) typing_pause_->start();
}

}  // namespace opsim::gui
