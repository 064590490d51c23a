#include "gui/collective_form.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

namespace opsim::gui {

CollectiveForm::CollectiveForm(QWidget* parent) : QGroupBox(tr("Collective"), parent) {
  auto* form = new QFormLayout(this);
  op_ = new QComboBox(this);
  op_->addItems(collective_ops());
  op_->setToolTip(tr("The op to time (--op)"));
  form->addRow(tr("Op"), op_);
  auto* grid = new QGridLayout;
  const QStringList names = collective_algorithms();
  for (int i = 0; i < names.size(); ++i) {
    auto* cb = new QCheckBox(names[i], this);
    algorithms_.push_back(cb);
    grid->addWidget(cb, i / 2, i % 2);
    connect(cb, &QCheckBox::toggled, this, &CollectiveForm::edited);
  }
  form->addRow(tr("Algorithms"), grid);
  protocol_ = new QComboBox(this);
  protocol_->addItems(collective_protocols());
  protocol_->setToolTip(tr("NCCL protocol; auto: NCCL's tuner by size; wire: the links alone"));
  form->addRow(tr("Protocol"), protocol_);
  sizes_ = new QLineEdit(this);
  sizes_->setToolTip(tr("Bytes per rank: one size (160MB) or MIN:MAX doubling (1KB:1GB)"));
  form->addRow(tr("Size"), sizes_);
  gpus_ = new QSpinBox(this);
  gpus_->setRange(0, 1048576);
  gpus_->setSpecialValueText(tr("all"));
  gpus_->setToolTip(tr("Use the first N GPUs of the topology (all: every GPU)"));
  form->addRow(tr("GPUs"), gpus_);
  gpus_per_thread_ = new QSpinBox(this);
  gpus_per_thread_->setRange(1, 1048576);
  gpus_per_thread_->setToolTip(
      tr("nccl-tests' -g: GPUs one host thread launches kernels for, in turn; an iteration "
         "then takes at least that many launches"));
  form->addRow(tr("GPUs per thread"), gpus_per_thread_);
  gpus_per_server_ = new QSpinBox(this);
  gpus_per_server_->setRange(0, 1048576);
  gpus_per_server_->setSpecialValueText(tr("all"));
  gpus_per_server_->setToolTip(
      tr("Use the first G GPUs of every server, a job of G ranks per node (all: every GPU)"));
  form->addRow(tr("GPUs per server"), gpus_per_server_);
  connect(op_, &QComboBox::currentTextChanged, this, [this] {
    offer_algorithms_of_op();
    emit edited();
  });
  connect(protocol_, &QComboBox::currentTextChanged, this, &CollectiveForm::edited);
  connect(gpus_, &QSpinBox::valueChanged, this, &CollectiveForm::edited);
  connect(gpus_per_thread_, &QSpinBox::valueChanged, this, &CollectiveForm::edited);
  connect(gpus_per_server_, &QSpinBox::valueChanged, this, &CollectiveForm::edited);
  connect(sizes_, &QLineEdit::textEdited, this, &CollectiveForm::typed);
  set_collective(CollectiveScenario{});
}

// Hides the algorithms the op has not; keeps one checked so the op can run at once.
void CollectiveForm::offer_algorithms_of_op() {
  const QStringList offered = algorithms_for(op_->currentText());
  bool any_checked = false;
  for (QCheckBox* cb : algorithms_) {
    cb->setHidden(!offered.contains(cb->text()));
    any_checked = any_checked || (!cb->isHidden() && cb->isChecked());
  }
  if (any_checked || offered.isEmpty()) return;
  for (QCheckBox* cb : algorithms_) {
    if (cb->text() != offered.first()) continue;
    const QSignalBlocker quiet(cb);  // the op change itself re-simulates
    cb->setChecked(true);
  }
}

QStringList CollectiveForm::offered_algorithms() const {
  QStringList offered;
  for (const QCheckBox* cb : algorithms_) {
    if (!cb->isHidden()) offered << cb->text();
  }
  return offered;
}

CollectiveScenario CollectiveForm::collective() const {
  CollectiveScenario c;
  c.op = op_->currentText();
  c.algorithms.clear();
  for (const QCheckBox* cb : algorithms_) {
    if (!cb->isHidden() && cb->isChecked()) c.algorithms << cb->text();
  }
  c.protocol = protocol_->currentText();
  c.sizes = sizes_->text().trimmed();
  c.gpus = gpus_->value();
  c.gpus_per_thread = gpus_per_thread_->value();
  c.gpus_per_server = gpus_per_server_->value();
  return c;
}

void CollectiveForm::set_collective(const CollectiveScenario& c) {
  const QSignalBlocker quiet_op(op_);
  op_->setCurrentText(c.op);
  for (QCheckBox* cb : algorithms_) {
    const QSignalBlocker quiet(cb);
    cb->setChecked(c.algorithms.contains(cb->text()));
  }
  offer_algorithms_of_op();
  const QSignalBlocker quiet_protocol(protocol_);
  protocol_->setCurrentText(c.protocol);
  sizes_->setText(c.sizes);
  const QSignalBlocker quiet_gpus(gpus_);
  gpus_->setValue(c.gpus);
  const QSignalBlocker quiet_gpus_per_thread(gpus_per_thread_);
  gpus_per_thread_->setValue(c.gpus_per_thread);
  const QSignalBlocker quiet_gpus_per_server(gpus_per_server_);
  gpus_per_server_->setValue(c.gpus_per_server);
}

}  // namespace opsim::gui
