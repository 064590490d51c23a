#include "engine/workload_file.hpp"

#include <gtest/gtest.h>

#include "common/input_error.hpp"

namespace opsim {
namespace {

Machine desktop() {
  Machine m("desk");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId gpu = m.add_gpu("gpu0", GpuModel{});
  const DeviceId disk = m.add_disk("nvme0", DiskModel::nvme(4, 4));
  m.add_link("pcie_gpu0", cpu, gpu, LinkModel::pcie(3, 16));
  m.add_link("pcie_nvme0", cpu, disk, LinkModel::pcie(4, 4));
  m.seal();
  return m;
}

constexpr const char* kGood = R"({
  "name": "load-and-multiply",
  "topology": "desktop-1gpu",
  "ops": [
    {"name": "load", "kind": "disk_read", "disk": "nvme0", "to": "cpu0", "bytes": "64MB"},
    {"name": "h2d", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": "64MB", "after": ["load"]},
    {"name": "mm", "kind": "compute", "device": "gpu0", "gemm": {"m": 1024, "n": 2048, "k": 512},
     "after": ["h2d"]},
    {"name": "rand", "kind": "disk_read", "disk": "nvme0", "to": "cpu0", "bytes": "1MiB",
     "pattern": "random", "block": "4KiB"},
    {"name": "issue", "kind": "dispatch", "device": "cpu0", "seconds": "10us"}
  ]
})";

TEST(WorkloadFile, ReadsEveryKind) {
  const Machine m = desktop();
  const WorkloadFile file = parse_workload_json(kGood, "good.json");
  EXPECT_EQ(file.name, "load-and-multiply");
  EXPECT_EQ(file.topology.value_or(""), "desktop-1gpu");
  const OpGraph g = build_workload_graph(file, m);
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g.op(0).kind, OpKind::kDiskRead);
  EXPECT_DOUBLE_EQ(g.op(0).bytes, 64e6);
  EXPECT_EQ(g.op(1).device, *m.find_device("cpu0"));
  EXPECT_EQ(g.op(1).peer, *m.find_device("gpu0"));
  EXPECT_EQ(g.op(2).kernel, KernelClass::kGemm);
  EXPECT_DOUBLE_EQ(g.op(2).flops, 2.0 * 1024 * 2048 * 512);
  EXPECT_DOUBLE_EQ(g.op(2).bytes, 4.0 * (1024 * 512 + 512 * 2048 + 1024 * 2048));
  EXPECT_EQ(g.op(3).block_bytes, 4096u);
  EXPECT_DOUBLE_EQ(g.op(4).seconds, 10e-6);
  EXPECT_EQ(g.in_degree(2), 1u);
}

struct BadCase {
  const char* json;
  const char* expected;
};

TEST(WorkloadFile, AGpuOpOnAMachineWithoutGpusSaysSo) {
  // E.g. the GPU validation suite against a profile calibrated on a host without a GPU.
  Machine m("cpu-only");
  m.add_cpu("cpu0", CpuModel{});
  m.seal();
  const WorkloadFile file = parse_workload_json(
      R"({"ops": [{"name": "mm", "kind": "compute", "device": "gpu0", "flops": 1e9}]})", "g.json");
  try {
    (void)build_workload_graph(file, m);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown device 'gpu0': topology 'cpu-only' has no GPU"),
              std::string::npos)
        << e.what();
  }
}

