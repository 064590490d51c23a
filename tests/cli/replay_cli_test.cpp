// `opsim replay` end to end on the PyTorch steps the project recorded on an H100
// (tests/data/pytorch): one row per profiler step, the JSON keys and their arithmetic, step
// selection, the traces --trace-dir writes, --kernels modelled on the calibrated profile of
// that host, and bad input that exits 2 with one line naming the file or flag.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "engine/chrome_trace_reader.hpp"
#include "tests/support/opsim_command.hpp"

namespace {

namespace fs = std::filesystem;

using opsim::test::CommandResult;
using opsim::test::slurp;

const std::string kData = std::string(OPSIM_SOURCE_DIR) + "/tests/data/pytorch/";
const std::string kProfile = kData + "profiles/h100-quick.yaml";

const char* const kTraces[] = {"mlp-cuda",          "mlp-cuda-bf16", "mlp-cuda-big",
                               "mlp-cuda-big-bf16", "cnn-cuda",      "cnn-cuda-big"};

std::string trace(const std::string& stem) {
  return kData + stem + ".json.gz";
}

fs::path scratch(const std::string& name) {
  const fs::path dir = opsim::test::scratch_dir("opsim_replay_cli_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

CommandResult replay(const std::string& args, const fs::path& dir = scratch("run")) {
  return opsim::test::run_program("opsim", "replay " + args, dir, "timeout 120");
}

nlohmann::json replay_json(const std::string& args) {
  const CommandResult r = replay(args + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return nlohmann::json::parse(r.out);
}

double part_sum(const nlohmann::json& b) {
  return b.at("compute_s").get<double>() + b.at("communication_exposed_s").get<double>() +
         b.at("copy_exposed_s").get<double>() + b.at("host_bound_idle_s").get<double>();
}

// The ProfilerStep#N spans of mlp-cuda-big.json.gz as recorded ("dur" in µs).
const double kMlpBigStepsUs[] = {63982.28, 63648.902, 63761.766, 63711.883};

// One row per step: "   0  ProfilerStep#2  1.939 ms  1.939 ms  +0.00 %  ...".
struct TableRow {
  std::string step;
  double error_percent = 0;
};

std::vector<TableRow> table_rows(const std::string& out) {
  static const std::regex row(
      R"(^\s*0\s+(ProfilerStep#\d+)\s+[\d.]+ ms\s+[\d.]+ ms\s+([-+][\d.]+) %)");
  std::vector<TableRow> rows;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) rows.push_back({m[1], std::stod(m[2])});
  }
  return rows;
}

// Within the issue's goal for recorded kernels (3 %); most steps replay within 0.1 %.
TEST(ReplayCli, TableHasOneRowPerStepWithinThreePercentOnEveryProjectTrace) {
  for (const char* stem : kTraces) {
    SCOPED_TRACE(stem);
    const CommandResult r = replay(trace(stem));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<TableRow> rows = table_rows(r.out);
    ASSERT_EQ(rows.size(), 4u) << r.out;  // each recording holds ProfilerStep#1..#4
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].step, "ProfilerStep#" + std::to_string(i + 1));
      EXPECT_LT(std::abs(rows[i].error_percent), 3.0) << r.out;
    }
    EXPECT_NE(r.out.find("on pcie-switch:1 (kernels recorded"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("events not used: "), std::string::npos) << r.out;
  }
}

