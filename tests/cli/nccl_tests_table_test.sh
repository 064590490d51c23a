#!/bin/sh
# scripts/nccl-tests-table.py: copies one test's table of an nccl-tests log as printed, and
# refuses what it cannot copy with one line and exit code 2.
set -u
script="$1/scripts/nccl-tests-table.py"
log="$1/tests/cli/data/nccl_tests_two_tables.log"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$1/tests/cli/script_refusal.sh"

"$script" "$log" sendrecv_perf > "$scratch/out.csv" || fail "sendrecv_perf: exit $?"
cat > "$scratch/expected.csv" <<'CSV'
bytes,count,type,redop,time_us,algbw_GBps,busbw_GBps,time_us_inplace,algbw_GBps_inplace,busbw_GBps_inplace
33554432,4194304,double,sum,1400.87,23.95,23.95,1373.59,24.43,24.43
67108864,8388608,double,sum,2724.94,24.63,24.63,2721.99,24.65,24.65
CSV
cmp "$scratch/out.csv" "$scratch/expected.csv" || fail "sendrecv_perf table differs"
[ "$("$script" "$log" all_reduce_perf | sed -n 2p)" = \
  "33554432,4194304,double,sum,1405.25,23.88,42.98,1406.35,23.86,42.95" ] || fail "all_reduce_perf"

for args in "$log alltoall_perf" "$1/tests/cli/data missing_perf" "$scratch/none x" "$log"; do
  expect_refusal "$script" "$args"
done
echo "nccl-tests-table.py: ok"
