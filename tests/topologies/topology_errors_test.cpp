// Every bad topology gives ONE line "FILE:LINE:COL: what is wrong" as opsim::InputError.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/input_error.hpp"
#include "topologies/topology_catalog.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim {
namespace {

std::string yaml_error_of(const std::string& yaml) {
  try {
    parse_topology_yaml(yaml, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

// Asserts the message starts with "bad.yaml:LINE:", names the problem and is one line.
void expect_error(const std::string& yaml, int line, const std::string& problem) {
  const std::string message = yaml_error_of(yaml);
  SCOPED_TRACE(message);
  EXPECT_EQ(message.rfind("bad.yaml:" + std::to_string(line) + ":", 0), 0u);
  EXPECT_NE(message.find(problem), std::string::npos) << "missing: " << problem;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

// Lines: 1 name, 2 devices, 3 cpu0, 4 gpu0, 5 links, 6 the link.
std::string machine(
    const std::string& cpu = "{name: cpu0, kind: cpu}",
    const std::string& gpu = "{name: gpu0, kind: gpu, model: v100}",
    const std::string& link = "{between: [gpu0, cpu0], type: pcie, bandwidth: 16GB/s}") {
  return "name: t\ndevices:\n  - " + cpu + "\n  - " + gpu + "\nlinks:\n  - " + link + "\n";
}

TEST(TopologyErrors, TheBaseMachineIsValid) {
  const Machine m = parse_topology_yaml(machine(), "ok.yaml");
  EXPECT_EQ(m.gpus().size(), 1u);
  EXPECT_EQ(m.link(0).model.bytes_per_s, 16e9);
}

TEST(TopologyErrors, UnknownKeySuggestsTheClosest) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: pcie, bandwith: 16GB/s}"),
               6, "unknown key 'bandwith' in link (did you mean 'bandwidth'?)");
  expect_error("name: t\ndevice:\n  - {name: cpu0, kind: cpu}\n", 2,
               "unknown key 'device' in the topology (did you mean 'devices'?)");
}

TEST(TopologyErrors, UnknownKeyFarFromAnyListsTheValidOnes) {
  expect_error(machine("{name: cpu0, kind: cpu, colour: red}"), 3,
               "unknown key 'colour' in device 'cpu0' (valid: name, kind, model, cores");
}

TEST(TopologyErrors, WrongType) {
  expect_error(machine("{name: cpu0, kind: cpu, cores: many}"), 3,
               "'cores' must be an integer, got 'many'");
  expect_error(machine("{name: cpu0, kind: cpu, all_streams_busy_speed: 1.2}"), 3,
               "'all_streams_busy_speed' must be in (0, 1], got 1.2");
  expect_error(machine("{name: cpu0, kind: cpu, beside_dispatch_speed: 0}"), 3,
               "'beside_dispatch_speed' must be positive, got '0'");
  expect_error(machine("{name: cpu0, kind: cpu, disk_read_speed_all_busy: 1.5}"), 3,
               "'disk_read_speed_all_busy' must be in (0, 1], got 1.5");
  expect_error(machine("{name: cpu0, kind: cpu, cores: 2, disk_io_cores: 3}"), 3,
               "'disk_io_cores' must be at most the CPU's cores (2), got 3");
  expect_error(machine("{name: cpu0, kind: cpu, disk_io_cores: -1}"), 3,
               "'disk_io_cores' must be zero or positive, got '-1'");
  expect_error("name: t\ndevices: {name: cpu0}\n", 2, "'devices' must be a list, got a map");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: pcie, full_duplex: maybe}"),
               6, "'full_duplex' must be true or false, got 'maybe'");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: pcie, full_duplex: false, "
                       "duplex_bandwidth: 20GB/s}"),
               6, "key 'duplex_bandwidth' applies only to full-duplex links");
}

