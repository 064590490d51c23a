// The command line given what a careful user or an attacker would give it: every case
// ends within its time limit with exit code 2, one line on stderr naming the file, the
// place and the cause, and nothing left behind in the directory it ran in; and the inputs
// that used to hang (a FIFO, a long chain) finish.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>

#include "tests/support/opsim_command.hpp"

namespace {

namespace fs = std::filesystem;

using opsim::test::CommandResult;
using opsim::test::slurp;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A copy of {"name": "a", ...} inside a one-op workload on desktop-1gpu.
std::string one_op(const std::string& op) {
  return R"({"topology": "desktop-1gpu", "ops": [)" + op + "]}";
}

struct BadCase {
  const char* name;
  std::function<void(const fs::path& dir)> prepare;  // writes the inputs into `dir`
  const char* args;                                  // "PROGRAM ARGS", run in `dir`
  const char* expected;                              // part of the one line on stderr
  const char* program = "opsim";                     // or "opsim-gui", run offscreen
};

void write_workload(const fs::path& dir, const std::string& text) {
  write_text(dir / "w.json", text);
}

// t.json: opsim's own trace of a one-op workload, claiming a trillion ops.
void write_forged_trace(const fs::path& dir) {
  write_workload(dir, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
  const CommandResult r = opsim::test::run_program("opsim", "sim w.json --trace t.json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = slurp(dir / "t.json");
  const std::size_t at = text.find("\"op_count\":1");
  ASSERT_NE(at, std::string::npos) << text.substr(0, 400);
  text.replace(at, 12, "\"op_count\":1000000000000");
  write_text(dir / "t.json", text);
  fs::remove(dir / "w.json");
  fs::remove(dir / "stdout");
  fs::remove(dir / "stderr");
}

// A validation suite S/ whose first workload validates and whose second cannot be
// simulated (its ops queue past the simulated time range), and a profile p.yaml for both.
void write_failing_suite(const fs::path& dir) {
  fs::create_directory(dir / "S");
  write_text(dir / "p.yaml", "name: p\ndevices:\n  - {name: cpu0, kind: cpu}\n");
  write_text(dir / "S" / "a.json",
             R"({"ops": [{"name": "a", "kind": "compute", "device": "cpu0", "flops": 1e6}]})");
  write_text(dir / "S" / "b.json", R"({"ops": [
    {"name": "a", "kind": "dispatch", "device": "cpu0", "seconds": 5e9},
    {"name": "b", "kind": "dispatch", "device": "cpu0", "seconds": 5e9, "after": ["a"]}]})");
}

// m.yaml: cpu0 and gpu0 joined by a PCIe link; `gpu` adds to gpu0's map (and may add devices
// after it), `link` replaces the link's "type: pcie".
void write_machine(const fs::path& dir, const std::string& gpu, const std::string& link) {
  write_text(dir / "m.yaml",
             "name: m\ndevices:\n  - {name: cpu0, kind: cpu}\n"
             "  - {name: gpu0, kind: gpu" +
                 (gpu.starts_with(",") ? gpu + "}" : "}" + gpu) +
                 "\nlinks:\n  - {between: [gpu0, cpu0], " +
                 (link.starts_with("type:") ? link
                  : link.empty()            ? "type: pcie"
                                            : "type: pcie, " + link) +
                 "}\n");
}

const BadCase kCases[] = {
    {"fifo as workload", [](const fs::path& d) { ::mkfifo((d / "w.json").c_str(), 0600); },
     "sim w.json", "w.json: is a FIFO (named pipe), not a workload file"},
    {"directory as workload", [](const fs::path& d) { fs::create_directory(d / "w.json"); },
     "sim w.json", "File is actually a directory: w.json"},
    {"device as workload", [](const fs::path&) {}, "sim /dev/zero",
     "/dev/zero: is a device, not a workload file"},
    {"number beyond a double",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "flops": 1e400})"));
     },
     "sim w.json", "w.json:1:80: invalid JSON: number overflow parsing '1e400'"},
    {"key given twice",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "flops": 1, "flops": 2})"));
     },
     "sim w.json", "w.json: ops[0]: key 'flops' appears twice"},
    {"half a byte",
     [](const fs::path& d) {
       write_workload(
           d,
           one_op(R"({"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": 0.5})"));
     },
     "sim w.json", "w.json: ops[0] ('a'): 'bytes' must be a whole number of bytes, got 0.5"},
    {"bytes beyond 2^53",
     [](const fs::path& d) {
       write_workload(
           d,
           one_op(R"({"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": 1e30})"));
     },
     "sim w.json", "'bytes' must be at most 9007199254740992"},
    {"negative window",
     [](const fs::path& d) {
       write_text(
           d / "w.json",
           R"({"topology": "desktop-1gpu", "max_in_flight": -1, "ops": [{"name": "a", "kind": "compute"}]})");
     },
     "sim w.json", "w.json: \"max_in_flight\" must be a whole number from 0"},
    {"allocation beyond the GPU",
     [](const fs::path& d) {
       write_workload(
           d,
           one_op(
               R"({"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": 8, "alloc": "1TB"})"));
     },
     "sim w.json", "w.json: ops[0] ('a'): 'alloc' of 1 TB exceeds gpu0's memory of 11 GB"},
    {"release of what was never allocated",
     [](const fs::path& d) {
       write_workload(
           d,
           one_op(
               R"({"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": 8, "release": "1MB"})"));
     },
     "sim w.json", "w.json: the ops release 1 MB on gpu0 but allocate only 0 B"},
    {"ill-formed UTF-8",
     [](const fs::path& d) {
       write_workload(d, one_op("{\"name\": \"a\xff\", \"kind\": \"compute\"}"));
     },
     "sim w.json", "ill-formed UTF-8 byte; last read: '\"a\\xff'"},
    {"GEMM side beyond 2^30",
     [](const fs::path& d) {
       write_workload(
           d,
           one_op(
               R"({"name": "a", "kind": "compute", "device": "gpu0", "gemm": {"m": 1e19, "n": 1e19, "k": 1e19}})"));
     },
     "sim w.json", "'gemm.m' must be a whole number from 1 to 2^30"},
    {"a compare past 292 simulated years", [](const fs::path&) {},
     "compare --bytes 8PB --link-bandwidth-scale 1e-6",
     "op 'gather gpu1→gpu0' (#0) alone takes 5e+11 s, beyond the 9.2e9 s (292 years)"},
    {"a GEMM past 292 simulated years",
     [](const fs::path& d) {
       write_workload(
           d,
           one_op(
               R"({"name": "a", "kind": "compute", "device": "cpu0", "gemm": {"m": 1073741824, "n": 1073741824, "k": 1073741824}})"));
     },
     "sim w.json", "op 'a' (#0) alone takes 3.36e+15 s, beyond the 9.2e9 s"},
    {"ops that queue past 292 simulated years",
     [](const fs::path& d) {
       write_text(d / "w.json", R"({"topology": "desktop-1gpu", "ops": [
         {"name": "a", "kind": "dispatch", "device": "cpu0", "seconds": 5e9},
         {"name": "b", "kind": "dispatch", "device": "cpu0", "seconds": 5e9, "after": ["a"]}]})");
     },
     "sim w.json", "op 'b' (#1) would end at 1e+10 s of simulated time, beyond the 9.2e9 s"},
    {"sweep results into a missing directory",
     [](const fs::path& d) {
       write_text(d / "s.yaml",
                  "topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [1MB]\n");
     },
     "sweep s.yaml -o missing/x.csv",
     "missing/x.csv: cannot write the results: directory 'missing' does not exist"},
    {"profile into a missing directory", [](const fs::path&) {}, "calibrate --out missing/p.yaml",
     "missing/p.yaml: cannot write the profile: directory 'missing' does not exist"},
    {"trace directory that is a file", [](const fs::path& d) { write_text(d / "T", "a file"); },
     "compare --trace-dir T", "T: cannot write traces here: it exists and is not a directory"},
    {"png into a directory", [](const fs::path& d) { fs::create_directory(d / "p.png"); },
     "compare --png p.png", "p.png: cannot write the PNG: it is a directory"},
    {"bytes beyond 2^53 on the command line", [](const fs::path&) {}, "compare --bytes 1e30",
     "--bytes: '1e30' is more than 2^53 bytes (9 PB), the most opsim simulates"},
    {"zero GPUs", [](const fs::path&) {}, "compare --gpus 0",
     "--gpus: Value 0 not in range 2 to 1048576"},
    {"zero calibration repeats", [](const fs::path&) {}, "calibrate --repeats 0",
     "--repeats: Value 0 not in range 1 to 1000"},
    {"a ring too large for this machine's memory", [](const fs::path&) {},
     "compare --topology nvlink-ring:16384 --strategies ring",
     "ring on nvlink-ring:16384: about 805 million ops need at least"},
    {"a FIFO as topology file", [](const fs::path& d) { ::mkfifo((d / "m.yaml").c_str(), 0600); },
     "topology check m.yaml", "m.yaml: is a FIFO (named pipe), not a topology file"},
    {"a FIFO as sweep spec", [](const fs::path& d) { ::mkfifo((d / "s.yaml").c_str(), 0600); },
     "sweep s.yaml", "s.yaml: is a FIFO (named pipe), not a sweep spec"},
    {"a sweep key given twice",
     [](const fs::path& d) {
       write_text(d / "s.yaml",
                  "topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [1MB]\n"
                  "strategies: [ring]\n");
     },
     "sweep s.yaml", "s.yaml:4:1: key 'strategies' appears twice"},
    {"a topology name that is not UTF-8",
     [](const fs::path& d) {
       write_text(d / "m.yaml", "name: m\ndevices:\n  - {name: \"cpu\xff\", kind: cpu}\n");
     },
     "topology check m.yaml", "m.yaml:3:12: 'name' is not valid UTF-8"},
    {"a strategy that cannot run, refused before the others start", [](const fs::path&) {},
     "compare --topology pcie-switch:1024 --strategies ring,tree,split --comm-only "
     "--trace-dir T",
     "sync split: without reductions 1024 GPUs need 1071645696 dependencies"},
    {"trace written over a directory",
     [](const fs::path& d) {
       write_workload(
           d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0", "flops": 1e9})"));
       fs::create_directory(d / "t.json");
     },
     "sim w.json --trace t.json", "t.json: cannot write the trace: it is a directory"},
    // A run that fails after writing part of its output removes what it wrote: here ring's
    // trace and CSV, written before tree queues past the simulated time range, and the
    // directory the run made for them.
    {"a compare that fails after another strategy wrote its traces", [](const fs::path&) {},
     "compare --bytes 8PB --link-bandwidth-scale 1.6e-4 --strategies ring,tree --comm-only "
     "-j 1 --trace-dir T",
     "tree on pcie-switch-4gpu: op 'gather gpu1→gpu0' (#0) would end at 9.38e+09 s"},
    {"a validation suite that fails after one workload wrote its traces",
     [](const fs::path& d) { write_failing_suite(d); },
     "validate --suite S --profile p.yaml --repeats 1 --min-time 0 --trace-dir T/traces",
     "S/b.json: simulation: op 'b' (#1) would end at 1e+10 s"},
    // Rates beyond their physical bounds (hw_models/parameter_table.hpp), from each place a
    // machine's figures come from: a topology file (also a profile), --set, the scale flag.
    {"a link bandwidth of 1e30 in a topology file",
     [](const fs::path& d) { write_machine(d, "", "bandwidth: 1e30"); }, "topology check m.yaml",
     "m.yaml:6:52: 'bandwidth' must be at most 1PB/s, got '1e30'"},
    {"a link bandwidth of 1e30 from --set", [](const fs::path&) {},
     "compare --set gpu0-sw0.bandwidth=1e30",
     "--set gpu0-sw0.bandwidth=1e30: 'bandwidth' must be at most 1PB/s, got '1e30'"},
    {"a duplex bandwidth beyond 1 PB/s", [](const fs::path&) {},
     "compare --set gpu0-sw0.duplex_bandwidth=2PB/s",
     "'duplex_bandwidth' must be at most 1PB/s, got '2PB/s'"},
    {"a link bandwidth scaled beyond 1 PB/s", [](const fs::path&) {},
     "compare --link-bandwidth-scale 1e20",
     "--link-bandwidth-scale: link 'cpu0-sw0' would carry more than 1PB/s"},
    {"an Ethernet link of 1e30 bytes/s",
     [](const fs::path& d) { write_machine(d, "", "type: ethernet, bandwidth: 1e30"); },
     "topology check m.yaml", "'bandwidth' must be at most 1PB/s, got '1e30'"},
    {"a GPU peak beyond 1e18 flop/s", [](const fs::path&) {}, "compare --set gpu0.fp32_peak=1e19",
     "'fp32_peak' must be at most 1000PFLOPS, got '1e19'"},
    {"a GPU memory bandwidth beyond 1 PB/s", [](const fs::path&) {},
     "compare --set gpu1.memory_bandwidth=1e16",
     "'memory_bandwidth' must be at most 1PB/s, got '1e16'"},
    {"an SGEMM rate beyond 1e18 flop/s",
     [](const fs::path& d) { write_machine(d, ", sgemm_rates: [{n: 1024, rate: 1e19}]", ""); },
     "topology check m.yaml", "m.yaml:4:59: 'rate' must be at most 1000PFLOPS, got '1e19'"},
    {"a CPU clock of 1 THz", [](const fs::path&) {}, "compare --set cpu0.clock=1e12",
     "'clock' must be at most 100GHz, got '1e12'"},
    {"a DRAM channel beyond 1 PB/s", [](const fs::path&) {},
     "compare --set cpu0.dram.bandwidth_per_channel=1e30",
     "'bandwidth_per_channel' must be at most 1PB/s, got '1e30'"},
    {"a memory pass rate beyond 1 PB/s", [](const fs::path&) {},
     "compare --set 'cpu0.memory_pass_rates={working_set: 8MB, bandwidth: 1e30}'",
     "'bandwidth' must be at most 1PB/s, got '1e30'"},
    {"a disk read bandwidth beyond 1 PB/s",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
     },
     "sim w.json --set nvme0.read_bandwidth=1e30",
     "--set nvme0.read_bandwidth=1e30: 'read_bandwidth' must be at most 1PB/s, got '1e30'"},
    {"a disk of 1e12 IOPS",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
     },
     "sim w.json --set nvme0.read_iops=1e12", "'read_iops' must be at most 1000000000, got '1e12'"},
    {"an HDD of 1e30 rpm",
     [](const fs::path& d) {
       write_machine(d, "\n  - {name: hdd0, kind: disk, type: hdd, rpm: 1e30}", "");
     },
     "topology check m.yaml", "'rpm' must be at most 1000000, got '1e30'"},
    {"a GPU memory beyond 2^53 bytes", [](const fs::path&) {},
     "compare --set gpu0.memory_size=1e30",
     "'memory_size' must be at most 9007199254740992 bytes (2^53), got '1e30'"},
    {"a core speed factor of 1e30", [](const fs::path&) {},
     "compare --set cpu0.core_pass_speeds=1,1e30",
     "'core_pass_speeds' must be at most 100, got '1e30'"},
    {"a profile with a rate beyond its bound",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
       write_machine(d, "", "bandwidth: 16GB/s, duplex_bandwidth: 1e300");
     },
     "sim w.json --topology m.yaml", "'duplex_bandwidth' must be at most 1PB/s, got '1e300'"},
    // More of the issue's cases: a vanishing bandwidth, a topology key given twice, a list as
    // a sweep key, a directory as sweep spec, a FIFO as profile, a device as topology file.
    {"a link bandwidth of 1e-300", [](const fs::path&) {},
     "compare --set gpu0-sw0.bandwidth=1e-300 --strategies ring",
     "op 'rs s0 c0' (#0) alone takes 4e+307 s, beyond the 9.2e9 s (292 years)"},
    {"a topology key given twice",
     [](const fs::path& d) {
       write_text(d / "m.yaml", "name: m\ndevices:\n  - {name: cpu0, kind: cpu, kind: gpu}\n");
     },
     "topology check m.yaml", "m.yaml:3:29: duplicate key 'kind' in device 'cpu0'"},
    {"a list as a sweep key",
     [](const fs::path& d) {
       write_text(d / "s.yaml",
                  "topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [1MB]\n"
                  "? [a]\n: 1\n");
     },
     "sweep s.yaml", "s.yaml:4:3: keys must be plain words"},
    {"a directory as sweep spec", [](const fs::path& d) { fs::create_directory(d / "s.yaml"); },
     "sweep s.yaml", "File is actually a directory: s.yaml"},
    {"a FIFO as profile",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
       ::mkfifo((d / "p.yaml").c_str(), 0600);
     },
     "validate w.json --profile p.yaml", "p.yaml: is a FIFO (named pipe), not a topology file"},
    {"a device as topology file", [](const fs::path&) {}, "topology check /dev/zero",
     "/dev/zero: is a device, not a topology file"},
    // Cases of our own in the same spirit: workloads.
    {"a workload of binary bytes",
     [](const fs::path& d) { write_workload(d, std::string("\x01\x02\xfe garbage", 11)); },
     "sim w.json", "w.json:1:1: invalid JSON: syntax error while parsing value"},
    {"an empty workload file", [](const fs::path& d) { write_workload(d, ""); }, "sim w.json",
     "w.json:1:1: invalid JSON: syntax error while parsing value - unexpected end of input"},
    {"a workload that is a list", [](const fs::path& d) { write_workload(d, "[1]"); }, "sim w.json",
     "w.json: the top level must be an object with \"ops\""},
    {"a copy to a device that does not exist",
     [](const fs::path& d) {
       write_workload(
           d, one_op(R"({"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu7", "bytes": 8})"));
     },
     "sim w.json", "'to': unknown device 'gpu7' in topology 'desktop-1gpu' (did you mean 'gpu0'?)"},
    {"an op after itself",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "after": ["a"]})"));
     },
     "sim w.json", "w.json: ops[0] ('a'): an op cannot come after itself"},
    {"a stream beyond a million",
     [](const fs::path& d) {
       write_workload(
           d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0", "stream": 2000000})"));
     },
     "sim w.json", "'stream' must be a whole number from 0 to 1000000"},
    {"flops beyond 1e30",
     [](const fs::path& d) {
       write_workload(
           d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0", "flops": 1e31})"));
     },
     "sim w.json", "w.json: ops[0] ('a'): 'flops' must be at most 1e+30"},
    {"a random read of 0-byte blocks",
     [](const fs::path& d) {
       write_workload(
           d,
           one_op(
               R"({"name": "a", "kind": "disk_read", "disk": "nvme0", "to": "cpu0", "bytes": 4096, "pattern": "random", "block": 0})"));
     },
     "sim w.json", "'block' must be > 0"},
    {"compute on a disk",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "device": "nvme0"})"));
     },
     "sim w.json", "'device': device 'nvme0' is a disk, which cannot do this"},
    {"a workload that is a dangling symlink",
     [](const fs::path& d) { fs::create_symlink("nowhere.json", d / "w.json"); }, "sim w.json",
     "File does not exist: w.json"},
    // Topology files and what-if edits.
    {"a topology description with a control character",
     [](const fs::path& d) {
       write_text(d / "m.yaml",
                  "name: m\ndescription: \"a\\x1bb\"\ndevices:\n  - {name: cpu0, kind: cpu}\n");
     },
     "topology check m.yaml", "m.yaml:2:14: 'description' holds a control character"},
    {"an empty topology file", [](const fs::path& d) { write_text(d / "m.yaml", ""); },
     "topology check m.yaml", "m.yaml:1:1: the topology is empty"},
    {"a link from a device to itself",
     [](const fs::path& d) {
       write_text(d / "m.yaml",
                  "name: m\ndevices:\n  - {name: cpu0, kind: cpu}\nlinks:\n"
                  "  - {between: [cpu0, cpu0], type: pcie}\n");
     },
     "topology check m.yaml", "m.yaml:5:15: link 'cpu0-cpu0' joins device 'cpu0' to itself"},
    {"a latency of nan", [](const fs::path& d) { write_machine(d, "", "latency: nan"); },
     "topology check m.yaml", "m.yaml:6:50: 'latency' must be a finite zero or positive number"},
    {"a negative latency from --set", [](const fs::path&) {}, "compare --set gpu0-sw0.latency=-1us",
     "'latency' must be zero or positive, got '-1us'"},
    {"a count beyond its range", [](const fs::path&) {}, "compare --set gpu0.copy_engines=65",
     "'copy_engines' must be from 1 to 64, got 65"},
    {"an efficiency above 1", [](const fs::path&) {}, "compare --set gpu0.efficiency=1.5",
     "'efficiency' must be in (0, 1], got 1.5"},
    {"a GPU of no memory", [](const fs::path&) {}, "compare --set gpu0.memory_size=0",
     "'memory_size' must be positive, got '0'"},
    {"an edit without a key", [](const fs::path&) {}, "compare --set foo=1",
     "--set foo=1: expected NAME.KEY=VALUE"},
    {"a cluster of 5000 machines", [](const fs::path&) {}, "compare --topology cluster:5000x8@100",
     "bad topology 'cluster:5000x8@100': expected cluster:MxG or cluster:MxG@GBITS with 1 <= M "
     "<= 4096"},
    {"a switch of no GPUs", [](const fs::path&) {}, "compare --topology pcie-switch:0",
     "bad topology 'pcie-switch:0': N must be an integer from 1 to 16384"},
    {"a ring of 100000 GPUs", [](const fs::path&) {}, "compare --topology nvlink-ring:100000",
     "bad topology 'nvlink-ring:100000': N must be an integer from 2 to 16384"},
    {"a topology file that does not exist", [](const fs::path&) {},
     "compare --topology no-such.yaml", "no-such.yaml: cannot open topology file"},
    // Sweep specs and command-line values.
    {"a sweep of one GPU",
     [](const fs::path& d) {
       write_text(d / "s.yaml",
                  "topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [1MB]\n"
                  "gpus: [1]\n");
     },
     "sweep s.yaml", "s.yaml:4:8: gpus: '1' is not a GPU count from 2 to 1000000"},
    {"a sweep of no GPU per server",
     [](const fs::path& d) {
       write_text(d / "s.yaml",
                  "topologies: [ib-cluster:2x8]\ncollectives: [allreduce]\nbytes: [1MB]\n"
                  "gpus_per_server: [0]\n");
     },
     "sweep s.yaml", "s.yaml:4:19: gpus_per_server: '0' is not a GPU count from 1 to 1000000"},
    {"a sweep of negative bytes",
     [](const fs::path& d) {
       write_text(d / "s.yaml",
                  "topologies: [pcie-switch-4gpu]\nstrategies: [tree]\nbytes: [-1MB]\n");
     },
     "sweep s.yaml", "s.yaml:3:9: bytes: cannot read '-1MB' as a size from 1 KiB to 2^53 bytes"},
    {"a sweep of gradients under 1 KiB",
     [](const fs::path& d) {
       write_text(d / "s.yaml",
                  "topologies: [pcie-switch-4gpu]\nstrategies: [ring]\nbytes: [512B]\n");
     },
     "sweep s.yaml", "s.yaml:3:9: bytes: cannot read '512B' as a size from 1 KiB to 2^53 bytes"},
    {"a compare of a 1-byte gradient (its chunks would move in under 1 ns)", [](const fs::path&) {},
     "compare --bytes 1 --comm-only",
     "gradient size 1 B: at least 1 KiB (smaller gradients' chunks move in less than the "
     "simulator's 1 ns step)"},
    {"a validation time beyond an hour",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
     },
     "validate w.json --min-time 4000", "--min-time: must be between 0 and 3600 seconds"},
    {"rounds without a suite",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
     },
     "validate w.json --rounds 2", "--rounds goes with --suite"},
    {"1000 jobs at once", [](const fs::path&) {}, "compare --jobs 1000",
     "--jobs: Value 1000 not in range 1 to 256"},
    // Outputs that cannot be written, refused before the work.
    {"a CSV written over a directory",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
       fs::create_directory(d / "out");
     },
     "sim w.json --csv out", "out: cannot write the CSV: it is a directory"},
    {"a DOT file into a missing directory",
     [](const fs::path& d) {
       write_workload(d, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
     },
     "sim w.json --dot missing/x.dot",
     "missing/x.dot: cannot write the graph: directory 'missing' does not exist"},
    {"a profile written over a directory",
     [](const fs::path& d) { fs::create_directory(d / "p.yaml"); }, "calibrate --out p.yaml",
     "p.yaml: cannot write the profile: it is a directory"},
    {"a trace directory under a file", [](const fs::path& d) { write_text(d / "f", "a file"); },
     "compare --trace-dir f/sub", "f/sub: cannot write traces here:"},
};

