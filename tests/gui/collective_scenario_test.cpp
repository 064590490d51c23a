// Collective scenarios without a window: the command line per op and algorithm (checked
// against the real CLI's own rule), the summary rows read from its JSON, the panel offering
// only the algorithms an op has, and the scenario options of opsim-gui's command line.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QProcess>

#include "common/input_error.hpp"
#include "gui/collective_form.hpp"
#include "gui/collective_summary.hpp"
#include "gui/scenario.hpp"
#include "gui/scenario_options.hpp"
#include "gui/scenario_panel.hpp"

namespace opsim::gui {
namespace {

std::string joined(const QStringList& list) {
  return list.join(QLatin1Char(',')).toStdString();
}

Scenario collective_scenario(const QString& op, const QStringList& algorithms) {
  Scenario s;
  s.kind = ScenarioKind::kCollective;
  s.topology = QStringLiteral("dgx1-v100");
  s.collective.op = op;
  s.collective.algorithms = algorithms;
  return s;
}

TEST(CollectiveScenario, EveryOpAndAlgorithmBecomesItsCommandLine) {
  for (const QString& op : collective_ops()) {
    for (const QString& algorithm : algorithms_for(op)) {
      const Scenario s = collective_scenario(op, {algorithm});
      EXPECT_EQ(run_arguments(s, QStringLiteral("/tmp/t")),
                QStringList({"collective", "--op", op, "--topology", "dgx1-v100", "--sizes",
                             "160MB", "--algorithm", algorithm, "--protocol", "auto", "--format",
                             "json", "--trace-dir", "/tmp/t"}))
          << op.toStdString() << " " << algorithm.toStdString();
    }
  }
}

TEST(CollectiveScenario, GpusProtocolAndWhatIfEditsAreAppended) {
  Scenario s = collective_scenario(QStringLiteral("allreduce"), {"ring", "tree", "auto"});
  s.collective.protocol = QStringLiteral("LL128");
  s.collective.sizes = QStringLiteral("1KB:1MB");
  s.collective.gpus = 4;
  s.collective.gpus_per_thread = 4;
  s.link_bandwidth_scale = 0.5;
  s.overrides = {" gpu0-gpu1.bandwidth=10GB/s ", ""};
  EXPECT_EQ(run_arguments(s, QStringLiteral("d")), QStringList({"collective",
                                                                "--op",
                                                                "allreduce",
                                                                "--topology",
                                                                "dgx1-v100",
                                                                "--sizes",
                                                                "1KB:1MB",
                                                                "--algorithm",
                                                                "ring,tree,auto",
                                                                "--protocol",
                                                                "LL128",
                                                                "--gpus",
                                                                "4",
                                                                "--gpus-per-thread",
                                                                "4",
                                                                "--link-bandwidth-scale",
                                                                "0.5",
                                                                "--set",
                                                                "gpu0-gpu1.bandwidth=10GB/s",
                                                                "--format",
                                                                "json",
                                                                "--trace-dir",
                                                                "d"}));
  // The strategies' command line is unchanged by the collective fields.
  s.kind = ScenarioKind::kStrategies;
  EXPECT_EQ(run_arguments(s, QStringLiteral("d")), compare_arguments(s, QStringLiteral("d")));
  EXPECT_EQ(run_arguments(s, QStringLiteral("d")).first(), "compare");
}

TEST(CollectiveScenario, OnlyAllreduceHasTreeAndHierarchical) {
  EXPECT_EQ(algorithms_for("allreduce"),
            QStringList({"ring", "tree", "nvls", "nvls_tree", "hierarchical", "auto"}));
  for (const char* op : {"reduce_scatter", "all_gather"})
    EXPECT_EQ(algorithms_for(op), QStringList({"ring", "nvls", "auto"})) << op;
  for (const char* op : {"broadcast", "reduce"})
    EXPECT_EQ(algorithms_for(op), QStringList({"ring", "auto"})) << op;
  for (const char* op : {"all_to_all", "sendrecv"})
    EXPECT_EQ(algorithms_for(op), QStringList({"direct", "auto"})) << op;
  EXPECT_TRUE(algorithms_for("gather").isEmpty());
}

// The GUI's rule is the CLI's: every combination the panel offers is accepted as applying,
// every other one is refused with "does not apply" (a topology may still refuse one, e.g.
// nvls without in-switch reduction: that is not this rule).
TEST(CollectiveScenario, TheRuleMatchesTheCli) {
  const QString cli = QStringLiteral(OPSIM_BINARY_DIR "/bin/opsim");
  ASSERT_TRUE(QFileInfo(cli).isExecutable()) << cli.toStdString();
  for (const QString& op : collective_ops()) {
    for (const QString& algorithm : collective_algorithms()) {
      QProcess p;
      p.start(cli, {"collective", "--op", op, "--topology", "ib-cluster:2x2@400", "--sizes", "1KB",
                    "--algorithm", algorithm, "--format", "json"});
      ASSERT_TRUE(p.waitForFinished(60000));
      const QString err = QString::fromUtf8(p.readAllStandardError());
      const bool refused_as_not_applying = err.contains("does not apply");
      EXPECT_EQ(refused_as_not_applying, !algorithms_for(op).contains(algorithm))
          << op.toStdString() << " " << algorithm.toStdString() << ": " << err.toStdString();
      if (refused_as_not_applying) {
        EXPECT_EQ(p.exitCode(), 2);
      }
    }
  }
}

constexpr const char* kCliJson = R"({"gpus": 8, "op": "allreduce", "results": [
  {"algbw_GBps": 66.96426703005943, "algorithm": "ring", "busbw_GBps": 117.18746730260399,
   "bytes": 160000000.0, "chosen_algorithm": "ring", "protocol": "Simple",
   "time_s": 0.002389334},
  {"algbw_GBps": 66.96426703005943, "algorithm": "auto", "busbw_GBps": 117.18746730260399,
   "bytes": 160000000.0, "chosen_algorithm": "ring", "protocol": "Simple",
   "time_s": 0.002389334}], "topology": "dgx1-v100"})";