TEST(ReplayCli, JsonHasEveryKeyAndItsArithmeticHolds) {
  const nlohmann::json doc = replay_json(trace("mlp-cuda-big"));
  EXPECT_EQ(doc.at("traces"), nlohmann::json::array({trace("mlp-cuda-big")}));
  EXPECT_EQ(doc.at("machine"), "pcie-switch:1");
  const auto& steps = doc.at("steps");
  ASSERT_EQ(steps.size(), 4u);
  std::vector<double> abs_errors;
  nlohmann::json total = {{"compute_s", 0.0},
                          {"communication_exposed_s", 0.0},
                          {"copy_exposed_s", 0.0},
                          {"host_bound_idle_s", 0.0}};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& s = steps[i];
    SCOPED_TRACE(s.dump());
    EXPECT_EQ(s.at("name"), "ProfilerStep#" + std::to_string(i + 1));
    const double recorded = s.at("recorded_s").get<double>();
    const double replayed = s.at("replayed_s").get<double>();
    EXPECT_NEAR(recorded, kMlpBigStepsUs[i] * 1e-6, 1e-9);
    EXPECT_NEAR(s.at("error").get<double>(), (replayed - recorded) / recorded, 1e-12);
    EXPECT_LT(std::abs(s.at("error").get<double>()), 0.01);
    abs_errors.push_back(std::abs(s.at("error").get<double>()));
    const auto& b = s.at("breakdown");
    EXPECT_NEAR(part_sum(b), replayed, 1e-6);
    // A GPU-bound step: its kernels are most of it, and nothing is communication.
    EXPECT_GT(b.at("compute_s").get<double>(), 0.9 * replayed);
    EXPECT_EQ(b.at("communication_exposed_s").get<double>(), 0.0);
    EXPECT_GT(b.at("copy_exposed_s").get<double>(), 0.0);  // two 1.2 ms HtoD copies a step
    for (auto& [key, value] : total.items()) value = value.get<double>() + b.at(key).get<double>();
  }
  std::sort(abs_errors.begin(), abs_errors.end());
  EXPECT_NEAR(doc.at("median_abs_error").get<double>(), (abs_errors[1] + abs_errors[2]) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(doc.at("worst_abs_error").get<double>(), abs_errors.back());
  for (const auto& [key, value] : total.items())
    EXPECT_NEAR(doc.at("breakdown").at(key).get<double>(), value.get<double>(), 1e-9) << key;
  const auto& graph = doc.at("graph");
  EXPECT_EQ(graph.at("gpu_ops"), 200);  // kernels, copies and memsets in the file
  EXPECT_GT(graph.at("host_ops").get<int>(), 0);
  // One cudaDeviceSynchronize a step and one before, and the launch that drained the GPU
  // (a module load in the first optimizer step).
  EXPECT_EQ(graph.at("blocking_calls"), 6);
  EXPECT_EQ(graph.at("kernels_from_shapes"), 0);  // recorded kernels: none modelled
  const auto& ignored = doc.at("ignored_events");
  EXPECT_EQ(ignored.at("gpu_user_annotation"), 8);
  EXPECT_GT(ignored.at("fwdbwd").get<int>(), 0);
}

TEST(ReplayCli, HostBoundStepsAreMostlyGpuIdle) {
  const nlohmann::json doc = replay_json(trace("mlp-cuda"));
  ASSERT_EQ(doc.at("steps").size(), 4u);
  for (const auto& s : doc.at("steps")) {
    SCOPED_TRACE(s.dump());
    const double replayed = s.at("replayed_s").get<double>();
    EXPECT_NEAR(part_sum(s.at("breakdown")), replayed, 1e-6);
    EXPECT_GT(s.at("breakdown").at("host_bound_idle_s").get<double>(), 0.5 * replayed);
  }
}

TEST(ReplayCli, StepsRangeReportsExactlyThoseSteps) {
  nlohmann::json doc = replay_json(trace("cnn-cuda") + " --steps 2..3");
  ASSERT_EQ(doc.at("steps").size(), 2u);
  EXPECT_EQ(doc.at("steps")[0].at("name"), "ProfilerStep#2");
  EXPECT_EQ(doc.at("steps")[1].at("name"), "ProfilerStep#3");
  doc = replay_json(trace("cnn-cuda") + " --steps 4");
  ASSERT_EQ(doc.at("steps").size(), 1u);
  EXPECT_EQ(doc.at("steps")[0].at("name"), "ProfilerStep#4");
  // A range past the last step reports the steps inside it.
  doc = replay_json(trace("cnn-cuda") + " --steps 3..99");
  ASSERT_EQ(doc.at("steps").size(), 2u);
  EXPECT_EQ(doc.at("steps")[1].at("name"), "ProfilerStep#4");
}