// Traces are read by opsim-gui (run offscreen with --no-run --smoke-test): a trace named on
// its command line that cannot be read is one line and exit code 2.
const BadCase kTraceCases[] = {
    {"a trace number beyond a double",
     [](const fs::path& d) {
       write_text(d / "t.json", R"({"traceEvents": [], "otherData": {"x": 1e400}})");
     },
     "--no-run --smoke-test t.json",
     "t.json:1:40: invalid JSON: number overflow parsing '1e400' (outside the range of a double)",
     "opsim-gui"},
    {"a trace whose op count is forged", [](const fs::path& d) { write_forged_trace(d); },
     "--no-run --smoke-test t.json",
     "t.json: otherData.opsim: op_count, dependency_count or link_span_count is more than a "
     "file of",
     "opsim-gui"},
    {"a trace of another tool, 20 MB, its first span without a duration",
     [](const fs::path& d) {
       std::string text = R"({"traceEvents": [)";
       for (int i = 0; i < 250000; ++i)
         text += std::string(i ? "," : "") + R"({"name": "x", "ph": "X", "ts": )" +
                 std::to_string(i) + (i ? R"(, "dur": 1)" : "") + R"(, "pid": 1, "tid": 1})";
       write_text(d / "t.json", text + "]}");
     },
     "--no-run --smoke-test t.json", "t.json: traceEvents[0]: missing \"dur\"", "opsim-gui"},
    {"a FIFO as trace", [](const fs::path& d) { ::mkfifo((d / "t.json").c_str(), 0600); },
     "--no-run --smoke-test t.json", "t.json: is a FIFO (named pipe), not a trace file",
     "opsim-gui"},
    {"a directory as trace", [](const fs::path& d) { fs::create_directory(d / "t.json"); },
     "--no-run --smoke-test t.json", "t.json: is a directory, not a trace file", "opsim-gui"},
};

