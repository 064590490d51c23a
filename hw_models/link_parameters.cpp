#include "hw_models/model_parameters.hpp"

namespace opsim {
namespace {

using enum ParameterUnit;
using M = MeasurementId;
using L = LinkModel;

const LinkParameter kLinkParameters[] = {
    {.key = "bandwidth",
     .member = &L::bytes_per_s,
     .unit = kBandwidth,
     .doc = "per direction, all bonded lanes or links together",
     .measured_by = M::kGpuHostToDevice},
    {.key = "latency",
     .member = &L::latency_s,
     .unit = kDuration,
     .zero_allowed = true,
     .doc = "one-way latency added once per transfer",
     .measured_by = M::kGpuCopyLatency},
    {.key = "full_duplex",
     .member = &L::full_duplex,
     .unit = kFlag,
     .doc = "false: both directions share one bandwidth"},
    {.key = "duplex_bandwidth",
     .member = &L::duplex_bytes_per_s,
     .unit = kBandwidth,
     .zero_allowed = true,
     .doc = "both directions together at most this (0: no bound but each direction's)",
     .measured_by = M::kGpuCopiesBothDirections,
     .written_unless = 0.0,
     .requires_flag = "full_duplex",
     .flag_holders = "full-duplex links"},
};

}  // namespace

std::span<const LinkParameter> link_parameters() {
  return kLinkParameters;
}

}  // namespace opsim
