#!/usr/bin/env bash
# The tests on a fresh machine: set up, build (warnings are errors under CI=true), run ctest,
# then build the executor and graph-storage tests with ThreadSanitizer and run them
# (OPSIM_SKIP_TSAN=1 skips), the non-GUI tests with AddressSanitizer and
# UndefinedBehaviorSanitizer (OPSIM_SKIP_ASAN=1 skips), and every parser fuzz harness for
# 20 s (OPSIM_SKIP_FUZZ=1 skips). Each stage prints its wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
stage_start=$SECONDS
stage_done() { echo "== $1 took $((SECONDS - stage_start)) s"; stage_start=$SECONDS; }

scripts/setup.sh
stage_done "setup and build (build/)"
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 600 "$@")
stage_done "ctest (build/)"

if [ "${OPSIM_SKIP_TSAN:-0}" != "1" ]; then
  echo "== executor and graph-storage tests under ThreadSanitizer (build-tsan/)"
  # -g1 as in build/: line tables are all a race report's file:line stacks need.
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPSIM_SANITIZE=thread \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DOPSIM_BUILD_GUI=OFF -DOPSIM_BUILD_BENCHMARKS=OFF -DOPSIM_WITH_CUDA=OFF >/dev/null
  cmake --build build-tsan -j "$(nproc)" --target exec_test exec_gpu_test engine_test
  # halt_on_error: any data race fails the run.
  (cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
    ctest --output-on-failure -j "$(nproc)" --timeout 600 -R "^(Exec|Frontend|Scheduler|OpGraph|ChunkedVector|BlockPrefetch|NameStore)")
  stage_done "ThreadSanitizer stage"
fi

if [ "${OPSIM_SKIP_ASAN:-0}" != "1" ]; then
  echo "== non-GUI tests under AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/)"
  # clang at -O1 -g1: reports keep file:line stacks (line tables), and clang compiles the
  # instrumented code in about 60 % of GCC's time (389 s against 646 s for these targets on
  # 2 cores; GCC at RelWithDebInfo's -O2 -g took about 1390 s). The tests take 30 s either way.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DOPSIM_SANITIZE=address,undefined -DOPSIM_BUILD_GUI=OFF -DOPSIM_BUILD_BENCHMARKS=OFF \
    -DOPSIM_WITH_CUDA=OFF >/dev/null
  # Not here: gui_test (no GUI in this build); cli_test and calibration_cli_test (they run the
  # whole CLI in child processes: building it instrumented would double this stage's time);
  # exec_experiments_test (it asserts real wall times, which the sanitizers' slowdown skews).
  asan_targets=(hw_models_test topologies_test engine_test engine_trace_test exec_test
    sim_test experiments_test calibration_test topology_yaml_replay calibration_profile_replay
    workload_json_replay chrome_trace_replay kineto_trace_replay sweep_spec_replay
    kineto_trace_test replay_test)
  cmake --build build-asan -j "$(nproc)" --target "${asan_targets[@]}"
  # Any report fails the run; a test whose binary is not built above shows up as *_NOT_BUILT.
  # Left out as well: IsolatedRun.ReportsACrashClearly raises SIGSEGV in a child on purpose and
  # expects death by signal 11, which ASan turns into exit status 1;
  # Validation.SmallWorkloadRunsForRealAndSimulated expects a real run of its workload to take
  # about 5 ms, so that a 50 ms minimum needs more than two runs (instrumented, two can
  # already take 50 ms); nccl_check_docs runs the CLI, which this build leaves out.
  asan_skip='^IsolatedRun\.ReportsACrashClearly$|^Validation\.SmallWorkloadRunsForRealAndSimulated$'
  asan_skip="$asan_skip|^nccl_check_docs\$"
  (cd build-asan && ASAN_OPTIONS="halt_on_error=1:detect_leaks=1" \
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    ctest --output-on-failure -j "$(nproc)" --timeout 600 -E "_NOT_BUILT\$|$asan_skip")
  stage_done "AddressSanitizer + UndefinedBehaviorSanitizer stage"
fi

if [ "${OPSIM_SKIP_FUZZ:-0}" != "1" ]; then
  echo "== parser fuzz harnesses, 20 s each (build-fuzz/)"
  scripts/fuzz.sh 20
  stage_done "fuzz stage"
fi
