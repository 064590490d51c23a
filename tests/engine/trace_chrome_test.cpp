#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/input_error.hpp"
#include "engine/chrome_trace_reader.hpp"
#include "engine/chrome_trace_rules.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "tests/support/scratch_files.hpp"
#include "trace_test_support.hpp"

namespace opsim {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string to_chrome(const Trace& trace) {
  std::ostringstream out;
  write_chrome_trace(trace, out);
  return out.str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string error_of(const fs::path& path) {
  try {
    read_chrome_trace(path.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ChromeTrace, PartitionIntoSubLanesIsGreedyAndMinimal) {
  using I = std::pair<TimeNs, TimeNs>;
  EXPECT_EQ(partition_into_sub_lanes({I{0, 10}, I{5, 15}, I{8, 20}, I{10, 12}, I{15, 16}}),
            (std::vector<std::uint32_t>{0, 1, 2, 0, 0}));  // at 15 both 0 and 1 are free
  // Touching spans share a sub-lane; input order does not matter, only times.
  EXPECT_EQ(partition_into_sub_lanes({I{10, 20}, I{0, 10}, I{20, 20}}),
            (std::vector<std::uint32_t>{0, 0, 0}));
  EXPECT_TRUE(partition_into_sub_lanes({}).empty());
}

TEST(ChromeTrace, WrittenTraceFollowsTheRules) {
  const Trace trace = test::hand_made_trace();
  const json doc = json::parse(to_chrome(trace));
  EXPECT_EQ(check_chrome_trace_rules(doc), std::vector<std::string>{});

  // Processes: server "rig" then "links", with sort indices.
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  std::map<std::string, std::set<int>> tids_of_span_name;
  int flows_s = 0, flows_f = 0, counters = 0;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name") threads[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (ph == "X" && e["cat"] == "link") tids_of_span_name["link"].insert(e["tid"].get<int>());
    if (ph == "s") ++flows_s;
    if (ph == "f") {
      ++flows_f;
      EXPECT_EQ(e["bp"], "e");
    }
    if (ph == "C") ++counters;
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{1, "rig"}, {2, "links"}}));
  // The eth0 lane carries three concurrent transfers: three tids, named after the lane.
  std::vector<std::string> eth_threads;
  for (const auto& [key, name] : threads) {
    if (name.rfind("eth0", 0) == 0) {
      EXPECT_EQ(key.first, 2);
      eth_threads.push_back(name);
    }
  }
  EXPECT_EQ(eth_threads, (std::vector<std::string>{"eth0 cpu0\u2192cpu1", "eth0 cpu0\u2192cpu1 #2",
                                                   "eth0 cpu0\u2192cpu1 #3"}));
  EXPECT_EQ(tids_of_span_name["link"].size(), 4u);  // 1 on pcie_gpu0 + 3 on eth0
  // cpu0/memcpy0 also carries three overlapping ops (as a real run may): three tids.
  EXPECT_EQ(threads.size(), 1u + 1u + 3u + 1u + 3u);
  EXPECT_EQ(flows_s, 4);
  EXPECT_EQ(flows_f, 4);
  EXPECT_EQ(counters, 3 + 2 + 2);

