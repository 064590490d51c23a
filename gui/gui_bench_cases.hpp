// The benchmark's cases beyond the one-million-span trace (gui_bench.cpp): many lanes, and
// the what-if edit-to-picture time. Each prints its figures and the budget it is held to.
#pragma once

namespace opsim::gui::bench {

/// A trace shaped like `opsim compare --topology nvlink-ring:GPUS --strategies ring
/// --comm-only` (compute, copy-out and copy-in lanes per GPU, both directions of each ring
/// link, 2(GPUS-1) steps); paints a 1920x1080 viewport while scrolling through all lanes and
/// while zooming, expanded, filtered and collapsed. Budget: 16 ms per paint.
void measure_many_lanes(int gpus, int repeats);

/// Edit-to-picture of the default scenario: an edit of the link bandwidth (alternating 0.5
/// and 1) runs `opsim compare` as the GUI does (SimRunner, no debounce), builds the models
/// and paints the panes at 1920x1080. Prints the median of `runs`. Budget: 150 ms.
void measure_edit_to_picture(int runs);

}  // namespace opsim::gui::bench
