// `opsim sweep` end to end: nothing lost and nothing redone when a run is killed (SIGKILL at
// a random moment, SIGINT, a torn last line, an MPI rank killed), a changed spec refused,
// the axes (set, link scale, collectives, workloads, zip), shards and merge.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "tests/support/opsim_command.hpp"

namespace {

namespace fs = std::filesystem;
using opsim::test::CommandResult;
using opsim::test::slurp;

fs::path scratch_dir() {
  return opsim::test::scratch_dir("opsim_sweep_test");
}

CommandResult opsim(const std::string& args) {
  return opsim::test::run_opsim(args, scratch_dir());
}

fs::path write_spec(const std::string& name, const std::string& text) {
  const fs::path path = scratch_dir() / name;
  std::ofstream(path) << text;
  return path;
}

// 1000 small points: tree on pcie-switch-4gpu at 100 sizes and 10 link-bandwidth scales.
std::string thousand_point_spec() {
  std::ostringstream spec;
  spec << "topologies: [pcie-switch-4gpu]\nstrategies: [tree]\ncomm_only: true\nbytes: [";
  for (int i = 1; i <= 100; ++i) spec << (i > 1 ? ", " : "") << i << "KiB";
  spec << "]\nlink_bandwidth_scale: [";
  for (int i = 0; i < 10; ++i) spec << (i ? ", " : "") << 0.5 + 0.25 * i;
  spec << "]\n";
  return spec.str();
}

// One CSV line's cells; a quoted cell keeps its commas (RFC 4180).
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"')
      cells.back() += line[++i];
    else if (line[i] == '"')
      quoted = !quoted;
    else if (line[i] == ',' && !quoted)
      cells.emplace_back();
    else
      cells.back() += line[i];
  }
  return cells;
}

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::size_t column(const std::string& name) const {
    const auto at = std::find(header.begin(), header.end(), name);
    EXPECT_NE(at, header.end()) << name;
    return static_cast<std::size_t>(at - header.begin());
  }
  std::string cell(std::size_t row, const std::string& name) const {
    return rows.at(row).at(column(name));
  }
};

// The CSV; every line must be complete and have the header's column count.
Table read_table(const fs::path& path) {
  Table table;
  const std::string text = slurp(path);
  EXPECT_TRUE(text.empty() || text.back() == '\n') << path << " ends inside a line";
  std::istringstream lines(text);
  std::string line;
  if (std::getline(lines, line)) table.header = split(line);
  while (std::getline(lines, line)) {
    table.rows.push_back(split(line));
    EXPECT_EQ(table.rows.back().size(), table.header.size()) << line;
  }
  return table;
}

// key -> the row without sim_wall_s (host seconds, the one column that differs per run).
std::map<std::string, std::vector<std::string>> rows_by_key(const Table& table) {
  std::map<std::string, std::vector<std::string>> out;
  const std::size_t wall = table.column("sim_wall_s");
  for (auto row : table.rows) {
    row.erase(row.begin() + static_cast<std::ptrdiff_t>(wall));
    EXPECT_TRUE(out.emplace(row.front(), row).second) << "point " << row.front() << " twice";
  }
  return out;
}

pid_t start(const std::vector<std::string>& argv, const fs::path& err_path) {
  return opsim::test::start_process(argv, err_path);
}

std::string opsim_binary() {
  return std::string(OPSIM_BINARY_DIR) + "/bin/opsim";
}

// Waits for `pid`; kills its process group after `timeout_s`. Returns the wait status.
int wait_for(pid_t pid, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ADD_FAILURE() << "process " << pid << " did not end within " << timeout_s << " s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status;
}