void PrintTo(const BadCase& c, std::ostream* out) {
  *out << c.name;
}

// "fifo as workload" -> "fifo_as_workload": a test name, and a directory name the shell
// takes without quotes.
std::string identifier(const char* text) {
  std::string out;
  for (const char* p = text; *p; ++p)
    out += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  return out;
}

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, ExitsTwoWithOneLineAndLeavesNothingBehind) {
  const BadCase& c = GetParam();
  const fs::path dir = opsim::test::scratch_dir("opsim_bad_input") / identifier(c.name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  c.prepare(dir);
  std::size_t before = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++before;
  const bool gui = std::string_view(c.program) == "opsim-gui";
  if (gui && !fs::exists(fs::path(OPSIM_BINARY_DIR) / "bin" / "opsim-gui"))
    GTEST_SKIP() << "opsim-gui is not built (OPSIM_BUILD_GUI=OFF)";
  const CommandResult r = opsim::test::run_program(
      c.program, c.args, dir, gui ? "QT_QPA_PLATFORM=offscreen timeout 30" : "timeout 30");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line:\n" << r.err;
  std::size_t after = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename() != "stdout" && entry.path().filename() != "stderr") ++after;
  EXPECT_EQ(after, before) << "the run left files behind";
}

INSTANTIATE_TEST_SUITE_P(Cli, BadInput, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return identifier(info.param.name);
                         });