TEST(ReplayCli, TraceDirHoldsTracesOpsimReadsBackWithRealAndSimLanes) {
  const fs::path dir = scratch("trace_dir");
  const CommandResult r = replay(trace("mlp-cuda") + " --format json --trace-dir out", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);  // JSON only: no "Traces:" line
  const auto ops = doc.at("graph").at("host_ops").get<std::size_t>() +
                   doc.at("graph").at("gpu_ops").get<std::size_t>();
  const opsim::Trace replayed =
      opsim::read_chrome_trace((dir / "out/mlp-cuda.replayed.json").string());
  const opsim::Trace overlay =
      opsim::read_chrome_trace((dir / "out/mlp-cuda.overlay.json").string());
  EXPECT_EQ(replayed.ops.size(), ops);
  EXPECT_EQ(overlay.ops.size(), 2 * ops);
  int real = 0, sim = 0;
  for (const opsim::TraceLane& lane : overlay.lanes) {
    real += lane.name.starts_with("real ");
    sim += lane.name.starts_with("sim ");
  }
  EXPECT_GT(real, 0);
  EXPECT_EQ(real, sim);
  EXPECT_EQ(real + sim, static_cast<int>(overlay.lanes.size()));
  EXPECT_EQ(static_cast<std::size_t>(sim), replayed.lanes.size());
  // The replay lasts as long as its steps do: past the last step's end, not far beyond.
  double steps_s = 0;
  for (const auto& s : doc.at("steps")) steps_s += s.at("replayed_s").get<double>();
  EXPECT_GE(static_cast<double>(replayed.makespan_ns()) * 1e-9, steps_s);
  EXPECT_LT(static_cast<double>(replayed.makespan_ns()) * 1e-9, 2 * steps_s);
  // The table names both files.
  const CommandResult t = replay(trace("mlp-cuda") + " --trace-dir out", dir);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("out/mlp-cuda.replayed.json, out/mlp-cuda.overlay.json"), std::string::npos)
      << t.out;
}

TEST(ReplayCli, ModelledKernelsOnTheCalibratedProfileKeepTheGpuBoundStepWithinTenPercent) {
  const std::string args = trace("mlp-cuda-big") + " --kernels modelled --profile " + kProfile;
  const nlohmann::json doc = replay_json(args);
  EXPECT_EQ(doc.at("kernels"), "modelled");
  EXPECT_EQ(doc.at("machine"), "calibrated-vm");
  ASSERT_EQ(doc.at("steps").size(), 4u);
  for (const auto& s : doc.at("steps")) {
    SCOPED_TRACE(s.dump());
    EXPECT_LT(std::abs(s.at("error").get<double>()), 0.10);
    EXPECT_NEAR(part_sum(s.at("breakdown")), s.at("replayed_s").get<double>(), 1e-6);
  }
  const auto& graph = doc.at("graph");
  EXPECT_EQ(graph.at("kernels_from_shapes"), 32);  // mm/addmm GEMMs: 8 a step
  EXPECT_EQ(graph.at("kernels_from_shapes").get<int>() + graph.at("kernels_scaled").get<int>() +
                graph.at("kernels_recorded").get<int>(),
            graph.at("gpu_ops").get<int>());
  const CommandResult table = replay(args);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const std::regex shapes(R"(GPU ops modelled: (\d+) timed from shapes)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(table.out, m, shapes)) << table.out;
  EXPECT_GT(std::stoi(m[1]), 0);
}

// The profile with its GPU's fp32 peak and every measured SGEMM rate doubled.
void write_faster_profile(const fs::path& path) {
  const std::string text = slurp(kProfile);
  const std::regex number(R"((fp32_peak: |\brate: )([0-9.e+]+))");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), number);
  std::size_t copied = 0, doubled = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it, ++doubled) {
    out += text.substr(copied, static_cast<std::size_t>(it->position(2)) - copied);
    std::ostringstream value;
    value.precision(17);
    value << 2 * std::stod((*it)[2]);
    out += value.str();
    copied = static_cast<std::size_t>(it->position(2) + it->length(2));
  }
  out += text.substr(copied);
  ASSERT_EQ(doubled, 6u);  // fp32_peak and five sgemm_rates
  std::ofstream(path) << out;
}

