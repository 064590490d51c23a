// Highest memory in use on any one device during a run, for summaries.
#pragma once

#include <algorithm>

#include "engine/scheduler_observer.hpp"

namespace opsim {

class PeakMemoryObserver final : public SchedulerObserver {
 public:
  void on_memory_changed(DeviceId, double bytes_in_use, TimeNs) override {
    peak_bytes_ = std::max(peak_bytes_, bytes_in_use);
  }
  double peak_bytes() const { return peak_bytes_; }

 private:
  double peak_bytes_ = 0;
};

}  // namespace opsim