  // Op spans: ts/dur in microseconds, args carry the op.
  const json& gemm = doc["traceEvents"][2 * 2 + 2 * 9];  // after 2 processes × 2, 9 threads × 2
  ASSERT_EQ(gemm["ph"], "X");
  EXPECT_EQ(gemm["name"], "gemm, \"big\"\n");
  EXPECT_EQ(gemm["ts"], 0.0);
  EXPECT_EQ(gemm["dur"], 60000.0);
  EXPECT_EQ(gemm["args"]["class"], "gemm");
  EXPECT_EQ(gemm["args"]["device"], "gpu0");
  EXPECT_EQ(gemm["args"]["flops"], 2e12);
  EXPECT_EQ(gemm["args"]["bytes"], 1.5e9);
  EXPECT_EQ(gemm["args"]["start_ns"], 0);
  EXPECT_EQ(gemm["args"]["end_ns"], 60'000'000);
  EXPECT_EQ(doc["otherData"]["opsim"]["title"], trace.title);
  EXPECT_EQ(doc["otherData"]["opsim"]["lanes"][4]["capacity_bytes_per_s"], 12.5e9);
}

TEST(ChromeTrace, NanosecondTimesKeepFractionalMicroseconds) {
  Trace t = test::hand_made_trace();
  t.ops[4].end_ns = 18 * test::kMs + 1;  // already so: 18000.001 us
  const json doc = json::parse(to_chrome(t));
  bool found = false;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "op" && e["name"] == "send2") {
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 12000.0);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 6000.001);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(ChromeTrace, MicrosecondsGiveBackExactNanosecondsRoundedOrTruncated) {
  // Spans at every nanosecond offset of a few magnitudes: a reader that truncates ts × 1000
  // (older Perfetto) and one that rounds it (current Perfetto) both get the exact times.
  Trace t;
  t.lanes = {{"lane", "n", "d", LaneKind::kCompute, 0}};
  // 1001 ns: 1.001 × 1000 = 1000.9999999999999 in doubles.
  for (TimeNs base : {TimeNs{0}, TimeNs{1000}, TimeNs{18'000'000}, TimeNs{123'456'789'000}}) {
    for (TimeNs k = 0; k < 1000; ++k) {
      t.ops.push_back({"op", "c", "d", "", 0, 0, 0, base + k, base + k + 1});
    }
  }
  const json doc = json::parse(to_chrome(t));
  std::size_t checked = 0;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const TimeNs start = e["args"]["start_ns"];
    const TimeNs end = e["args"]["end_ns"];
    const double ts = e["ts"], dur = e["dur"];
    ASSERT_EQ(static_cast<TimeNs>(ts * 1000.0), start) << ts;
    ASSERT_EQ(std::llround(ts * 1000.0), start) << ts;
    ASSERT_EQ(static_cast<TimeNs>(dur * 1000.0), end - start) << dur;
    ++checked;
  }
  EXPECT_EQ(checked, 4000u);
}

TEST(ChromeTrace, RuleCheckerCatchesBrokenTraces) {
  json doc = json::parse(R"({"traceEvents":[
    {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"a"}},
    {"ph":"X","name":"x","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","name":"y","pid":1,"tid":1,"ts":5,"dur":10},
    {"ph":"X","name":"z","pid":1,"tid":2,"ts":0,"dur":1},
    {"ph":"X","name":"w","pid":"1","tid":1,"ts":-1,"dur":1},
    {"ph":"s","name":"f","id":7,"pid":1,"tid":1,"ts":1},
    {"ph":"X","name":"b","pid":1,"tid":1,"ts":20,"dur":1,"bind_id":"0x1","flow_out":true}
  ]})");
  const std::vector<std::string> problems = check_chrome_trace_rules(doc);
  auto has = [&](const std::string& needle) {
    for (const std::string& p : problems) {
      if (p.find(needle) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("events 1 and 2: X events overlap on pid 1 tid 1"))
      << ::testing::PrintToString(problems);
  EXPECT_TRUE(has("pid 1 tid 2 has no thread_name"));
  EXPECT_TRUE(has("event 4 (ph X): pid and tid must be integers"));
  EXPECT_TRUE(has("event 4 (ph X): ts must be a number >= 0"));
  EXPECT_TRUE(has("flow id 7: 1 start(s), 0 end(s)"));
  EXPECT_TRUE(has("bind_id 0x1: needs a flow_out and a flow_in event"));
  EXPECT_EQ(problems.size(), 6u);
  EXPECT_EQ(check_chrome_trace_rules(json::parse("{}")),
            std::vector<std::string>{"no traceEvents array"});
}

TEST(ChromeTrace, SameTraceGivesByteIdenticalFiles) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_identical");
  const Trace trace = test::hand_made_trace();
  write_chrome_trace(trace, dir / "a.json");
  write_chrome_trace(trace, dir / "b.json");
  const std::string a = test::slurp(dir / "a.json");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, test::slurp(dir / "b.json"));
  EXPECT_EQ(a, to_chrome(test::hand_made_trace()));
  // Only the two files: no temporaries left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
}

TEST(ChromeTrace, ReadBackGivesTheSameTrace) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_round_trip");
  Trace trace = test::hand_made_trace();
  trace.ops[2].start_ns = 123'456'789'012'345;  // ~1.4 days: still exact in microseconds
  trace.ops[2].end_ns = 123'456'789'012'346;
  trace.link_spans[1].start_ns = trace.ops[2].start_ns;
  trace.link_spans[1].end_ns = trace.ops[2].end_ns;
  trace.counters[0].samples.push_back({123'456'789'012'347, 1.0 / 3.0});
  trace.lanes.push_back({"idle lane", "server9", "gpu9", LaneKind::kHost, 0});  // no spans
  write_chrome_trace(trace, dir / "t.json");
  const Trace back = read_chrome_trace((dir / "t.json").string());
  EXPECT_TRUE(back == trace);
  EXPECT_EQ(back.ops, trace.ops);
  EXPECT_EQ(back.link_spans, trace.link_spans);
  EXPECT_EQ(back.dependencies, trace.dependencies);
  EXPECT_EQ(back.counters, trace.counters);
  EXPECT_EQ(back.lanes, trace.lanes);
  // And writing what was read gives the same bytes.
  write_chrome_trace(back, dir / "again.json");
  EXPECT_EQ(test::slurp(dir / "t.json"), test::slurp(dir / "again.json"));
}

