#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <cmath>

#include "common/input_error.hpp"
#include "gui/range_stats_model.hpp"
#include "gui/scenario.hpp"
#include "gui/summary_model.hpp"
#include "test_traces.hpp"

namespace opsim::gui {
namespace {

const char* kCompareJson = R"({"topology":"pcie-switch-4gpu","bytes":160000000,"results":[
 {"strategy":"tree","makespan_s":0.06,"bytes_moved":9.6e8,"busiest_link":"pcie_gpu0",
  "busiest_link_utilization":0.5,"peak_memory_bytes":6.4e8,"lower_bound_s":0.02,"trace_file":"tree.json"},
 {"strategy":"cpu","makespan_s":0.08,"bytes_moved":1.28e9,"busiest_link":"pcie_cpu0",
  "busiest_link_utilization":1.0,"peak_memory_bytes":null,"lower_bound_s":null,"trace_file":"cpu.json"}]})";

TEST(SummaryModel, PassesTheModelTesterAndFormats) {
  SummaryModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.set_rows(parse_compare_json(kCompareJson).rows);
  ASSERT_EQ(model.rowCount(), 2);
  EXPECT_EQ(model.columnCount(), SummaryModel::kColumnCount);
  EXPECT_EQ(model.index(0, SummaryModel::kMakespan).data().toString(), "60.000 ms");
  EXPECT_EQ(model.index(1, SummaryModel::kMakespan).data().toString(), "80.000 ms");
  EXPECT_DOUBLE_EQ(model.index(1, SummaryModel::kMakespan).data(Qt::UserRole).toDouble(), 0.08);
  EXPECT_EQ(model.index(0, SummaryModel::kLinkUtilization).data().toString(), "50.0%");
  EXPECT_EQ(model.index(0, SummaryModel::kBytesMoved).data().toString().toStdString(),
            format_bytes(9.6e8));
  EXPECT_EQ(model.index(1, SummaryModel::kPeakMemory).data().toString(), "–");
  EXPECT_EQ(model.index(1, SummaryModel::kLowerBound).data().toString(), "–");
  EXPECT_EQ(model.headerData(SummaryModel::kBusiestLink, Qt::Horizontal).toString(),
            "Busiest link");
  model.set_rows({});
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(SummaryModel, ParsesCompareOutputAndRejectsOtherShapes) {
  const CompareOutput out = parse_compare_json(kCompareJson);
  EXPECT_EQ(out.topology, "pcie-switch-4gpu");
  EXPECT_DOUBLE_EQ(out.bytes, 160e6);
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[1].busiest_link, "pcie_cpu0");
  EXPECT_DOUBLE_EQ(out.rows[0].lower_bound_s, 0.02);
  EXPECT_TRUE(std::isnan(out.rows[1].lower_bound_s));
  EXPECT_EQ(out.rows[0].trace_file, "tree.json");
  EXPECT_THROW(parse_compare_json("not json"), InputError);
  EXPECT_THROW(parse_compare_json(R"({"results": 3})"), InputError);
  EXPECT_THROW(parse_compare_json(R"({"results":[{"makespan_s":1}]})"), InputError);
  EXPECT_THROW(parse_compare_json(R"({"results":[{"strategy":"x","makespan_s":"1"}]})"),
               InputError);
}

// The compare output goes through the checked JSON parser: each error is one line with its
// line and column or its place, and no nlohmann text.
TEST(SummaryModel, CompareOutputErrorsNameTheirPlace) {
  auto message_of = [](const std::string& text) {
    try {
      (void)parse_compare_json(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string syntax = message_of("{\"results\": [\n  {\"strategy\": }]}");
  EXPECT_EQ(syntax.rfind("compare output:2:16: invalid JSON:", 0), 0u) << syntax;
  const std::string overflow = message_of(R"({"bytes": 1e400, "results": []})");
  EXPECT_NE(overflow.find("compare output:1:"), std::string::npos) << overflow;
  EXPECT_NE(overflow.find("number overflow parsing '1e400'"), std::string::npos) << overflow;
  const std::string twice =
      message_of(R"({"results": [{"strategy": "a", "makespan_s": 1, "makespan_s": 2}]})");
  EXPECT_NE(twice.find("results[0]: key 'makespan_s' appears twice"), std::string::npos) << twice;
  for (const std::string& m : {syntax, overflow, twice}) {
    EXPECT_EQ(m.find("json.exception"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(SummaryModel, SummarizesATraceWithoutASummary) {
  const SummaryRow r = summary_row_of(*testing::tree_trace());
  EXPECT_DOUBLE_EQ(r.makespan_s, 0.062);
  EXPECT_DOUBLE_EQ(r.bytes_moved, 6 * 160e6);
  // pcie_gpu0 carries 480 MB each way over 62 ms at 16 GB/s.
  EXPECT_EQ(r.busiest_link.rfind("pcie_gpu0 ", 0), 0u) << r.busiest_link;
  EXPECT_NEAR(r.busiest_link_utilization, 480e6 / (16e9 * 0.062), 1e-12);
  EXPECT_DOUBLE_EQ(r.peak_memory_bytes, 640e6);
}

TEST(RangeStatsModel, PassesTheModelTester) {
  RangeStatsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  const TimelineModel a(testing::tree_trace());
  const TimelineModel b(testing::tree_trace());
  model.compute({&a, &b}, {"tree", "tree2"}, 0, 62000000);
  ASSERT_EQ(model.rowCount(), 2 * 23);
  EXPECT_EQ(model.index(0, RangeStatsModel::kTrace).data().toString(), "tree");
  EXPECT_EQ(model.index(0, RangeStatsModel::kLane).data().toString(), "gpu0/compute0");
  EXPECT_EQ(model.index(0, RangeStatsModel::kBusy).data().toString(), "3.2%");
  EXPECT_EQ(model.index(0, RangeStatsModel::kIdleGaps).data().toInt(), 2);
  EXPECT_EQ(model.index(23, RangeStatsModel::kTrace).data().toString(), "tree2");
  model.clear();
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(Scenario, DefaultCommandLineIsTheBooksComparison) {
  const Scenario s;
  EXPECT_EQ(compare_arguments(s, "/tmp/t"),
            QStringList({"compare", "--topology", "pcie-switch-4gpu", "--strategies",
                         "tree,cpu,split", "--bytes", "160MB", "--gpus", "4", "--comm-only",
                         "--format", "json", "--trace-dir", "/tmp/t"}));
}

TEST(Scenario, WhatIfOptionsAreAppended) {
  Scenario s;
  s.comm_only = false;
  s.strategies = {"ring"};
  s.link_bandwidth_scale = 0.5;
  s.overrides = {"pcie_gpu0.bytes_per_s=8GB/s", "  ", " gpu1.flops_per_s=7TFLOPS "};
  EXPECT_EQ(compare_arguments(s, "d"),
            QStringList({"compare", "--topology", "pcie-switch-4gpu", "--strategies", "ring",
                         "--bytes", "160MB", "--gpus", "4", "--link-bandwidth-scale", "0.5",
                         "--set", "pcie_gpu0.bytes_per_s=8GB/s", "--set",
                         "gpu1.flops_per_s=7TFLOPS", "--format", "json", "--trace-dir", "d"}));
}

}  // namespace
}  // namespace opsim::gui