std::size_t line_count(const fs::path& path) {
  const std::string text = slurp(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

void wait_for_rows(const fs::path& csv, std::size_t rows, pid_t pid) {
  int status = 0;
  while (line_count(csv) < rows + 1 && ::waitpid(pid, &status, WNOHANG) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// Whether a live (not zombie) process of group `group` exists, read from /proc.
bool group_alive(pid_t group) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = slurp(entry.path() / "stat");
    const std::size_t paren = stat.rfind(')');  // the command may hold spaces
    if (paren == std::string::npos) continue;
    std::istringstream fields(stat.substr(paren + 2));
    std::string state;
    pid_t ppid = 0, pgrp = 0;
    if (fields >> state >> ppid >> pgrp && pgrp == group && state != "Z") return true;
  }
  return false;
}

// Whether every process of group `group` (the sweep and its children) is gone within
// `timeout_s`: children die with their parent.
bool group_ends_within(pid_t group, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!group_alive(group)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-group, SIGKILL);
  return false;
}

TEST(Sweep, KilledAtARandomMomentAndRerunEndsWithTheRowsOfAnUninterruptedRun) {
  const fs::path spec = write_spec("thousand.yaml", thousand_point_spec());
  const fs::path reference = scratch_dir() / "reference.csv", csv = scratch_dir() / "killed.csv";
  const auto uninterrupted = opsim("sweep " + spec.string() + " -o " + reference.string());
  ASSERT_EQ(uninterrupted.exit_code, 0) << uninterrupted.err;

  // A moment after the first rows, anywhere up to most of the sweep.
  const unsigned seed = std::random_device{}();
  std::mt19937 random(seed);
  const std::size_t kill_after_rows = std::uniform_int_distribution<std::size_t>(1, 900)(random);
  const pid_t pid =
      start({opsim_binary(), "sweep", spec.string(), "-o", csv.string()}, scratch_dir() / "err");
  wait_for_rows(csv, kill_after_rows, pid);
  std::this_thread::sleep_for(
      std::chrono::microseconds(std::uniform_int_distribution<int>(0, 20000)(random)));
  ::kill(pid, SIGKILL);
  wait_for(pid, 30);
  const std::size_t rows_at_kill = line_count(csv) - 1;
  SCOPED_TRACE("seed " + std::to_string(seed) + ", killed at " + std::to_string(rows_at_kill) +
               " rows");
  ASSERT_LT(rows_at_kill, 1000u) << "the sweep ended before the kill";

  const auto resumed = opsim("sweep " + spec.string() + " -o " + csv.string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(" of 1000 points done, resuming"), std::string::npos) << resumed.err;
  const Table table = read_table(csv);
  EXPECT_EQ(table.rows.size(), 1000u);
  EXPECT_EQ(rows_by_key(table), rows_by_key(read_table(reference)));
  // The finished file is in grid order, as an uninterrupted run writes it.
  for (std::size_t i = 0; i < table.rows.size(); ++i)
    ASSERT_EQ(table.cell(i, "point"), std::to_string(i));
}

TEST(Sweep, ASimulationDiesWithTheSweepThatStartedIt) {
  // A ring over 2048 GPUs takes seconds to simulate; its sweep is killed a moment after it
  // starts. The simulation must not run on alone.
  const fs::path spec = write_spec("orphan.yaml",
                                   "topologies: [nvlink-ring:2048]\nstrategies: [ring]\n"
                                   "bytes: [16MB]\ncomm_only: true\n");
  const fs::path csv = scratch_dir() / "orphan.csv";
  const pid_t pid =
      start({opsim_binary(), "sweep", spec.string(), "-o", csv.string()}, scratch_dir() / "err");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (opsim::test::children_of(pid).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_FALSE(opsim::test::children_of(pid).empty()) << "no simulation process appeared";
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(pid, SIGKILL);
  wait_for(pid, 10);
  EXPECT_TRUE(group_ends_within(pid, 1.0)) << "the simulation outlived its sweep";
  EXPECT_EQ(read_table(csv).rows.size(), 0u);
}

// The child of `parent` whose environment says it is MPI rank `rank`, or 0.
pid_t rank_process(pid_t parent, int rank) {
  for (const pid_t child : opsim::test::children_of(parent)) {
    const std::string environ = slurp("/proc/" + std::to_string(child) + "/environ");
    if (environ.find("OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + '\0') != std::string::npos)
      return child;
  }
  return 0;
}

bool mpirun_present() {
  return std::system("command -v mpirun >/dev/null 2>&1") == 0;
}

TEST(SweepMpi, ARankKilledMidSweepAndRerunEndsWithTheRowsOfASerialRun) {
  if (!mpirun_present()) GTEST_SKIP() << "mpirun is not installed (Debian: openmpi-bin)";
  std::ostringstream text;
  text << "topologies: [pcie-switch-4gpu]\nstrategies: [tree, split]\ncomm_only: true\nbytes: [";
  for (int i = 1; i <= 200; ++i) text << (i > 1 ? ", " : "") << i << "KiB";
  text << "]\n";
  const fs::path spec = write_spec("mpi.yaml", text.str());
  const fs::path serial = scratch_dir() / "serial.csv", csv = scratch_dir() / "mpi.csv";
  const auto reference = opsim("sweep " + spec.string() + " -o " + serial.string());
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  const std::vector<std::string> mpirun = {
      "mpirun", "--allow-run-as-root", "--oversubscribe", "-n",
      "4",      opsim_binary(),        "sweep",           spec.string(),
      "-o",     csv.string()};

  const unsigned seed = std::random_device{}();
  const std::size_t kill_after_rows = 20 + seed % 300;
  const pid_t pid = start(mpirun, scratch_dir() / "mpi-err");
  wait_for_rows(csv, kill_after_rows, pid);
  const pid_t victim = rank_process(pid, 2);
  ASSERT_GT(victim, 0) << "no rank 2 among mpirun's children";
  ::kill(victim, SIGKILL);
  const int status = wait_for(pid, 60);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "mpirun ended well without rank 2";
  const std::size_t rows_at_kill = line_count(csv) - 1;
  SCOPED_TRACE("killed rank 2 at " + std::to_string(rows_at_kill) + " rows");
  ASSERT_LT(rows_at_kill, 400u) << "the sweep ended before the kill";
  (void)read_table(csv);  // valid CSV: every line complete

  const pid_t rerun = start(mpirun, scratch_dir() / "mpi-err2");
  const int rerun_status = wait_for(rerun, 120);
  ASSERT_TRUE(WIFEXITED(rerun_status) && WEXITSTATUS(rerun_status) == 0)
      << slurp(scratch_dir() / "mpi-err2");
  EXPECT_NE(slurp(scratch_dir() / "mpi-err2").find(" of 400 points done, resuming"),
            std::string::npos);
  const Table table = read_table(csv);
  EXPECT_EQ(table.rows.size(), 400u);
  EXPECT_EQ(rows_by_key(table), rows_by_key(read_table(serial)));

  // One worker rank running two points at once (-j 2) gives the same rows.
  const fs::path paired = scratch_dir() / "mpi-j2.csv";
  const pid_t two =
      start({"mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2", opsim_binary(), "sweep",
             spec.string(), "-o", paired.string(), "-j", "2"},
            scratch_dir() / "mpi-err3");
  const int two_status = wait_for(two, 120);
  ASSERT_TRUE(WIFEXITED(two_status) && WEXITSTATUS(two_status) == 0)
      << slurp(scratch_dir() / "mpi-err3");
  EXPECT_EQ(rows_by_key(read_table(paired)), rows_by_key(read_table(serial)));
}

// Starts the 1000-point sweep, sends `signal` once 30 rows are on disk (to the whole process
// group when `group`, as a terminal's Ctrl-C or a batch system does), and checks the stop:
// exit 128 + signal, one line, the rows kept and none blaming the signal; then the rerun.
void stop_and_resume(int signal, bool group, const std::string& name) {
  const fs::path spec = write_spec(name + ".yaml", thousand_point_spec());
  const fs::path csv = scratch_dir() / (name + ".csv"), err = scratch_dir() / (name + "-err");
  const pid_t pid = start({opsim_binary(), "sweep", spec.string(), "-o", csv.string()}, err);
  wait_for_rows(csv, 30, pid);
  ::kill(group ? -pid : pid, signal);
  const int status = wait_for(pid, 30);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping";
  EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
  const std::string message = slurp(err);
  EXPECT_EQ(message.rfind("opsim: sweep stopped by signal " + std::to_string(signal) + ": ", 0), 0u)
      << message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
  EXPECT_NE(message.find("rerun the same command to resume"), std::string::npos) << message;
  const Table stopped = read_table(csv);
  EXPECT_GE(stopped.rows.size(), 30u);
  EXPECT_LT(stopped.rows.size(), 1000u);
  for (std::size_t i = 0; i < stopped.rows.size(); ++i)
    EXPECT_EQ(stopped.cell(i, "error"), "") << "point " << stopped.cell(i, "point");
  const auto resumed = opsim("sweep " + spec.string() + " -o " + csv.string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(
      resumed.err.find(std::to_string(stopped.rows.size()) + " of 1000 points done, resuming"),
      std::string::npos)
      << resumed.err;
  EXPECT_EQ(read_table(csv).rows.size(), 1000u);
}

TEST(Sweep, InterruptStopsHandingOutKeepsTheRowsAndExitsWithTheSignal) {
  stop_and_resume(SIGINT, false, "interrupt");
}

TEST(Sweep, TerminateSentToTheWholeGroupLeavesNoRowBlamingTheSignal) {
  stop_and_resume(SIGTERM, true, "terminate");
}

TEST(Sweep, APointWhoseProcessIsKilledIsAnErrorRowAndTheOthersFinish) {
  // A ring over 1024 GPUs takes seconds: long enough to kill its process, as the kernel's
  // out-of-memory killer would, once the small point beside it is done.
  const fs::path spec = write_spec("crash.yaml",
                                   "topologies: [nvlink-ring:1024, pcie-switch-4gpu]\n"
                                   "strategies: [ring]\nbytes: [16MB]\ncomm_only: true\n");
  const fs::path csv = scratch_dir() / "crash.csv", err = scratch_dir() / "crash-err";
  const pid_t pid = start({opsim_binary(), "sweep", spec.string(), "-o", csv.string()}, err);
  wait_for_rows(csv, 1, pid);
  std::vector<pid_t> children = opsim::test::children_of(pid);
  ASSERT_EQ(children.size(), 1u) << "the long point is not running alone";
  ::kill(children.front(), SIGKILL);
  const int status = wait_for(pid, 60);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  const std::string message = slurp(err);
  EXPECT_EQ(message.rfind("opsim: internal error: topology=nvlink-ring:1024, bytes=16000000, "
                          "comm_only=true, strategy=ring: child process killed by signal 9 "
                          "(Killed) (1 of 2 points failed",
                          0),
            0u)
      << message;
  const Table t = read_table(csv);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.cell(0, "error"), "child process killed by signal 9 (Killed)");
  EXPECT_EQ(t.cell(1, "error"), "");
  EXPECT_NEAR(std::stod(t.cell(1, "makespan_s")), 2.0 * 3 / 4 * 16e6 / 16e9, 1e-9);
}

const char* const kSmallSpec =
    "topologies: [pcie-switch-4gpu]\nstrategies: [tree, split, ring]\n"
    "bytes: [16MB, 160MB]\ncomm_only: true\n";

TEST(Sweep, ATornLastLineIsCutOffAndItsPointRunsAgain) {
  const fs::path spec = write_spec("small.yaml", kSmallSpec);
  const fs::path csv = scratch_dir() / "torn.csv";
  ASSERT_EQ(opsim("sweep " + spec.string() + " -o " + csv.string()).exit_code, 0);
  const std::string whole = slurp(csv);
  // As if killed in the middle of appending the last row.
  std::ofstream(csv, std::ios::trunc) << whole.substr(0, whole.size() - 30);
  const auto resumed = opsim("sweep " + spec.string() + " -o " + csv.string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("5 of 6 points done, resuming"), std::string::npos) << resumed.err;
  EXPECT_EQ(rows_by_key(read_table(csv)).size(), 6u);
  EXPECT_EQ(read_table(csv).rows.size(), 6u);
}

TEST(Sweep, AFinishedSweepRerunRunsNothing) {
  const fs::path spec = write_spec("again.yaml", kSmallSpec);
  const fs::path csv = scratch_dir() / "again.csv";
  ASSERT_EQ(opsim("sweep " + spec.string() + " -o " + csv.string()).exit_code, 0);
  const std::string first = slurp(csv);
  const auto again = opsim("sweep " + spec.string() + " -o " + csv.string());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("6 of 6 points done, resuming"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(csv), first);  // sim_wall_s too: no point ran again
}

TEST(Sweep, AChangedSpecIsRefusedUnlessRestarted) {
  const fs::path spec = write_spec("changed.yaml", kSmallSpec);
  const fs::path csv = scratch_dir() / "changed.csv";
  ASSERT_EQ(opsim("sweep " + spec.string() + " -o " + csv.string()).exit_code, 0);
  const std::string before = slurp(csv);
  // One more size: the same columns, another set of points.
  write_spec("changed.yaml", std::string(kSmallSpec) + "gpus: [2, 4]\n");
  auto refused = opsim("sweep " + spec.string() + " -o " + csv.string());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, "opsim: error: " + csv.string() +
                             ": holds other columns than this sweep writes (another spec, or "
                             "not a sweep's output); rerun with --restart to replace it, or "
                             "choose another --out\n");
  write_spec("changed.yaml",
             "topologies: [pcie-switch-4gpu]\nstrategies: [tree, split, ring]\n"
             "bytes: [16MB, 160MB, 1GB]\ncomm_only: true\n");
  refused = opsim("sweep " + spec.string() + " -o " + csv.string());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, "opsim: error: " + csv.string() +
                             ":2: a row of another sweep: the spec changed since it was "
                             "written; rerun with --restart to start over, or choose another "
                             "--out\n");
  EXPECT_EQ(slurp(csv), before);  // untouched
  const auto restarted = opsim("sweep " + spec.string() + " -o " + csv.string() + " --restart");
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
  EXPECT_EQ(read_table(csv).rows.size(), 9u);
}

TEST(Sweep, AnOutputThatIsASymlinkOrFifoIsRefusedAndLeftAlone) {
  const fs::path spec = write_spec("links.yaml", kSmallSpec);
  const fs::path target = scratch_dir() / "target.csv", link = scratch_dir() / "link.csv";
  std::ofstream(target) << "precious\n";
  fs::create_symlink(target, link);
  const auto r = opsim("sweep " + spec.string() + " -o " + link.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("link.csv: cannot write the results: it is a symbolic link"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(target), "precious\n");
  const fs::path fifo = scratch_dir() / "fifo.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto f = opsim("sweep " + spec.string() + " -o " + fifo.string());
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("fifo.csv: cannot write the results: it is a FIFO"), std::string::npos)
      << f.err;
}

TEST(Sweep, AnotherFileIsNotOverwrittenWithoutRestart) {
  const fs::path spec = write_spec("other.yaml", kSmallSpec);
  const fs::path csv = scratch_dir() / "other.csv";
  std::ofstream(csv) << "name,value\na,1\n";
  const auto r = opsim("sweep " + spec.string() + " -o " + csv.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(slurp(csv), "name,value\na,1\n");
}

TEST(Sweep, SetAndLinkScaleAxesChangeTheMachine) {
  // Tree on four GPUs behind a 16 GB/s switch, 160 MB: 60 ms. GPU0's own link carries
  // everything: at 8 GB/s the sweep takes twice as long, as it does with every link halved.
  const fs::path spec = write_spec(
      "set.yaml",
      "topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [160MB]\ncomm_only: true\n"
      "link_bandwidth_scale: [1, 0.5]\nset: {gpu0-sw0.bandwidth: [16GB/s, 8GB/s]}\n");
  const fs::path csv = scratch_dir() / "set.csv";
  const auto r = opsim("sweep " + spec.string() + " -o " + csv.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Table t = read_table(csv);
  ASSERT_EQ(t.rows.size(), 4u);
  std::map<std::pair<std::string, std::string>, double> makespan;
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    makespan[{t.cell(i, "link_bandwidth_scale"), t.cell(i, "gpu0-sw0.bandwidth")}] =
        std::stod(t.cell(i, "makespan_s"));
  EXPECT_NEAR((makespan[{"1", "16GB/s"}]), 0.060, 1e-9);
  EXPECT_NEAR((makespan[{"1", "8GB/s"}]), 0.120, 1e-9);
  // Every link halved (--set applies after the scale, so gpu0-sw0 is set to half too).
  EXPECT_NEAR((makespan[{"0.5", "8GB/s"}]), 0.120, 1e-9);
}

TEST(Sweep, CollectivesReportNcclBandwidthsAndAnAlgorithmThatDoesNotApplyIsAnErrorRow) {
  // Ring allreduce of 64 MB on an NVLink ring of 4: the row holds what `opsim collective` says.
  const fs::path spec = write_spec("coll.yaml",
                                   "topologies: [nvlink-ring:4]\ncollectives: [allreduce]\n"
                                   "algorithms: [ring, no-such-algorithm]\nbytes: [64MB]\n");
  const fs::path csv = scratch_dir() / "coll.csv";
  const auto r = opsim("sweep " + spec.string() + " -o " + csv.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("(1 of 2 points failed; the error column names each)"), std::string::npos)
      << r.err;
  const Table t = read_table(csv);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.cell(0, "op"), "allreduce");
  EXPECT_EQ(t.cell(0, "algorithm"), "ring");
  // The same point through `opsim collective` (tuner's protocol, both ring directions).
  const auto direct =
      opsim("collective --topology nvlink-ring:4 --algorithm ring --sizes 64MB --format csv");
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  const std::string row = direct.out.substr(direct.out.find('\n') + 1);
  std::vector<std::string> fields;
  std::stringstream cells(row);
  for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
  ASSERT_GE(fields.size(), 9u) << direct.out;  // ...,time_s,algbw_GBps,busbw_GBps,...
  EXPECT_NEAR(std::stod(t.cell(0, "algbw_GBps")), std::stod(fields[7]), 1e-6);
  EXPECT_NEAR(std::stod(t.cell(0, "busbw_GBps")), std::stod(fields[8]), 1e-6);
  EXPECT_NEAR(std::stod(t.cell(0, "busbw_GBps")) / std::stod(t.cell(0, "algbw_GBps")), 1.5, 1e-6);
  EXPECT_TRUE(t.cell(0, "error").empty());
  EXPECT_EQ(t.cell(1, "algorithm"), "no-such-algorithm");
  EXPECT_TRUE(t.cell(1, "makespan_s").empty());
  EXPECT_NE(t.cell(1, "error").find("no-such-algorithm"), std::string::npos) << t.cell(1, "error");
}

TEST(Sweep, CollectivePointsRunTheSizeNcclTestsRunsAndAnEmptyOneIsAnErrorRow) {
  // all_gather on 8 GPUs: 1 MB runs as 8 shares of 31,248 floats (999,936 B), as `opsim
  // collective` runs it; 64 B leaves not one 16-byte unit a rank.
  const fs::path spec = write_spec("nccl_sizes.yaml",
                                   "topologies: [dgx-h100]\ncollectives: [all_gather]\n"
                                   "bytes: [1MB, 64B]\n");
  const fs::path csv = scratch_dir() / "nccl_sizes.csv";
  const auto r = opsim("sweep " + spec.string() + " -o " + csv.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const Table t = read_table(csv);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.cell(0, "bytes"), "1000000");
  const double makespan_s = std::stod(t.cell(0, "makespan_s"));
  EXPECT_NEAR(std::stod(t.cell(0, "algbw_GBps")), 999936 / makespan_s / 1e9, 1e-6);
  const auto direct = opsim("collective --op all_gather --topology dgx-h100 --sizes 1MB");
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_NE(direct.out.find("999936         31248"), std::string::npos) << direct.out;
  EXPECT_TRUE(t.cell(1, "makespan_s").empty());
  EXPECT_NE(t.cell(1, "error").find("below 128 B runs as 0 bytes"), std::string::npos)
      << t.cell(1, "error");
}

TEST(Sweep, GpusPerServerIsAnAxisOfCollectives) {
  // A ring over the links alone on ib-cluster:4x8@400: G ranks per server cross the servers on
  // G rails of 50 GB/s NICs; more GPUs per server than a server has is an error row.
  const fs::path spec = write_spec("per_server.yaml",
                                   "topologies: [ib-cluster:4x8]\ncollectives: [allreduce]\n"
                                   "algorithms: [ring]\nprotocols: [wire]\n"
                                   "gpus_per_server: [1, 2, 9]\nbytes: [1GB]\n");
  const fs::path csv = scratch_dir() / "per_server.csv";
  const auto r = opsim("sweep " + spec.string() + " -o " + csv.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const Table t = read_table(csv);
  ASSERT_EQ(t.rows.size(), 3u);
  for (std::size_t i = 0; i < 2; ++i) {
    const double per_server = std::stod(t.cell(i, "gpus_per_server"));
    EXPECT_EQ(std::stod(t.cell(i, "gpus_used")), 4 * per_server);
    EXPECT_NEAR(std::stod(t.cell(i, "busbw_GBps")), 50 * per_server, 0.5 * per_server);
  }
  EXPECT_NE(t.cell(2, "error").find("9 GPUs per server"), std::string::npos) << t.cell(2, "error");
}

TEST(Sweep, ProtocolsAreAnAxisAndEachRowMatchesOpsimCollective) {
  // LL carries half its bytes as flags, so on a bandwidth-bound 64 MB ring it is far slower
  // than Simple; an unknown protocol is an error row naming it.
  const fs::path spec = write_spec("protocols.yaml",
                                   "topologies: [nvlink-ring:4]\ncollectives: [allreduce]\n"
                                   "algorithms: [ring]\nprotocols: [LL, Simple, no-such]\n"
                                   "bytes: [64MB]\n");
  const fs::path csv = scratch_dir() / "protocols.csv";
  const auto r = opsim("sweep " + spec.string() + " -o " + csv.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const Table t = read_table(csv);
  ASSERT_EQ(t.rows.size(), 3u);
  std::map<std::string, double> busbw;
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string protocol = t.cell(i, "protocol");
    const auto direct = opsim("collective --topology nvlink-ring:4 --algorithm ring --protocol " +
                              protocol + " --sizes 64MB --format json");
    ASSERT_EQ(direct.exit_code, 0) << direct.err;
    const std::string key = "\"busbw_GBps\":";
    const std::size_t at = direct.out.find(key);
    ASSERT_NE(at, std::string::npos) << direct.out;
    busbw[protocol] = std::stod(t.cell(i, "busbw_GBps"));
    EXPECT_NEAR(busbw[protocol], std::stod(direct.out.substr(at + key.size())), 1e-6) << protocol;
  }
  EXPECT_LT(busbw["LL"], 0.6 * busbw["Simple"]);
  EXPECT_EQ(t.cell(2, "protocol"), "no-such");
  EXPECT_NE(t.cell(2, "error").find("no-such"), std::string::npos) << t.cell(2, "error");
}

TEST(Sweep, WorkloadPointsMatchOpsimSim) {
  const std::string workload =
      std::string(OPSIM_SOURCE_DIR) + "/experiments/workloads/load_and_multiply.json";
  const fs::path spec = write_spec("workload.yaml", "workloads: [" + workload + "]\n");
  const auto sweep = opsim("sweep " + spec.string());
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  const auto sim = opsim("sim " + workload + " --format json");
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const std::size_t at = sim.out.find("\"makespan_s\": ");
  ASSERT_NE(at, std::string::npos) << sim.out;
  const double expected = std::stod(sim.out.substr(at + 14));
  std::istringstream lines(sweep.out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_NEAR(std::stod(split(row).at(2)), expected, expected * 1e-9) << row;
}

TEST(Sweep, TracePointsReplayTheRecordedStepAsOpsimReplayDoes) {
  const std::string trace = std::string(OPSIM_SOURCE_DIR) + "/tests/data/pytorch/mlp-cuda.json.gz";
  const fs::path spec =
      write_spec("replay.yaml", "traces: [" + trace + "]\nkernels: [recorded, modelled]\n");
  const fs::path csv = scratch_dir() / "replay.csv";
  const auto sweep = opsim("sweep " + spec.string() + " -o " + csv.string());
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  const auto replay = opsim("replay " + trace + " --format json");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto count = [&](const std::string& name) {
    const std::size_t at = replay.out.find("\"" + name + "\": ");
    EXPECT_NE(at, std::string::npos) << name;
    return std::stod(replay.out.substr(at + name.size() + 4));
  };
  const double ops = count("gpu_ops") + count("host_ops");
  const double step_s = count("replayed_s");
  const Table t = read_table(csv);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.cell(0, "kernels"), "recorded");
  EXPECT_EQ(t.cell(1, "kernels"), "modelled");
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(std::stod(t.cell(i, "ops")), ops);
    EXPECT_EQ(t.cell(i, "error"), "");
  }
  // The recorded step lies inside the replayed run: the run is at least as long.
  EXPECT_GE(std::stod(t.cell(0, "makespan_s")), step_s);
}

TEST(Sweep, ZippedAxesVaryTogether) {
  const fs::path spec = write_spec("zip.yaml",
                                   "topologies: [nvlink-ring:4, nvlink-ring:8]\ngpus: [4, 8]\n"
                                   "strategies: [ring]\nbytes: [160MB]\ncomm_only: true\n"
                                   "zip: [[topologies, gpus]]\n");
  const auto r = opsim("sweep " + spec.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(",nvlink-ring:4,4,160000000,true,ring,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",nvlink-ring:8,8,160000000,true,ring,"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3) << r.out;  // header + 2 points
}

TEST(Sweep, ShardsMergeIntoTheWholeSweepAndAMissingShardIsReported) {
  const fs::path spec = write_spec("shards.yaml", kSmallSpec);
  const fs::path whole = scratch_dir() / "whole.csv";
  ASSERT_EQ(opsim("sweep " + spec.string() + " -o " + whole.string()).exit_code, 0);
  std::string shards;
  for (int i = 1; i <= 3; ++i) {
    const fs::path shard = scratch_dir() / ("shard" + std::to_string(i) + ".csv");
    const auto r = opsim("sweep " + spec.string() + " --shard " + std::to_string(i) + "/3 -o " +
                         shard.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_table(shard).rows.size(), 2u);
    shards += " " + shard.string();
  }
  const fs::path merged = scratch_dir() / "merged.csv";
  // Shard 1 given twice: its rows are duplicates of themselves.
  const auto r = opsim("sweep merge" + shards + " " + (scratch_dir() / "shard1.csv").string() +
                       " -o " + merged.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("6 of 6 points, 2 duplicate rows dropped"), std::string::npos) << r.err;
  EXPECT_EQ(rows_by_key(read_table(merged)), rows_by_key(read_table(whole)));

  const auto missing = opsim("sweep merge " + (scratch_dir() / "shard1.csv").string() + " " +
                             (scratch_dir() / "shard3.csv").string() + " -o " + merged.string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("2 of 6 points missing (grid indexes 1, 4)"), std::string::npos)
      << missing.err;

  // A point held twice with different results: reported, the first input's row kept.
  Table shard2 = read_table(scratch_dir() / "shard2.csv");
  std::string edited = slurp(scratch_dir() / "shard2.csv");
  const std::string makespan = shard2.cell(0, "makespan_s");
  edited.replace(edited.find("," + makespan + ","), makespan.size() + 2, ",12345,");
  std::ofstream(scratch_dir() / "edited.csv") << edited;
  const auto conflict = opsim("sweep merge" + shards + " " +
                              (scratch_dir() / "edited.csv").string() + " -o " + merged.string());
  ASSERT_EQ(conflict.exit_code, 0) << conflict.err;
  EXPECT_NE(conflict.err.find("2 duplicate rows dropped (1 with different results, the first "
                              "input's kept: points " +
                              shard2.cell(0, "point") + ")"),
            std::string::npos)
      << conflict.err;
  EXPECT_EQ(rows_by_key(read_table(merged)), rows_by_key(read_table(whole)));
}

TEST(Sweep, SpecErrorsNameTheFileLineAndKey) {
  const std::pair<const char*, const char*> cases[] = {
      {"topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [1MB, 2MB]\ngpus: [2]\n"
       "zip: [[bytes, gpus]]\n",
       "e.yaml:5:15: zip: 'gpus' has 1 values, 'bytes' 2: zipped axes need as many values each"},
      {"topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [1MB]\n"
       "set: {bandwidth: [1GB/s]}\n",
       "e.yaml:4:7: set: 'bandwidth' is not NAME.FIELD (e.g. gpu0-sw0.bandwidth)"},
      {"topologies: [pcie-switch-4gpu]\nstrategies: [tree]\ncollectives: [allreduce]\n"
       "bytes: [1MB]\n",
       "e.yaml:3:14: collectives: a spec runs one kind of point"},
      {"topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [1MB]\n"
       "link_bandwidth_scale: [0]\n",
       "e.yaml:4:24: link_bandwidth_scale: '0' is not a number from above 0 to 1e9"},
      {"topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [1MB]\nalgorithms: [ring]\n",
       "e.yaml:4:13: algorithms: does not apply to strategy sweeps"},
      {"topologies: [pcie-switch-4gpu]\nstrategies: [tree, tree]\nbytes: [1MB]\n",
       "e.yaml:2:13: strategies: 'tree' appears twice"},
  };
  for (const auto& [text, expected] : cases) {
    write_spec("e.yaml", text);
    const auto r = opsim("sweep e.yaml");
    EXPECT_EQ(r.exit_code, 2) << text;
    EXPECT_EQ(r.err.rfind(std::string("opsim: error: ") + expected, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
