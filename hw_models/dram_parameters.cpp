#include "hw_models/model_parameters.hpp"

namespace opsim {
namespace {

using enum ParameterUnit;
using M = MeasurementId;
using D = DramModel;

const DramParameter kDramParameters[] = {
    {.key = "channels",
     .member = &D::channels,
     .unit = kCount,
     .min = 1,
     .max = 1024,
     .doc = "memory channels populated"},
    {.key = "bandwidth_per_channel",
     .member = &D::bytes_per_s_per_channel,
     .unit = kBandwidth,
     .doc = "streaming bandwidth of one channel (a profile: 2 x the faster memcpy rate)",
     .measured_by = M::kMemcpyTwoStreams},
    {.key = "first_access",
     .member = &D::first_access_s,
     .unit = kDuration,
     .zero_allowed = true,
     .doc = "latency to the first word of a cold access",
     .measured_by = M::kDramFirstAccess},
    {.key = "capacity",
     .member = &D::capacity_bytes,
     .unit = kSize,
     .doc = "installed memory: a host buffer larger than this is refused"},
};

}  // namespace

std::span<const DramParameter> dram_parameters() {
  return kDramParameters;
}

}  // namespace opsim