TEST(TopologyErrors, SgemmRates) {
  expect_error(machine("{name: gpu0, kind: gpu, sgemm_rates: 35TFLOPS}"), 3,
               "'sgemm_rates' must be a list");
  expect_error(machine("{name: gpu0, kind: gpu, sgemm_rates: [{n: 1024}]}"), 3, "rate");
  expect_error(machine("{name: gpu0, kind: gpu, sgemm_rates: [{n: 2048, rate: 49TFLOPS}, "
                       "{n: 1024, rate: 35TFLOPS}]}"),
               3, "increasing n values");
  expect_error(machine("{name: gpu0, kind: gpu, sgemm_rates: [{n: 0, rate: 35TFLOPS}]}"), 3, "n");
  expect_error(machine("{name: gpu0, kind: gpu, sgemm_rates: [{n: 1024, rate: -1TFLOPS}]}"), 3,
               "rate");
  expect_error(machine("{name: gpu0, kind: gpu, sgemm_rates: [{n: 1024, rate: 35TFLOPS, m: 2}]}"),
               3, "unknown key 'm'");
}

TEST(TopologyErrors, MemoryPassRates) {
  expect_error(machine("{name: cpu0, kind: cpu, memory_pass_rates: 8MB}"), 3,
               "'memory_pass_rates' must be a list");
  expect_error(machine("{name: cpu0, kind: cpu, memory_pass_rates: [{working_set: 8MB}]}"), 3,
               "bandwidth");
  expect_error(machine("{name: cpu0, kind: cpu, memory_pass_rates: [{working_set: 8MB, "
                       "bandwidth: 20GB/s}, {working_set: 2MB, bandwidth: 30GB/s}]}"),
               3, "increasing working_set values");
  expect_error(machine("{name: cpu0, kind: cpu, memory_pass_rates: [{working_set: 8MB, "
                       "bandwidth: 20GB/s, size: 1}]}"),
               3, "unknown key 'size'");
}

TEST(TopologyErrors, CopyStreamRates) {
  expect_error(machine("{name: cpu0, kind: cpu, copy_stream_rates: 8GB/s}"), 3,
               "'copy_stream_rates' must be a list such as [{bytes: 8MB");
  expect_error(machine("{name: cpu0, kind: cpu, copy_stream_rates: [{bytes: 96MiB, "
                       "bandwidth: 7GB/s}, {bytes: 8MiB, bandwidth: 14GB/s}]}"),
               3, "must list increasing bytes values");
  expect_error(machine("{name: cpu0, kind: cpu, copy_stream_rates: [{working_set: 8MB, "
                       "bandwidth: 20GB/s}]}"),
               3, "unknown key 'working_set'");
  expect_error(machine("{name: cpu0, kind: cpu, copy_stream_rates: [{bytes: 8MB, "
                       "bandwidth: -1GB/s}]}"),
               3, "bandwidth");
}

TEST(TopologyErrors, CopiesTogetherRates) {
  expect_error(machine("{name: cpu0, kind: cpu, copies_together_rates: 30GB/s}"), 3,
               "'copies_together_rates' must be a list such as [{bytes: 8MB");
  expect_error(machine("{name: cpu0, kind: cpu, copies_together_rates: [{bytes: 96MiB, "
                       "bandwidth: 30GB/s}, {bytes: 96MiB, bandwidth: 28GB/s}]}"),
               3, "must list increasing bytes values");
  expect_error(machine("{name: cpu0, kind: cpu, copies_together_rates: [{bytes: 8MB}]}"), 3,
               "bandwidth");
}

TEST(TopologyErrors, CoreSpeeds) {
  expect_error(machine("{name: cpu0, kind: cpu, core_pass_speeds: 1.1}"), 3,
               "'core_pass_speeds' must be a list of one speed factor per core");
  expect_error(machine("{name: cpu0, kind: cpu, core_copy_speeds: [1.1, 0]}"), 3,
               "core_copy_speeds");
  expect_error(machine("{name: cpu0, kind: cpu, cores: 2, core_copy_speeds: [1.1, 0.9, 1.0]}"), 3,
               "lists 3 speeds for 2 cores");
}

