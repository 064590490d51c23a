// Published nccl-tests tables (experiments/nccl-reference/) and how opsim models each one.
// A table is a CSV of the rows exactly as nccl-tests printed them; beside it, a YAML file of
// the same name says which collective, machine, GPU count and algorithm opsim runs for it,
// and whether the table counts toward the accuracy goal.
//
//   NcclReference ref = read_nccl_reference("experiments/nccl-reference/x-all_reduce.csv");
//   // ref.model.topology == "dgx-a100", ref.rows[0].bytes == 8, ref.rows[0].time_s == 40.12e-6
//
// x-all_reduce.yaml:
//   op: allreduce            # opsim's name (collective.hpp)
//   topology: dgx-a100       # preset, family, or a .yaml file relative to this file
//   gpus: 8                  # ranks of the run
//   algorithm: auto          # auto (NCCL's own choice) or a forced one: ring, ...
//   protocol: Simple         # optional: LL, LL128 or Simple when the run forced one, or
//                            # those its NCCL had (LL,Simple: NCCL before 2.5 had no LL128)
//   gpus_per_thread: 8       # optional: nccl-tests' -g (default 1)
//   counts: false            # optional, default true
//   reason: noisy below 512 MiB   # required when counts is false
//   source: https://...      # optional
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace opsim {

/// One printed row: the out-of-place columns, and the in-place time where the table has it.
struct NcclReferenceRow {
  double bytes = 0;       ///< nccl-tests' size S
  double time_s = 0;      ///< out-of-place time
  double algbw_GBps = 0;  ///< as printed (1 GB = 1e9 bytes)
  double busbw_GBps = 0;  ///< as printed
  int line = 0;           ///< line in the CSV, for messages
  /// The same size run in place (time_us_inplace), a second measurement of it; NaN if absent.
  double time_inplace_s = std::numeric_limits<double>::quiet_NaN();
};

/// How opsim models a table.
struct NcclReferenceModel {
  std::string op;                  ///< allreduce, all_gather, all_to_all, ...
  std::string topology;            ///< as --topology takes it
  int gpus = 0;                    ///< ranks; the machine's first `gpus` GPUs
  int gpus_per_server = 0;         ///< > 0: of the first that many GPUs of every server
  std::string algorithm = "auto";  ///< "auto", or the algorithm the run forced
  /// empty (auto); LL / LL128 / Simple when forced; a list (LL,Simple) when the run's NCCL
  /// had only those; wire: links only
  std::string protocol;
  int gpus_per_thread = 1;    ///< nccl-tests' -g: GPUs one thread launches for
  bool counts = true;         ///< counts toward the accuracy goal
  std::string reason;         ///< why it does not count
  std::string source;         ///< where the table was published
  int topology_line = 0;      ///< line of 'topology' in the YAML, for messages
  std::string metadata_path;  ///< the YAML file
};

struct NcclReference {
  std::string csv_path;
  NcclReferenceModel model;
  std::vector<NcclReferenceRow> rows;  ///< sizes strictly increasing
};

/// The rows of a table's CSV text. Columns by header name: bytes, time_us, algbw_GBps and
/// busbw_GBps are required; count, type, redop and the *_inplace columns are allowed (of those
/// only time_us_inplace is read, and must then be a positive number). Throws
/// InputError "SOURCE:LINE: what is wrong" for a bad header, a row with the wrong number of
/// fields, a number that does not read, a size that is not a whole number of bytes from 1 to
/// 2^53 or not larger than the row before, a time that is not positive, or an algbw that does
/// not match bytes / time (a mis-copied row).
std::vector<NcclReferenceRow> parse_nccl_reference_csv(std::string_view text,
                                                       const std::string& source);

/// The model of a table from its YAML text. Throws InputError "SOURCE:LINE:COL: what is
/// wrong" for a syntax error, an unknown or missing key, an unknown collective, an algorithm
/// that is neither auto nor one that applies to the op, an unknown protocol, a GPU count
/// outside 2..1048576, or counts: false without a reason.
NcclReferenceModel parse_nccl_reference_model(std::string_view text, const std::string& source);

/// Reads `csv_path` and the YAML beside it (same name, .yaml), and checks that each row's
/// busbw is its algbw times nccl-tests' factor for the op on that many ranks.
NcclReference read_nccl_reference(const std::string& csv_path);

/// The tables named by `paths`: a CSV file itself, or every *.csv in a directory (sorted by
/// name). Throws InputError for a path that does not exist, a file that is not .csv, or a
/// directory without tables.
std::vector<std::string> nccl_reference_files(const std::vector<std::string>& paths);

}  // namespace opsim
