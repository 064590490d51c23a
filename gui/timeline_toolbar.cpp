#include "gui/timeline_toolbar.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <set>

#include "gui/timeline_painter.hpp"
#include "gui/timeline_view.hpp"

namespace opsim::gui {

namespace {

QString swatch(const QColor& color, const QString& name) {
  return QStringLiteral(
             "<span style='background-color:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2"
             "&nbsp;&nbsp; ")
      .arg(color.name(QColor::HexArgb).replace(QStringLiteral("#ff"), QStringLiteral("#")),
           name.toHtmlEscaped());
}

}  // namespace

QString legend_html(const std::vector<Pane>& panes, bool baseline) {
  std::vector<std::string> classes;
  std::set<std::string> seen;
  for (const Pane& p : panes) {
    for (const TraceOp& op : p.model->trace().ops) {
      if (seen.insert(op.op_class).second) classes.push_back(op.op_class);
    }
  }
  QString html;
  for (const std::string& c : classes)
    html += swatch(color_for_op_class(c), QString::fromStdString(c));
  if (!classes.empty()) {
    html += QStringLiteral("<span style='color:#ff8c00'>▭</span>&nbsp;critical path&nbsp;&nbsp; ");
  }
  if (baseline) html += swatch(QColor(0xb8, 0xbd, 0xc4), QStringLiteral("before the edit (strip)"));
  return html;
}

TimelineToolbar::TimelineToolbar(TraceSet* traces, ViewState* state, WhatIfState* what_if,
                                 TimelineView* view, QWidget* parent)
    : QWidget(parent), traces_(traces), state_(state), what_if_(what_if) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(6, 3, 6, 3);
  filter_ = new QLineEdit(this);
  filter_->setObjectName(QStringLiteral("lane_filter"));
  filter_->setPlaceholderText(tr("Filter lanes: device, lane or op name"));
  filter_->setClearButtonEnabled(true);
  filter_->setMinimumWidth(270);
  connect(filter_, &QLineEdit::textChanged, this,
          [this](const QString& text) { state_->set_filter(text.trimmed().toStdString()); });
  row->addWidget(filter_);
  auto* collapse = new QPushButton(tr("Collapse all"), this);
  collapse->setToolTip(tr("Each server, the links and the disks to one busy bar"));
  auto* per_device = new QPushButton(tr("One row per device"), this);
  per_device->setToolTip(tr("Each device (and each server's links) to one busy bar"));
  auto* expand = new QPushButton(tr("Expand all"), this);
  connect(collapse, &QPushButton::clicked, this, [this] { collapse_all(RowKind::kGroup); });
  connect(per_device, &QPushButton::clicked, this, [this] { collapse_all(RowKind::kSubgroup); });
  connect(expand, &QPushButton::clicked, this, [this] { state_->set_collapsed({}); });
  row->addWidget(collapse);
  row->addWidget(per_device);
  row->addWidget(expand);
  auto* counters = new QCheckBox(tr("Counters"), this);
  counters->setToolTip(tr("Memory per device and link utilization tracks"));
  counters->setChecked(state_->rows().show_counters);
  connect(counters, &QCheckBox::toggled, state_, &ViewState::set_show_counters);
  row->addWidget(counters);
  auto* zoom = new QPushButton(tr("Zoom to selection"), this);
  zoom->setToolTip(tr("Fit the selected time range, or the selected op (Z)"));
  connect(zoom, &QPushButton::clicked, view, &TimelineView::zoom_to_selection);
  row->addWidget(zoom);
  drop_baseline_ = new QPushButton(tr("Drop baseline"), this);
  drop_baseline_->setObjectName(QStringLiteral("drop_baseline"));
  drop_baseline_->setToolTip(
      tr("Forget the run from before the what-if edits; the next edit keeps a new one"));
  connect(drop_baseline_, &QPushButton::clicked, what_if_, &WhatIfState::drop_baseline);
  row->addWidget(drop_baseline_);
  legend_ = new QLabel(this);
  legend_->setObjectName(QStringLiteral("legend"));
  legend_->setTextFormat(Qt::RichText);
  row->addWidget(legend_, 1);
  connect(traces_, &TraceSet::changed, this, &TimelineToolbar::update_legend);
  connect(what_if_, &WhatIfState::changed, this, &TimelineToolbar::update_legend);
  update_legend();
}

void TimelineToolbar::update_legend() {
  legend_->setText(legend_html(traces_->panes(), what_if_->has_baseline()));
  drop_baseline_->setEnabled(what_if_->has_baseline());
}

// Every header of `kind` in every pane: the top-level groups (servers, Links, Disks) or the
// devices and per-server link groups under them.
void TimelineToolbar::collapse_all(RowKind kind) {
  std::set<std::string> keys;
  for (const Pane& p : traces_->panes()) {
    for (const TimelineRow& r : p.model->rows()) {
      if (r.kind == kind) keys.insert(r.key);
    }
  }
  state_->set_collapsed(std::move(keys));
}

}  // namespace opsim::gui
