#include "hw_models/model_parameters.hpp"

namespace opsim {
namespace {

using enum ParameterUnit;
using M = MeasurementId;
using K = DiskModel;

const DiskParameter kDiskParameters[] = {
    {.key = "access_latency",
     .member = &K::access_s,
     .unit = kDuration,
     .zero_allowed = true,
     .doc = "latency to the first byte of a sequential access",
     .measured_by = M::kDiskRandomRead},
    {.key = "read_bandwidth",
     .member = &K::read_bytes_per_s,
     .unit = kBandwidth,
     .doc = "sequential read bandwidth",
     .measured_by = M::kDiskSequentialRead},
    {.key = "write_bandwidth",
     .member = &K::write_bytes_per_s,
     .unit = kBandwidth,
     .doc = "sequential write bandwidth",
     .measured_by = M::kDiskSequentialWrite},
    {.key = "read_iops",
     .member = &K::read_iops,
     .unit = kNumber,
     .max = kMaxIops,
     .doc = "random 4 KiB reads per second",
     .measured_by = M::kDiskRandomRead},
    {.key = "write_iops",
     .member = &K::write_iops,
     .unit = kNumber,
     .max = kMaxIops,
     .doc = "random 4 KiB writes per second",
     .measured_by = M::kDiskRandomWrite},
    {.key = "queues",
     .member = &K::queues,
     .unit = kCount,
     .min = 1,
     .max = 1 << 16,
     .doc = "requests served at once (HDD: 1)"},
    {.key = "random_read_wait_beside_sequential",
     .member = &K::random_read_wait_beside_sequential_s,
     .unit = kDuration,
     .zero_allowed = true,
     .doc = "extra wait of a random read per sequential transfer beside it",
     .measured_by = M::kDiskRandomReadBesideSequential,
     .written_unless = 0.0},
    {.key = "sequential_read_beside_random",
     .member = &K::sequential_read_beside_random_bytes_per_s,
     .unit = kBandwidth,
     .zero_allowed = true,
     .doc = "a sequential read's rate while random reads run (0: off)",
     .measured_by = M::kDiskSequentialReadBesideRandom,
     .written_unless = 0.0},
    {.key = "sequential_read_beside_write",
     .member = &K::sequential_read_beside_write_bytes_per_s,
     .unit = kBandwidth,
     .zero_allowed = true,
     .doc = "a sequential read's rate while a write runs (0: off)",
     .measured_by = M::kDiskSequentialReadBesideWrite,
     .written_unless = 0.0},
    {.key = "sequential_reads_together",
     .member = &K::sequential_reads_together_bytes_per_s,
     .unit = kBandwidth,
     .zero_allowed = true,
     .doc = "two or more sequential reads' rate together (0: off)",
     .measured_by = M::kDiskSequentialReadsTogether,
     .written_unless = 0.0},
    {.key = "sequential_write_beside_read",
     .member = &K::sequential_write_beside_read_bytes_per_s,
     .unit = kBandwidth,
     .zero_allowed = true,
     .doc = "a sequential write's rate while a read runs (0: off)",
     .measured_by = M::kDiskSequentialWriteBesideRead,
     .written_unless = 0.0},
};

}  // namespace

std::span<const DiskParameter> disk_parameters() {
  return kDiskParameters;
}

}  // namespace opsim