TEST(TopologyErrors, MissingRequiredKey) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, model: v100}"), 4,
               "device 'gpu0' is missing required key 'kind'");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: generic}"),
               6, "link 'gpu0-cpu0' of type generic is missing required key 'bandwidth'");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}", "{type: pcie}"), 6,
               "link is missing required key 'between'");
}

TEST(TopologyErrors, UnknownDeviceInALink) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu9, cpu0], type: pcie}"),
               6, "link 'gpu9-cpu0' refers to unknown device 'gpu9'");
}

TEST(TopologyErrors, DuplicateDeviceName) {
  expect_error(
      "name: t\ndevices:\n  - {name: cpu0, kind: cpu}\n  - {name: gpu0, kind: gpu}\n"
      "  - {name: gpu0, kind: gpu}\n",
      5, "duplicate device name 'gpu0' (first defined at line 4)");
}

TEST(TopologyErrors, DuplicateLinkName) {
  expect_error(machine() + "  - {between: [gpu0, cpu0], type: nvlink}\n", 7,
               "duplicate link name 'gpu0-cpu0' (first defined at line 6)");
}

TEST(TopologyErrors, NegativeZeroAndNanBandwidth) {
  const auto link = [](const std::string& bw) {
    return machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                   "{between: [gpu0, cpu0], type: pcie, bandwidth: " + bw + "}");
  };
  expect_error(link("-16GB/s"), 6, "'bandwidth' must be positive, got '-16GB/s'");
  expect_error(link("0"), 6, "'bandwidth' must be positive, got '0'");
  expect_error(link(".nan"), 6, "'bandwidth' must be a finite positive number, got '.nan'");
  expect_error(link("0GB/s"), 6, "'bandwidth' must be positive");
}

TEST(TopologyErrors, BadUnitString) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: pcie, bandwidth: 16GB}"),
               6, "'bandwidth' must be a bandwidth such as '16GB/s'");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: pcie, latency: 3 parsecs}"),
               6, "'latency' must be a duration such as '100ns'");
  expect_error(machine("{name: cpu0, kind: cpu, clock: fast}"), 3,
               "'clock' must be a clock such as '3.0GHz'");
}

TEST(TopologyErrors, UnknownModelPreset) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu, model: v200}"), 4,
               "unknown GPU model 'v200' (valid: a100, generic, gtx1080ti, h100, v100)");
  expect_error(machine("{name: cpu0, kind: cpu, model: pentium}"), 3,
               "unknown CPU model 'pentium'");
}

TEST(TopologyErrors, UnknownKindAndTypes) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: tpu}"), 4,
               "unknown device kind 'tpu'");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: omnipath, bandwidth: 1GB/s}"),
               6, "unknown link type 'omnipath'");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: d0, kind: disk, type: floppy}"), 4,
               "unknown disk type 'floppy'");
}

TEST(TopologyErrors, YamlSyntaxError) {
  expect_error("name: t\ndevices:\n  - {name: cpu0, kind: cpu\n  - {name: gpu0}\n", 4,
               "YAML syntax error");
}