TEST(ReplayCli, AFasterGpuGivesShorterGpuBoundSteps) {
  const fs::path dir = scratch("faster");
  write_faster_profile(dir / "fast.yaml");
  const std::string args = trace("mlp-cuda-big") + " --kernels modelled --format json --profile ";
  const CommandResult base = replay(args + kProfile, dir);
  const CommandResult fast = replay(args + "fast.yaml", dir);
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  const auto b = nlohmann::json::parse(base.out).at("steps");
  const auto f = nlohmann::json::parse(fast.out).at("steps");
  ASSERT_EQ(b.size(), 4u);
  ASSERT_EQ(f.size(), 4u);
  double base_total = 0, fast_total = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    SCOPED_TRACE(f[i].dump());
    const double base_s = b[i].at("replayed_s").get<double>();
    const double fast_s = f[i].at("replayed_s").get<double>();
    EXPECT_LT(fast_s, base_s);
    // The GEMMs are ~95 % of the kernels' time: the step's kernel time about halves.
    EXPECT_LT(f[i].at("breakdown").at("compute_s").get<double>(),
              0.6 * b[i].at("breakdown").at("compute_s").get<double>());
    base_total += base_s;
    fast_total += fast_s;
  }
  EXPECT_LT(fast_total, 0.9 * base_total);
}

// --- bad input: exit 2, one line on stderr, naming the file or flag, no library's text ---

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

struct BadCase {
  const char* name;
  std::function<void(const fs::path& dir)> prepare;  // writes the inputs into `dir`
  std::string args;                                  // "opsim replay ARGS", run in `dir`
  const char* expected;                              // part of the one line on stderr
};

// A launch and its kernel, the kernel's args without "stream".
void write_kernel_without_stream(const fs::path& dir) {
  write_text(dir / "t.json", R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
   "ts": 0, "dur": 5, "args": {"correlation": 7}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 6, "dur": 10,
   "args": {"device": 0, "correlation": 7}}]})");
}

// A launch and its kernel on GPU 0, as a plain (not gzip) file.
std::string one_kernel_trace() {
  return R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
   "ts": 0, "dur": 5, "args": {"correlation": 7}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 6, "dur": 10,
   "args": {"device": 0, "stream": 7, "correlation": 7}}]})";
}