TEST(WorkloadFile, BadInputsGiveOneLinePlaceAndReason) {
  const Machine m = desktop();
  const BadCase cases[] = {
      {R"({"ops": [ {"name": "a", "kind": "copy",, } ]})", "bad.json:1:"},
      {R"([1, 2])", "bad.json: the top level must be an object"},
      {R"({"opz": []})", "unknown top-level key 'opz' (did you mean 'ops'?)"},
      {R"({"ops": []})", "bad.json: \"ops\" is empty"},
      {R"({"ops": [{"name": "a", "kind": "teleport"}]})", "ops[0] ('a'): unknown kind 'teleport'"},
      {R"({"ops": [{"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu9", "bytes": 1}]})",
       "ops[0] ('a'): 'to': unknown device 'gpu9' in topology 'desk' (did you mean 'gpu0'?)"},
      {R"({"ops": [{"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": "-5MB"}]})",
       "'bytes': cannot read '-5MB'"},
      {R"({"ops": [{"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": 0}]})",
       "'bytes' must be > 0"},
      {R"({"ops": [{"name": "a", "kind": "compute", "device": "gpu0", "flops": "lots"}]})",
       "'flops': cannot read 'lots'"},
      {R"({"ops": [{"name": "a", "kind": "compute", "devcie": "gpu0"}]})",
       "unknown key 'devcie' (did you mean 'device'?)"},
      {R"({"ops": [{"name": "a", "kind": "compute"}, {"name": "a", "kind": "compute"}]})",
       "ops[1] ('a'): duplicate op name 'a'"},
      {R"({"ops": [{"name": "a", "kind": "compute", "after": ["b"]}]})",
       "'after': no op named 'b'"},
      {R"({"ops": [{"name": "load", "kind": "compute"}, {"name": "b", "kind": "compute", "after": ["lod"]}]})",
       "ops[1] ('b'): 'after': no op named 'lod' (did you mean 'load'?)"},
      {R"({"ops": [{"name": "a", "kind": "compute", "zzzzzz": 1}]})",
       "unknown key 'zzzzzz' (valid: device, kernel, flops, bytes, gemm, dtype, name, kind, "
       "after, stream, alloc, release)"},
      {R"({"opz": [], "ops": []})", "unknown top-level key 'opz' (did you mean 'ops'?)"},
      {R"({"ops": [{"name": "a", "kind": "compute", "after": ["b"]}, {"name": "b", "kind": "compute", "after": ["a"]}]})",
       "bad.json: dependency cycle: 'a' -> 'b' -> 'a'"},
      {R"({"ops": [{"name": "a", "kind": "compute", "device": "nvme0"}]})",
       "device 'nvme0' is a disk"},
      {R"({"ops": [{"name": "a", "kind": "disk_read", "disk": "nvme0", "to": "cpu0", "bytes": 10, "pattern": "random"}]})",
       "missing 'block'"},
      {R"({"ops": [{"name": "a", "kind": "dispatch", "device": "cpu0"}]})", "missing 'seconds'"},
      {R"({"ops": [{"name": "a", "kind": "compute", "gemm": {"m": 0, "n": 1, "k": 1}}]})",
       "'gemm.m' must be a whole number from 1 to 2^30"},
      {R"({"ops": [{"name": "a", "kind": "compute", "gemm": {"m": 1e19, "n": 1, "k": 1}}]})",
       "'gemm.m' must be a whole number from 1 to 2^30"},
      {R"({"ops": [{"name": "a", "kind": "compute", "device": "cpu0", "flops": 1e400}]})",
       "bad.json:1:70: invalid JSON: number overflow parsing '1e400'"},
      {R"({"ops": [{"name": "a", "kind": "compute", "flops": 1e31}]})",
       "'flops' must be at most 1e+30"},
      {R"({"ops": [{"name": "a", "kind": "compute", "flops": 1, "flops": 2}]})",
       "bad.json: ops[0]: key 'flops' appears twice"},
      {R"({"ops": [], "ops": []})", "bad.json: the top level: key 'ops' appears twice"},
      {R"({"ops": [{"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": 0.5}]})",
       "'bytes' must be a whole number of bytes, got 0.5"},
      {R"({"ops": [{"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": 1e30}]})",
       "'bytes' must be at most 9007199254740992"},
      {R"({"max_in_flight": -1, "ops": [{"name": "a", "kind": "compute"}]})",
       "\"max_in_flight\" must be a whole number from 0"},
      {R"({"max_in_flight": 2.5, "ops": [{"name": "a", "kind": "compute"}]})",
       "\"max_in_flight\" must be a whole number from 0"},
      {R"({"ops": [{"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": 8, "alloc": 1e15}]})",
       "ops[0] ('a'): 'alloc' of 1 PB exceeds gpu0's memory of 16 GB"},
      {R"({"ops": [{"name": "a", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": 8, "release": 100}]})",
       "bad.json: the ops release 100 B on gpu0 but allocate only 0 B"},
      {"{\"ops\": [{\"name\": \"a\xff\", \"kind\": \"compute\"}]}",
       "bad.json:1:21: invalid JSON: syntax error while parsing value - invalid string: ill-formed "
       "UTF-8 byte; last read: '\"a\\xff'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    std::string message;
    try {
      const WorkloadFile file = parse_workload_json(c.json, "bad.json");
      (void)build_workload_graph(file, m);
    } catch (const InputError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("bad.json", 0), 0u) << message;
  }
}

TEST(WorkloadFile, MissingFileIsAnInputError) {
  EXPECT_THROW(load_workload_file("/nonexistent/w.json"), InputError);
}

// A chain of 100k ops, each after the one before: loading is linear in the ops (it was
// quadratic when every 'after' copied every op name); the time itself is a benchmark's job,
// so this only checks that every dependency arrives.
TEST(WorkloadFile, LongChainLoadsEveryDependency) {
  std::string text = R"({"ops": [{"name": "op0", "kind": "compute", "device": "cpu0"})";
  const int kOps = 100000;
  for (int i = 1; i < kOps; ++i)
    text += R"(, {"name": "op)" + std::to_string(i) +
            R"(", "kind": "compute", "device": "cpu0", "after": ["op)" + std::to_string(i - 1) +
            R"("]})";
  text += "]}";
  const OpGraph graph = build_workload_graph(parse_workload_json(text, "chain.json"), desktop());
  EXPECT_EQ(graph.size(), static_cast<std::size_t>(kOps));
  EXPECT_EQ(graph.dependency_count(), static_cast<std::size_t>(kOps - 1));
}

}  // namespace
}  // namespace opsim