TEST(ChromeTrace, ReaderAcceptsEventsBeforeOtherData) {
  // Another tool may re-order the top-level keys; the events then arrive before the model.
  const fs::path dir = test::empty_build_scratch_dir("chrome_reordered");
  const Trace trace = test::hand_made_trace();
  const json doc = json::parse(to_chrome(trace));
  const std::string text = "{\"traceEvents\":" + doc["traceEvents"].dump(2) +
                           ",\"otherData\":" + doc["otherData"].dump() + "}";
  write_text(dir / "reordered.json", text);
  EXPECT_TRUE(read_chrome_trace((dir / "reordered.json").string()) == trace);
}

TEST(ChromeTrace, FastAndCheckedReadersAgree) {
  // Files opsim wrote take the fast scanner; anything it does not expect (here a \u escape,
  // pretty-printing and a quote in a name) goes to the checked parser. Both give one trace.
  Trace trace = test::hand_made_trace();
  trace.ops[0].name = "A \"quoted\" name\twith tab";
  const std::string compact = to_chrome(trace);
  EXPECT_TRUE(chrome_trace_reads_fast(compact));
  const Trace fast = parse_chrome_trace(compact, "compact.json");
  EXPECT_TRUE(fast == trace);
  std::string escaped = compact;
  const std::size_t at = escaped.find("\"A \\\"quoted");
  ASSERT_NE(at, std::string::npos);
  escaped.replace(at + 1, 1, "\\u0041");  // "A..." spelled "\u0041..."
  EXPECT_FALSE(chrome_trace_reads_fast(escaped));
  EXPECT_TRUE(parse_chrome_trace(escaped, "escaped.json") == trace);
  EXPECT_TRUE(parse_chrome_trace(json::parse(compact).dump(2), "pretty.json") == trace);
}

TEST(ChromeTrace, EmptyTraceRoundTrips) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_empty");
  Trace trace;
  write_chrome_trace(trace, dir / "e.json");
  EXPECT_TRUE(read_chrome_trace((dir / "e.json").string()) == trace);
  EXPECT_TRUE(check_chrome_trace_rules(json::parse(test::slurp(dir / "e.json"))).empty());
}

TEST(ChromeTrace, ReaderRejectsGarbageWithPlace) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_garbage");
  write_text(dir / "garbage.json", "{\"traceEvents\": [\n  {\"ph\": \"X\",, }\n]}");
  const std::string message = error_of(dir / "garbage.json");
  EXPECT_EQ(message.rfind((dir / "garbage.json").string() + ":2:", 0), 0u) << message;
  EXPECT_NE(message.find(":2:14: invalid JSON: syntax error while parsing object key"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);

  write_text(dir / "empty.json", "");
  EXPECT_NE(error_of(dir / "empty.json").find("invalid JSON"), std::string::npos);
  EXPECT_NE(error_of(dir / "missing.json").find("missing.json: cannot open trace file"),
            std::string::npos);
}

TEST(ChromeTrace, ReaderRefusesWhatIsNotARegularFileWithoutBlocking) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_not_regular");
  const fs::path fifo = dir / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of(fifo), fifo.string() + ": is a FIFO (named pipe), not a trace file");
  EXPECT_EQ(error_of(dir), dir.string() + ": is a directory, not a trace file");
  EXPECT_EQ(error_of("/dev/null"), "/dev/null: is a device, not a trace file");
}

TEST(ChromeTrace, ReaderRefusesKeysGivenTwice) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_twice");
  json doc = json::parse(to_chrome(test::hand_made_trace()));
  std::string text = doc.dump();
  // The same top-level key twice, and one key twice inside the third event.
  write_text(dir / "top.json", "{\"otherData\": {}, " + text.substr(1));
  EXPECT_EQ(error_of(dir / "top.json"),
            (dir / "top.json").string() + ": the top level: key 'otherData' appears twice");
  json& third = doc["traceEvents"][2];
  std::string event = third.dump();
  const std::string twice = "{\"ph\": \"X\", " + event.substr(1);
  text = doc.dump();
  text.replace(text.find(event), event.size(), twice);
  write_text(dir / "event.json", text);
  EXPECT_EQ(error_of(dir / "event.json"),
            (dir / "event.json").string() +
                ": traceEvents[2]: key 'ph' appears twice (each key once per object)");
}