std::vector<BadCase> bad_cases() {
  const std::string mlp = trace("mlp-cuda");
  return {
      {"missing file", [](const fs::path&) {}, "missing.json.gz",
       "missing.json.gz: cannot open trace file"},
      {"directory", [](const fs::path& d) { fs::create_directory(d / "t.json"); }, "t.json",
       "t.json: is a directory, not a trace file"},
      {"fifo", [](const fs::path& d) { ::mkfifo((d / "t.json").c_str(), 0600); }, "t.json",
       "t.json: is a FIFO (named pipe), not a trace file"},
      {"empty file", [](const fs::path& d) { write_text(d / "t.json", ""); }, "t.json",
       "t.json: empty file, not a PyTorch profiler trace"},
      {"truncated gzip",
       [mlp](const fs::path& d) { write_text(d / "t.json.gz", slurp(mlp).substr(0, 20000)); },
       "t.json.gz", "t.json.gz: truncated gzip data"},
      {"not JSON", [](const fs::path& d) { write_text(d / "t.json", "hello\n"); }, "t.json",
       "t.json:1:1: invalid JSON"},
      {"JSON array form",
       [](const fs::path& d) { write_text(d / "t.json", R"([{"ph": "X", "name": "a"}])"); },
       "t.json", "t.json: the top level: a JSON array: the array form of a Chrome trace"},
      {"object without traceEvents",
       [](const fs::path& d) { write_text(d / "t.json", R"({"schemaVersion": 1})"); }, "t.json",
       "t.json: the top level: a JSON object with keys schemaVersion and no \"traceEvents\""},
      {"an opsim trace",
       [](const fs::path& d) {
         write_text(
             d / "w.json",
             R"({"topology": "desktop-1gpu", "ops": [{"name": "a", "kind": "compute", "device": "cpu0", "flops": 1e9}]})");
         opsim::test::run_program("opsim", "sim w.json --trace t.json", d);
         fs::remove(d / "w.json");
         fs::remove(d / "stdout");
         fs::remove(d / "stderr");
       },
       "t.json", "t.json: traceEvents: not a PyTorch profiler trace (an opsim trace"},
      {"kernel without args.stream", write_kernel_without_stream, "t.json",
       "t.json: traceEvents[1]: kernel without args.stream"},
      {"host ops only, no steps or GPU work",
       [](const fs::path& d) {
         write_text(
             d / "t.json",
             R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50}]})");
       },
       "t.json", "t.json: nothing to replay: no GPU events, and no host thread with CUDA runtime"},
      {"steps backwards", [](const fs::path&) {}, mlp + " --steps 9..3",
       "--steps: '9..3' runs backwards"},
      {"steps not a number", [](const fs::path&) {}, mlp + " --steps x",
       "--steps: 'x' is not all, K or K..M"},
      {"no such step", [](const fs::path&) {}, mlp + " --steps 99",
       "mlp-cuda.json.gz: --steps 99: no ProfilerStep#N of the trace is in that range (it has "
       "1..4)"},
      {"profile and topology together", [](const fs::path&) {},
       mlp + " --topology pcie-switch:1 --profile " + kProfile, "--topology excludes --profile"},
      {"profile that is a FIFO", [](const fs::path& d) { ::mkfifo((d / "p.yaml").c_str(), 0600); },
       mlp + " --profile p.yaml", "p.yaml: is a FIFO (named pipe), not a topology file"},
      {"kernels bogus", [](const fs::path&) {}, mlp + " --kernels bogus",
       "--kernels: bogus not in {recorded,modelled}"},
      {"too few GPUs",
       [](const fs::path& d) {
         write_text(d / "a.json", one_kernel_trace());
         write_text(d / "b.json", one_kernel_trace());
       },
       "a.json b.json --topology pcie-switch:1",
       "machine 'pcie-switch:1' has 1 GPU; the traces need 2 (a.json 1 GPU, b.json 1 GPU)"},
      {"trace dir under a file", [](const fs::path& d) { write_text(d / "F", "a file"); },
       mlp + " --trace-dir F/out", "F/out: cannot write the trace directory here: "},
      {"trace dir that is a file", [](const fs::path& d) { write_text(d / "F", "a file"); },
       mlp + " --trace-dir F", "F: cannot write the trace directory here: it exists and is not"},
  };
}

// "a kernel without args.stream" -> "a_kernel_without_args_stream".
std::string identifier(const char* text) {
  std::string out;
  for (const char* p = text; *p; ++p)
    out += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  return out;
}

// What a message must not carry: text from a library rather than from opsim.
const char* const kForeignText[] = {"json.exception", "parse_error", "filesystem error",
                                    "std::",          "CLI::",       "terminate called",
                                    "what():",        "zlib",        "basic_"};

void expect_one_clean_line(const CommandResult& r, const std::string& expected) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.err.starts_with("opsim: error: ")) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line:\n" << r.err;
  for (const char* foreign : kForeignText)
    EXPECT_EQ(r.err.find(foreign), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

class ReplayBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(ReplayBadInput, ExitsTwoWithOneLineNamingTheFileOrFlag) {
  const BadCase& c = GetParam();
  const fs::path dir = scratch(identifier(c.name));
  c.prepare(dir);
  // A FIFO must not block the reader: the timeout would make it exit 124, not 2.
  const CommandResult r = opsim::test::run_program("opsim", "replay " + c.args, dir, "timeout 30");
  expect_one_clean_line(r, c.expected);
}

INSTANTIATE_TEST_SUITE_P(Cli, ReplayBadInput, ::testing::ValuesIn(bad_cases()),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return identifier(info.param.name);
                         });

// A directory without write permission; root writes anywhere, so this needs another user.
TEST(ReplayBadInputPermissions, UnwritableTraceDir) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: every directory is writable";
  const fs::path dir = scratch("unwritable");
  fs::create_directory(dir / "ro");
  fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  const CommandResult r = opsim::test::run_program(
      "opsim", "replay " + trace("mlp-cuda") + " --trace-dir ro/out", dir, "timeout 30");
  fs::permissions(dir / "ro", fs::perms::owner_all);
  expect_one_clean_line(r, "ro/out: cannot write the trace directory here: ");
  EXPECT_NE(r.err.find("is not writable"), std::string::npos) << r.err;
}

}  // namespace
