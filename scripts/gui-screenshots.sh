#!/usr/bin/env bash
# Screenshots of opsim-gui's key views, taken from a real window on Xvfb at 1920x1080: the
# default scenario, a what-if edit before / while stale / after, and an nvlink-ring trace
# (1,024 GPUs by default) expanded, with its server collapsed, filtered and scrolled.
# Usage: scripts/gui-screenshots.sh [OUT_DIR]   (default build/gui-screenshots/views)
# Env: BUILD_DIR (default build), RING_GPUS (default 1024; 0 leaves the ring out).
# The 1,024-GPU ring takes about a minute to simulate, writes a 1.9 GB trace to a temporary
# folder (removed at the end) and needs about 4 GB of memory to show.
set -euo pipefail
build=${BUILD_DIR:-build}
out=${1:-$build/gui-screenshots/views}
ring_gpus=${RING_GPUS:-1024}
for program in opsim opsim-gui-screenshots; do
  if [[ ! -x $build/bin/$program ]]; then
    echo "gui-screenshots.sh: $build/bin/$program: not built (cmake --build $build --target $program)" >&2
    exit 2
  fi
done
command -v xvfb-run >/dev/null || { echo "gui-screenshots.sh: xvfb-run: not installed" >&2; exit 2; }
mkdir -p "$out"
ring_dir=$(mktemp -d)
trap 'rm -rf "$ring_dir"' EXIT
ring_trace=()
if [[ $ring_gpus -gt 0 ]]; then
  "$build/bin/opsim" compare --topology "nvlink-ring:$ring_gpus" --strategies ring --comm-only \
    --format json --trace-dir "$ring_dir" >/dev/null
  ring_trace=("$ring_dir/ring.json")
fi
QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1920x1080x24" \
  "$build/bin/opsim-gui-screenshots" "$out" "${ring_trace[@]}"
echo "screenshots in $out"
