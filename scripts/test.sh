#!/usr/bin/env bash
# The tests on a fresh machine: set up, build (warnings are errors under CI=true), run ctest,
# then build the executor tests with ThreadSanitizer and run them (OPSIM_SKIP_TSAN=1 skips).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 600 "$@")

if [ "${OPSIM_SKIP_TSAN:-0}" != "1" ]; then
  echo "== executor tests under ThreadSanitizer (build-tsan/)"
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPSIM_SANITIZE=thread \
    -DOPSIM_BUILD_GUI=OFF -DOPSIM_BUILD_BENCHMARKS=OFF -DOPSIM_WITH_CUDA=OFF >/dev/null
  cmake --build build-tsan -j "$(nproc)" --target exec_test exec_gpu_test engine_test
  # halt_on_error: any data race fails the run.
  (cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
    ctest --output-on-failure -j "$(nproc)" --timeout 600 -R "^(Exec|Frontend|Scheduler|OpGraph)")
fi