TEST(CollectiveSummary, OneRowPerAlgorithmWithWhatRanAndItsTraceFile) {
  const CompareOutput out = parse_collective_json(kCliJson);
  EXPECT_EQ(out.op, "allreduce");
  EXPECT_EQ(out.topology, "dgx1-v100");
  EXPECT_EQ(out.bytes, 160e6);
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0].name, "allreduce ring");
  EXPECT_EQ(out.rows[1].name, "allreduce auto");
  EXPECT_DOUBLE_EQ(out.rows[1].makespan_s, 0.002389334);
  EXPECT_DOUBLE_EQ(out.rows[1].algbw_GBps, 66.96426703005943);
  EXPECT_DOUBLE_EQ(out.rows[1].busbw_GBps, 117.18746730260399);
  EXPECT_EQ(out.rows[1].chosen, "ring · Simple");
  EXPECT_EQ(out.rows[1].trace_file, "allreduce-auto-160000000.json");
  EXPECT_TRUE(std::isnan(out.rows[1].lower_bound_s));
}

TEST(CollectiveSummary, SeveralSizesAreNamedBySize) {
  const CompareOutput out = parse_collective_json(
      R"({"op":"broadcast","results":[{"algorithm":"ring","bytes":1024,"time_s":1e-5},
          {"algorithm":"ring","bytes":2048,"time_s":2e-5}]})");
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0].name, "broadcast ring 1.024 kB");
  EXPECT_EQ(out.rows[1].trace_file, "broadcast-ring-2048.json");
  EXPECT_EQ(out.rows[0].chosen, "");
}