INSTANTIATE_TEST_SUITE_P(Traces, BadInput, ::testing::ValuesIn(kTraceCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return identifier(info.param.name);
                         });

// Inputs that used to take minutes finish: a 100k-op chain (10 MB) loads and simulates.
TEST(BadInputBounds, HundredThousandOpChainFinishes) {
  const fs::path dir = opsim::test::scratch_dir("opsim_bad_input") / "chain";
  fs::create_directories(dir);
  std::string text =
      R"({"topology": "desktop-1gpu", "ops": [{"name": "op0", "kind": "compute", "device": "cpu0", "flops": 1e6})";
  for (int i = 1; i < 100000; ++i)
    text += R"(, {"name": "op)" + std::to_string(i) +
            R"(", "kind": "compute", "device": "cpu0", "flops": 1e6, "after": ["op)" +
            std::to_string(i - 1) + R"("]})";
  write_text(dir / "chain.json", text + "]}");
  const CommandResult r = opsim::test::run_program("opsim", "sim chain.json", dir, "timeout 60");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("100000 ops"), std::string::npos) << r.out;
}

// A trace whose events come before its otherData header (key order is free in JSON) loads as
// fast as one in opsim's own order: 20,000 ops (10 MB) well within the time limit.
TEST(BadInputBounds, TraceWithItsHeaderLastLoads) {
  if (!fs::exists(fs::path(OPSIM_BINARY_DIR) / "bin" / "opsim-gui"))
    GTEST_SKIP() << "opsim-gui is not built (OPSIM_BUILD_GUI=OFF)";
  const fs::path dir = opsim::test::scratch_dir("opsim_bad_input") / "header-last";
  fs::create_directories(dir);
  std::string text =
      R"({"topology": "desktop-1gpu", "ops": [{"name": "op0", "kind": "compute", "device": "cpu0", "flops": 1e6})";
  for (int i = 1; i < 20000; ++i)
    text += R"(, {"name": "op)" + std::to_string(i) +
            R"(", "kind": "compute", "device": "cpu0", "flops": 1e6, "after": ["op)" +
            std::to_string(i - 1) + R"("]})";
  write_text(dir / "chain.json", text + "]}");
  CommandResult r =
      opsim::test::run_program("opsim", "sim chain.json --trace t.json", dir, "timeout 60");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // {"otherData":{...},"traceEvents":[...]} becomes {"traceEvents":[...],"otherData":{...}}.
  const std::string trace = slurp(dir / "t.json");
  const std::size_t events = trace.find(",\"traceEvents\":");
  const std::size_t end = trace.rfind('}');
  ASSERT_EQ(trace.rfind("{\"otherData\":", 0), 0u);
  ASSERT_NE(events, std::string::npos);
  write_text(dir / "t.json", "{" + trace.substr(events + 1, end - events - 1) + "," +
                                 trace.substr(1, events - 1) + "}");
  r = opsim::test::run_program("opsim-gui", "--no-run --smoke-test t.json", dir,
                               "QT_QPA_PLATFORM=offscreen timeout 30");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// Zero means "off" for a link's duplex bound and a disk's sequential_* rates: a file and
