// Workload files: an op graph in JSON, devices named as in the topology. Format (all sizes
// accept unit strings such as "64MB", "10us", "2TFLOPS"-free plain counts like 2e12):
//
//   {
//     "name": "load-and-multiply",
//     "topology": "desktop-1gpu",                       // optional default topology
//     "max_in_flight": 4,                 // optional: bound on ops in flight (opsim validate)
//     "ops": [
//       {"name": "load", "kind": "disk_read", "disk": "nvme0", "to": "cpu0", "bytes": "64MB"},
//       {"name": "h2d", "kind": "copy", "from": "cpu0", "to": "gpu0", "bytes": "64MB",
//        "after": ["load"]},
//       {"name": "mm", "kind": "compute", "device": "gpu0", "kernel": "gemm",
//        "gemm": {"m": 4096, "n": 4096, "k": 4096}, "after": ["h2d"]},
//       {"name": "issue", "kind": "dispatch", "device": "cpu0", "seconds": "10us"}
//     ]
//   }
//
// Errors are InputError: "FILE: ops[2] ('mm'): what is wrong", or "FILE:LINE:COL: ..." for
// JSON syntax.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/op_graph.hpp"

namespace opsim {

struct WorkloadFile {
  std::string source;                   ///< file name, for messages
  std::string name;                     ///< "name", or the file's stem
  std::optional<std::string> topology;  ///< "topology", if given
  nlohmann::json document;
};

/// Reads and parses the JSON; checks the top-level shape. Throws InputError.
WorkloadFile load_workload_file(const std::string& path);
/// Parses JSON text (for tests and embedded workloads). Throws InputError.
WorkloadFile parse_workload_json(std::string_view text, std::string_view source);
/// Builds and validates the graph against a machine. Throws InputError naming the op.
OpGraph build_workload_graph(const WorkloadFile& workload, const Machine& machine);

}  // namespace opsim