// Another tool may write the events before otherData: the same trace, read the slow way.
TEST(ChromeTrace, EventsBeforeOtherDataReadTheSame) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_reordered");
  const Trace trace = test::hand_made_trace();
  const json doc = json::parse(to_chrome(trace));
  const std::string text = "{\"traceEvents\": " + doc["traceEvents"].dump() +
                           ", \"otherData\": " + doc["otherData"].dump() + "}";
  EXPECT_FALSE(chrome_trace_reads_fast(text));
  EXPECT_TRUE(parse_chrome_trace(text, "r.json") == trace);
}

// Counts and times that would exhaust memory or leave int64 nanoseconds are refused.
TEST(ChromeTrace, ReaderRefusesCountsAndTimesOutOfRange) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_ranges");
  const json doc = json::parse(to_chrome(test::hand_made_trace()));

  json many = doc;
  many["otherData"]["opsim"]["op_count"] = 1000000000000LL;
  write_text(dir / "many.json", many.dump());
  EXPECT_NE(error_of(dir / "many.json")
                .find("otherData.opsim: op_count, dependency_count or "
                      "link_span_count is more than a file of"),
            std::string::npos)
      << error_of(dir / "many.json");

  json late = doc;
  for (json& event : late["traceEvents"])
    if (event["ph"] == "C") event["ts"] = 1e300;
  write_text(dir / "late.json", late.dump());
  EXPECT_NE(error_of(dir / "late.json").find("\"ts\" is outside what 64-bit nanoseconds hold"),
            std::string::npos)
      << error_of(dir / "late.json");

  json negative = doc;
  for (json& event : negative["traceEvents"])
    if (event["ph"] == "X" && event["cat"] == "op") event["args"]["bytes"] = -1;
  write_text(dir / "negative.json", negative.dump());
  EXPECT_NE(error_of(dir / "negative.json").find("bytes and flops must be finite and >= 0"),
            std::string::npos)
      << error_of(dir / "negative.json");
}

TEST(ChromeTrace, ReaderRejectsOtherTools) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_foreign");
  write_text(dir / "chrome.json",
             R"({"traceEvents":[{"ph":"X","name":"x","pid":1,"tid":1,"ts":0,"dur":1}]})");
  EXPECT_EQ(
      error_of(dir / "chrome.json"),
      (dir / "chrome.json").string() + ": top level: not an opsim trace (no otherData.opsim)");
  write_text(dir / "empty_model.json", R"({"otherData":{"opsim":{}},"traceEvents":[]})");
  EXPECT_EQ(error_of(dir / "empty_model.json"),
            (dir / "empty_model.json").string() + ": otherData.opsim: missing \"format\"");
  write_text(dir / "array.json", "[1, 2]");
  EXPECT_NE(error_of(dir / "array.json").find("not a Chrome trace object"), std::string::npos);
}

TEST(ChromeTrace, ReaderRejectsDamagedOpsimFiles) {
  const fs::path dir = test::empty_build_scratch_dir("chrome_damaged");
  json doc = json::parse(to_chrome(test::hand_made_trace()));

  json no_op = doc;
  auto& events = no_op["traceEvents"];
  for (auto it = events.begin(); it != events.end(); ++it) {
    if ((*it)["ph"] == "X" && (*it)["cat"] == "op" && (*it)["args"]["op"] == 3) {
      events.erase(it);
      break;
    }
  }
  write_text(dir / "no_op.json", no_op.dump());
  EXPECT_NE(error_of(dir / "no_op.json").find("op 3 has no \"X\" event"), std::string::npos);

  json bad_lane = doc;
  for (json& e : bad_lane["traceEvents"]) {
    if (e["ph"] == "X") {
      e["args"]["lane"] = 99;
      break;
    }
  }
  write_text(dir / "bad_lane.json", bad_lane.dump());
  EXPECT_NE(error_of(dir / "bad_lane.json").find("\"lane\" = 99 is out of range [0, 5)"),
            std::string::npos)
      << error_of(dir / "bad_lane.json");

  json number = doc;
  number["traceEvents"].insert(number["traceEvents"].begin() + 1, 5);
  write_text(dir / "number.json", number.dump());
  EXPECT_NE(error_of(dir / "number.json").find("traceEvents[1]: expected a JSON object"),
            std::string::npos)
      << error_of(dir / "number.json");

  json version = doc;
  version["otherData"]["opsim"]["version"] = 2;
  write_text(dir / "version.json", version.dump());
  EXPECT_NE(error_of(dir / "version.json").find("unsupported version 2"), std::string::npos);

  const std::string text = to_chrome(test::hand_made_trace());
  write_text(dir / "truncated.json", text.substr(0, text.size() / 2));
  EXPECT_NE(error_of(dir / "truncated.json").find("invalid JSON"), std::string::npos);
}

}  // namespace
}  // namespace opsim
