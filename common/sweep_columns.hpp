// The result columns `opsim sweep` writes after a point's axes, in order. One list for the
// writer (experiments/cli) and the readers that tell axes from results (gui/sweep_plot).
#pragma once

#include <array>
#include <string_view>

namespace opsim {

inline constexpr std::array<std::string_view, 10> kSweepResultColumns = {"makespan_s",
                                                                         "lower_bound_s",
                                                                         "algbw_GBps",
                                                                         "busbw_GBps",
                                                                         "bytes_moved",
                                                                         "busiest_link",
                                                                         "busiest_link_utilization",
                                                                         "ops",
                                                                         "gpus_used",
                                                                         "sim_wall_s"};

}  // namespace opsim
