#!/usr/bin/env bash
# The main job on a fresh machine: set up, build, then compare the gradient-sync strategies
# on the book's 4-GPU server (160 MB) and write Perfetto traces to traces/.
# Extra arguments go to `opsim compare`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/bin/opsim compare --trace-dir traces "$@"
echo "Traces (open in https://ui.perfetto.dev or build/bin/opsim-gui): $(pwd)/traces/"