TEST(TopologyErrors, UnreadableFile) {
  const std::string path = "/nonexistent-opsim-dir/machine.yaml";
  try {
    load_topology_file(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path + ": cannot open topology file", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

// A FIFO or a directory is refused at once: reading a FIFO would block until someone wrote.
TEST(TopologyErrors, NotARegularFileIsRefusedWithoutBlocking) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("opsim_topology_fifo_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "machine.yaml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(
      {
        try {
          load_topology_file(fifo);
        } catch (const InputError& e) {
          EXPECT_EQ(std::string(e.what()), fifo + ": is a FIFO (named pipe), not a topology file");
          throw;
        }
      },
      InputError);
  EXPECT_THROW(load_topology_file(dir.string()), InputError);
  std::filesystem::remove_all(dir);
}

TEST(TopologyErrors, GpuWithNoRouteToACpu) {
  expect_error(
      "name: t\ndevices:\n  - {name: cpu0, kind: cpu}\n  - {name: gpu0, kind: gpu}\n"
      "  - {name: gpu1, kind: gpu}\nlinks:\n  - {between: [gpu0, cpu0], type: pcie}\n",
      5, "gpu 'gpu1' has no route to any CPU");
  // Joined only through another GPU: GPUs do not forward, so still no route.
  expect_error(
      "name: t\ndevices:\n  - {name: cpu0, kind: cpu}\n  - {name: gpu0, kind: gpu}\n"
      "  - {name: gpu1, kind: gpu}\nlinks:\n  - {between: [gpu0, cpu0], type: pcie}\n"
      "  - {between: [gpu0, gpu1], type: nvlink}\n",
      5, "gpu 'gpu1' has no route to any CPU");
}

TEST(TopologyErrors, OutOfRangeAndMisplacedParameters) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: pcie, generation: 7}"),
               6, "'generation' must be from 1 to 5, got 7");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: nvlink, lanes: 16}"),
               6, "key 'lanes' applies only to pcie links");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: d0, kind: disk, type: nvme, rpm: 7200}"),
               4, "key 'rpm' applies only to hdd disks");
  expect_error(machine("{name: cpu0, kind: cpu, efficiency: 1.5}"), 3,
               "'efficiency' must be in (0, 1], got 1.5");
}

// Keys that would be read and change nothing are refused, saying why.
TEST(TopologyErrors, KeysWithoutEffect) {
  expect_error(machine("{name: cpu0, kind: cpu, dram: {channels: 2, burst_word: 0.2ns}}"), 3,
               "key 'burst_word' is no longer read: the DRAM streams at channels x "
               "bandwidth_per_channel");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: pcie, count: 2}"),
               6, "key 'count' applies only to nvlink links");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: nvlink, count: 2, bandwidth: 40GB/s}"),
               6, "give an nvlink link either 'count' or 'bandwidth'");
}

TEST(TopologyErrors, KeyOfAnotherKind) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu, cores: 80}"), 4,
               "key 'cores' applies to cpu devices, not to device 'gpu0' of kind gpu");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: sw0, kind: switch, type: nvme}"), 4,
               "key 'type' applies to disk devices, not to device 'sw0' of kind switch");
}

TEST(TopologyErrors, DiskWithNoRouteToACpu) {
  expect_error(machine() + "devices_are_closed: no\n", 7, "unknown key 'devices_are_closed'");
  expect_error(
      "name: t\ndevices:\n  - {name: cpu0, kind: cpu}\n  - {name: d0, kind: disk, type: ssd}\n", 4,
      "disk 'd0' has no route to any CPU");
}

TEST(TopologyErrors, LinkToItselfAndBadBetween) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [cpu0, cpu0], type: pcie}"),
               6, "link 'cpu0-cpu0' joins device 'cpu0' to itself");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0], type: pcie}"),
               6, "'between' must be a list of two device names");
}

TEST(TopologyErrors, EmptyAndNonMapDocuments) {
  expect_error("", 1, "the topology is empty");
  expect_error("just text\n", 1, "the topology must be a map");
  expect_error("name: t\n", 1, "the topology has no devices");
}

TEST(TopologyErrors, NodesAndDuplicateKeys) {
  expect_error(
      "name: t\nnodes:\n  - name: a\n    devices: [{name: cpu0, kind: cpu}]\n"
      "devices:\n  - {name: gpu0, kind: gpu}\n",
      5, "when 'nodes' is given every device must be in a node");
  expect_error(
      "name: t\nnodes:\n  - name: a\n    devices: [{name: cpu0, kind: cpu}]\n"
      "  - name: a\n    devices: [{name: cpu1, kind: cpu}]\n",
      5, "duplicate node name 'a' (first defined at line 3)");
  expect_error(machine("{name: cpu0, kind: cpu, cores: 4, cores: 8}"), 3,
               "duplicate key 'cores' in device 'cpu0'");
}