// --set take it, and a file written back leaves the key out.
TEST(BadInputBounds, ZeroTurnsOffTheDuplexBoundAndTheDiskRates) {
  const fs::path dir = opsim::test::scratch_dir("opsim_bad_input") / "zero-off";
  fs::create_directories(dir);
  write_workload(dir, one_op(R"({"name": "a", "kind": "compute", "device": "cpu0"})"));
  write_machine(dir, "", "bandwidth: 16GB/s, duplex_bandwidth: 0");
  CommandResult r = opsim::test::run_program("opsim", "topology show m.yaml", dir, "timeout 30");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("duplex_bandwidth"), std::string::npos) << r.out;
  r = opsim::test::run_program(
      "opsim",
      "sim w.json --set nvme0-cpu0.duplex_bandwidth=0 --set nvme0.sequential_read_beside_random=0 "
      "--set nvme0.sequential_read_beside_write=0 --set nvme0.sequential_reads_together=0 "
      "--set nvme0.sequential_write_beside_read=0",
      dir, "timeout 30");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The bounds themselves are valid values.
  r = opsim::test::run_program("opsim",
                               "compare --bytes 1MB --set gpu0-sw0.bandwidth=1PB/s "
                               "--set gpu0.fp32_peak=1000PFLOPS --set cpu0.clock=100GHz",
                               dir, "timeout 30");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A failed compare removes the traces it wrote into an existing directory, and only those:
// the user's own files and an older trace it never replaced stay; a compare that completes
// keeps its traces.
TEST(BadInputOutputs, AFailedCompareRemovesOnlyItsOwnTraces) {
  const fs::path dir = opsim::test::scratch_dir("opsim_bad_input") / "failed-compare";
  fs::remove_all(dir);
  fs::create_directories(dir / "T");
  write_text(dir / "T" / "notes.txt", "mine");
  write_text(dir / "T" / "tree.json", "an older run's");
  const std::string args =
      "compare --bytes 8PB --link-bandwidth-scale 1.6e-4 --comm-only -j 1 --trace-dir T "
      "--strategies ";
  CommandResult r = opsim::test::run_program("opsim", args + "ring,tree", dir, "timeout 30");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(dir / "T" / "ring.json"));
  EXPECT_FALSE(fs::exists(dir / "T" / "ring.csv"));
  EXPECT_EQ(slurp(dir / "T" / "notes.txt"), "mine");
  EXPECT_EQ(slurp(dir / "T" / "tree.json"), "an older run's");
  r = opsim::test::run_program("opsim", args + "ring", dir, "timeout 30");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "T" / "ring.json"));
  EXPECT_TRUE(fs::exists(dir / "T" / "ring.csv"));
}

// A compare killed with SIGKILL takes its simulating children with it: none goes on writing
// a trace into a directory that would then look complete.
TEST(BadInputOutputs, ChildrenDieWithAKilledParent) {
  const fs::path dir = opsim::test::scratch_dir("opsim_bad_input") / "killed-parent";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A killed child is a zombie (state Z) until init reaps it: dead all the same.
  const std::string script =
      "cd " + dir.string() + " && (" + OPSIM_BINARY_DIR +
      "/bin/opsim compare --topology pcie-switch:2048 --strategies ring,tree --comm-only -j 2 "
      "--trace-dir T >/dev/null 2>&1 & p=$!; sleep 1; kids=$(pgrep -P $p); kill -9 $p; "
      "sleep 1; echo \"children: $kids\" >report; for k in $kids; do "
      "case \"$(ps -o stat= -p $k)\" in ''|Z*) ;; *) echo \"alive: $k\" >>report;; esac; "
      "done; true)";
  ASSERT_EQ(std::system(script.c_str()), 0);
  const std::string report = slurp(dir / "report");
  EXPECT_NE(report.find("children: "), std::string::npos);
  EXPECT_NE(report, "children: \n") << "the children had ended before the kill";
  EXPECT_EQ(report.find("alive"), std::string::npos) << report;
}

// Outputs: a symlink writes its target and stays a link; /dev/stdout is written as a stream.
TEST(BadInputOutputs, SymlinkAndStdoutAreWrittenThrough) {
  const fs::path dir = opsim::test::scratch_dir("opsim_bad_input") / "outputs";
  fs::create_directories(dir);
  write_text(dir / "w.json",
             one_op(R"({"name": "a", "kind": "compute", "device": "cpu0", "flops": 1e9})"));
  write_text(dir / "victim.csv", "old");
  fs::create_symlink("victim.csv", dir / "link.csv");
  CommandResult r =
      opsim::test::run_program("opsim", "sim w.json --csv link.csv", dir, "timeout 30");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.csv"));
  EXPECT_NE(slurp(dir / "victim.csv").find("name,"), std::string::npos);
  r = opsim::test::run_program("opsim", "sim w.json --format json --csv /dev/stdout", dir,
                               "timeout 30");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("name,"), std::string::npos) << r.out;
}

}  // namespace
