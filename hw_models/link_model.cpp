#include "hw_models/link_model.hpp"

#include <stdexcept>

namespace opsim {

std::string_view to_string(LinkKind kind) {
  switch (kind) {
    case LinkKind::kPcie: return "pcie";
    case LinkKind::kNvlink: return "nvlink";
    case LinkKind::kEthernet: return "ethernet";
    case LinkKind::kSata: return "sata";
    case LinkKind::kMemoryBus: return "memory";
    case LinkKind::kGeneric: return "generic";
    case LinkKind::kInfiniband: return "infiniband";
  }
  return "generic";
}

LinkModel LinkModel::pcie(int generation, int lanes) {
  static const double kPerLaneBytesPerS[] = {0.25e9, 0.5e9, 0.985e9, 1.969e9, 3.938e9};
  if (generation < 1 || generation > 5) throw std::invalid_argument("PCIe generation must be 1..5");
  LinkModel model;
  model.kind = LinkKind::kPcie;
  model.bytes_per_s = kPerLaneBytesPerS[generation - 1] * lanes;
  model.latency_s = 1e-6;
  return model;
}

LinkModel LinkModel::nvlink(int generation, int links) {
  if (generation < 1 || generation > 4) throw std::invalid_argument("NVLink generation must be 1..4");
  LinkModel model;
  model.kind = LinkKind::kNvlink;
  model.bytes_per_s = (generation == 1 ? 20e9 : 25e9) * links;
  model.count = links;
  model.latency_s = 0.7e-6;
  return model;
}

LinkModel LinkModel::ethernet(double gigabits_per_s) {
  LinkModel model;
  model.kind = LinkKind::kEthernet;
  model.bytes_per_s = gigabits_per_s * 1e9 / 8.0;
  model.latency_s = 10e-6;
  return model;
}

LinkModel LinkModel::infiniband(double gigabits_per_s) {
  LinkModel model;
  model.kind = LinkKind::kInfiniband;
  model.bytes_per_s = gigabits_per_s * 1e9 / 8.0;
  model.latency_s = 0.6e-6;
  return model;
}

LinkModel LinkModel::roce(double gigabits_per_s) {
  LinkModel model = ethernet(gigabits_per_s);
  model.latency_s = 1e-6;
  return model;
}

}  // namespace opsim