TEST(TopologyErrors, ErrorsInAFileNameTheFile) {
  const auto dir = std::filesystem::temp_directory_path() / "opsim_topology_errors_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "broken.yaml").string();
  {
    std::ofstream out(path);
    out << machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu, memory_size: lots}");
  }
  for (const auto& load : {+[](const std::string& p) { return load_topology_file(p); },
                           +[](const std::string& p) { return resolve_topology(p); }}) {
    try {
      load(path);
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                path +
                    ":4:42: 'memory_size' must be a size such as '16GB', '512MiB' or bytes, "
                    "got 'lots'");
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace opsim

namespace opsim {
namespace {

// InfiniBand by generation (default HDR) or bandwidth, 0.6 us per link; RoCE is Ethernet
// at 1 us per link. Both round-trip through the dump.
TEST(TopologyLinks, InfinibandAndRoce) {
  const auto link_of = [](const std::string& link) {
    return parse_topology_yaml(
               machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu, model: v100}", link),
               "ok.yaml")
        .link(0)
        .model;
  };
  const LinkModel hdr = link_of("{between: [gpu0, cpu0], type: infiniband}");
  EXPECT_EQ(hdr.kind, LinkKind::kInfiniband);
  EXPECT_DOUBLE_EQ(hdr.bytes_per_s, 25e9);
  EXPECT_DOUBLE_EQ(hdr.latency_s, 0.6e-6);
  EXPECT_TRUE(hdr.full_duplex);
  EXPECT_DOUBLE_EQ(
      link_of("{between: [gpu0, cpu0], type: infiniband, generation: ndr}").bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(
      link_of("{between: [gpu0, cpu0], type: infiniband, generation: edr}").bytes_per_s, 12.5e9);
  EXPECT_DOUBLE_EQ(
      link_of("{between: [gpu0, cpu0], type: infiniband, bandwidth: 400Gbit/s}").bytes_per_s, 50e9);
  const LinkModel roce = link_of("{between: [gpu0, cpu0], type: roce, bandwidth: 100Gbit/s}");
  EXPECT_EQ(roce.kind, LinkKind::kEthernet);
  EXPECT_DOUBLE_EQ(roce.bytes_per_s, 12.5e9);
  EXPECT_DOUBLE_EQ(roce.latency_s, 1e-6);

  for (const std::string link : {"{between: [gpu0, cpu0], type: infiniband, generation: ndr}",
                                 "{between: [gpu0, cpu0], type: roce, bandwidth: 25Gbit/s}"}) {
    const Machine m = parse_topology_yaml(
        machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu, model: v100}", link),
        "ok.yaml");
    const Machine again = parse_topology_yaml(dump_topology_yaml(m), "dump.yaml");
    EXPECT_EQ(machine_difference(m, again), "") << link;
  }
}

TEST(TopologyErrors, BadInfinibandLinks) {
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: infiniband, generation: ndrr}"),
               6, "unknown infiniband generation 'ndrr' (did you mean 'ndr'?)");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: infiniband, generation: ndr, "
                       "bandwidth: 50GB/s}"),
               6, "either 'generation' or 'bandwidth'");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: roce}"),
               6, "of type roce is missing required key 'bandwidth'");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: infiniband, lanes: 4}"),
               6, "key 'lanes' applies only to pcie links");
  expect_error(machine("{name: cpu0, kind: cpu}", "{name: gpu0, kind: gpu}",
                       "{between: [gpu0, cpu0], type: ethernet, generation: 3, bandwidth: 1GB/s}"),
               6, "key 'generation' applies only to pcie, nvlink and infiniband links");
}

}  // namespace
}  // namespace opsim