TEST(CollectiveSummary, AnotherShapeIsOneLine) {
  auto message = [](const char* text) {
    try {
      parse_collective_json(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(R"({"op":"allreduce"})"), "collective output: no \"results\" array");
  EXPECT_EQ(message(R"({"results":[]})"), "collective output: no \"op\"");
  EXPECT_EQ(message(R"({"op":"x","results":[{"algorithm":"ring","time_s":"fast"}]})"),
            "collective output: \"time_s\" is not a number");
  EXPECT_EQ(message(R"({"op":"x","results":[{"time_s":1}]})"),
            "collective output: no \"algorithm\"");
}

TEST(CollectiveForm, OffersOnlyTheAlgorithmsOfTheOp) {
  CollectiveForm form;
  auto* op = form.findChild<QComboBox*>();
  ASSERT_NE(op, nullptr);
  ASSERT_EQ(op->count(), 7);
  for (int i = 0; i < op->count(); ++i) {
    op->setCurrentIndex(i);
    EXPECT_EQ(joined(form.offered_algorithms()), joined(algorithms_for(op->currentText())))
        << op->currentText().toStdString();
    for (const QString& a : form.collective().algorithms)
      EXPECT_TRUE(algorithms_for(op->currentText()).contains(a)) << a.toStdString();
  }
}

TEST(CollectiveForm, ChangingTheOpKeepsWhatStillAppliesElseTheFirstAlgorithm) {
  CollectiveForm form;
  CollectiveScenario c;
  c.algorithms = {"tree", "nvls", "auto"};
  form.set_collective(c);
  EXPECT_EQ(joined(form.collective().algorithms), "tree,nvls,auto");
  auto* op = form.findChild<QComboBox*>();
  op->setCurrentText("broadcast");
  EXPECT_EQ(joined(form.collective().algorithms), "auto");
  c.op = "sendrecv";
  c.algorithms = {"tree"};
  form.set_collective(c);
  EXPECT_EQ(joined(form.collective().algorithms), "direct");
}

TEST(ScenarioPanel, RoundTripsACollectiveScenarioAndShowsOnlyItsFields) {
  ScenarioPanel panel;
  panel.show();
  Scenario s = collective_scenario("all_to_all", {"direct", "auto"});
  s.collective.protocol = "LL";
  s.collective.sizes = "1MB";
  s.collective.gpus = 4;
  s.collective.gpus_per_thread = 8;
  s.link_bandwidth_scale = 0.5;
  panel.set_scenario(s);
  EXPECT_EQ(panel.scenario(), s);
  EXPECT_TRUE(panel.collective_form()->isVisible());
  panel.set_scenario(Scenario{});
  EXPECT_EQ(panel.scenario(), Scenario{});
  EXPECT_FALSE(panel.collective_form()->isVisible());
}

Scenario from_command_line(const QStringList& args) {
  QCommandLineParser parser;
  add_scenario_options(parser);
  EXPECT_TRUE(parser.parse(QStringList{"opsim-gui"} + args)) << parser.errorText().toStdString();
  return scenario_from_options(parser);
}

std::string refusal(const QStringList& args) {
  try {
    from_command_line(args);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ScenarioOptions, ACollectiveFromTheCommandLine) {
  const Scenario s = from_command_line(
      {"--collective", "allreduce", "--algorithm", "ring,tree", "--topology", "dgx1-v100"});
  EXPECT_EQ(s, collective_scenario("allreduce", {"ring", "tree"}));
  const Scenario b = from_command_line({"--collective", "broadcast", "--protocol", "LL", "--sizes",
                                        "1KB:1MB", "--gpus", "4", "--gpus-per-thread", "4"});
  EXPECT_EQ(b.collective.algorithms, QStringList({"ring"}));
  EXPECT_EQ(b.collective.protocol, "LL");
  EXPECT_EQ(b.collective.sizes, "1KB:1MB");
  EXPECT_EQ(b.collective.gpus, 4);
  EXPECT_EQ(b.collective.gpus_per_thread, 4);
  EXPECT_EQ(b.collective.gpus_per_server, 0);  // all of them
  const Scenario per_server = from_command_line(
      {"--collective", "sendrecv", "--topology", "ib-cluster:10x8", "--gpus-per-server", "2"});
  EXPECT_EQ(per_server.collective.gpus_per_server, 2);
  EXPECT_TRUE(run_arguments(per_server, QStringLiteral("d"))
                  .join(QLatin1Char(' '))
                  .contains(QStringLiteral("--gpus-per-server 2")));
  EXPECT_EQ(from_command_line({}), Scenario{});
  EXPECT_EQ(from_command_line({"--gpus", "2"}).gpus, 2);
}

TEST(ScenarioOptions, WhatTheCollectiveCannotDoIsOneLine) {
  EXPECT_EQ(refusal({"--collective", "gather"}),
            "--collective gather: not one of allreduce, reduce_scatter, all_gather, broadcast, "
            "reduce, all_to_all, sendrecv");
  EXPECT_EQ(refusal({"--collective", "broadcast", "--algorithm", "ring,nvls"}),
            "--algorithm nvls: does not apply to broadcast (ring, auto)");
  EXPECT_EQ(refusal({"--collective", "reduce", "--protocol", "ll"}),
            "--protocol ll: not one of auto, LL, LL128, Simple, wire");
  EXPECT_EQ(refusal({"--collective", "reduce", "--gpus", "-1"}),
            "--gpus -1: not a whole number >= 0");
  EXPECT_EQ(refusal({"--algorithm", "ring"}), "--algorithm ring: needs --collective");
  EXPECT_EQ(refusal({"--gpus", "0"}), "--gpus 0: must be >= 1");
  EXPECT_EQ(refusal({"--collective", "reduce", "--gpus-per-thread", "0"}),
            "--gpus-per-thread 0: not a whole number from 1 to 1048576");
  EXPECT_EQ(refusal({"--gpus-per-thread", "8"}), "--gpus-per-thread 8: needs --collective");
  EXPECT_EQ(refusal({"--collective", "sendrecv", "--gpus-per-server", "0"}),
            "--gpus-per-server 0: not a whole number from 1 to 1048576");
  EXPECT_EQ(refusal({"--gpus-per-server", "2"}), "--gpus-per-server 2: needs --collective");
}

}  // namespace
}  // namespace opsim::gui
