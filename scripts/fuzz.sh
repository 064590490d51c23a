#!/usr/bin/env bash
# Runs every parser fuzz harness (tests/fuzz/) for SECONDS each, starting from a copy of its
# seed corpus, and prints per harness the executions, findings and libFuzzer's exit code.
# Builds build-fuzz/ with clang first (only the harnesses and the libraries they link).
#
#   scripts/fuzz.sh 30                    # every harness, 30 s each
#   scripts/fuzz.sh 600 workload_json     # one harness
#
# Exit code 0 when no harness found anything; 1 otherwise, and the scratch folder holding the
# reproducers (findings/) and logs is kept and printed. OPSIM_FUZZ_BUILD_DIR picks the build
# folder, OPSIM_FUZZ_JOBS the build's parallelism (default 2), OPSIM_FUZZ_KEEP=1 keeps the
# scratch folder also when nothing was found, OPSIM_FUZZ_CONTINUE=1 goes on after a finding
# (libFuzzer's -fork=1 -ignore_crashes=1 ...: for long runs that should list every finding),
# OPSIM_FUZZ_RUNS=N ends each harness after N executions if SECONDS have not passed first.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh SECONDS [HARNESS...]" >&2
  exit 2
fi
seconds=$1
shift
all=(topology_yaml calibration_profile workload_json chrome_trace kineto_trace sweep_spec)
harnesses=("${@:-${all[@]}}")
for h in "${harnesses[@]}"; do
  if [ ! -d "tests/fuzz/corpus/$h" ]; then
    echo "scripts/fuzz.sh: unknown harness '$h' (${all[*]})" >&2
    exit 2
  fi
done

build_dir=${OPSIM_FUZZ_BUILD_DIR:-build-fuzz}
if [ ! -f "$build_dir/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DOPSIM_FUZZ=ON -DOPSIM_BUILD_GUI=OFF -DOPSIM_BUILD_BENCHMARKS=OFF -DOPSIM_WITH_CUDA=OFF \
    >/dev/null
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("${h}_fuzzer"); done
cmake --build "$build_dir" -j "${OPSIM_FUZZ_JOBS:-2}" --target "${targets[@]}"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/opsim-fuzz.XXXXXX")
found=0
continue_opts=()
if [ "${OPSIM_FUZZ_CONTINUE:-0}" = "1" ]; then
  continue_opts=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
runs_opts=()
if [ -n "${OPSIM_FUZZ_RUNS:-}" ]; then
  runs_opts=(-runs="$OPSIM_FUZZ_RUNS")
fi
count() { find "$1" -type f -name "$2-*" | wc -l; }
printf '%-20s %11s %7s %7s %8s %5s %5s %4s\n' harness executions exec/s crashes timeouts ooms \
  leaks exit
for h in "${harnesses[@]}"; do
  dir=$scratch/$h
  mkdir -p "$dir/corpus" "$dir/findings"
  cp -r "tests/fuzz/corpus/$h/." "$dir/corpus/"
  dict=()
  [ -f "tests/fuzz/dict/$h.dict" ] && dict=(-dict="tests/fuzz/dict/$h.dict")
  rc=0
  "$build_dir/bin/${h}_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$dir/findings/" "${continue_opts[@]}" \
    "${runs_opts[@]}" "${dict[@]}" "$dir/corpus" >"$dir/log" 2>&1 || rc=$?
  # The final stats, or in fork mode the last status line "#N: cov: ...".
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  [ -n "$executions" ] || executions=$(sed -n 's/^#\([0-9]*\):* .*/\1/p' "$dir/log" | tail -1)
  per_s=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
  crashes=$(count "$dir/findings" crash)
  timeouts=$(count "$dir/findings" timeout)
  ooms=$(count "$dir/findings" oom)
  leaks=$(count "$dir/findings" leak)
  printf '%-20s %11s %7s %7s %8s %5s %5s %4s\n' "$h" "${executions:-?}" "${per_s:-?}" \
    "$crashes" "$timeouts" "$ooms" "$leaks" "$rc"
  if [ "$rc" -ne 0 ] || [ "$((crashes + timeouts + ooms + leaks))" -ne 0 ]; then
    found=1
    echo "  log: $dir/log"
    find "$dir/findings" -type f | sort | head -5 | sed 's/^/  reproducer: /'
  fi
done

if [ "$found" -ne 0 ]; then
  echo "fuzz: findings; reproducers and logs are in $scratch"
  exit 1
fi
if [ "${OPSIM_FUZZ_KEEP:-0}" = "1" ]; then
  echo "fuzz: nothing found; corpora and logs are in $scratch"
else
  rm -rf "$scratch"
  echo "fuzz: nothing found"
fi
