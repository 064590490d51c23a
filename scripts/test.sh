#!/usr/bin/env bash
# The tests on a fresh machine: set up, build (warnings are errors under CI=true), run ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600 "$@"
