#!/bin/sh
# scripts/nccl-lag-fit.py: recovers a, B and c of a table made from t = a + T/B + c sqrt(T),
# and refuses what it cannot fit with one line and exit code 2.
set -u
script="$1/scripts/nccl-lag-fit.py"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$1/tests/cli/script_refusal.sh"

# all_gather on 8 GPUs: T = 7/8 S in MiB; a = 10 us, B = 370 GB/s (0.3529 MiB/us), c = 4,
# so 4 sqrt(7 x 1024) = 339 us at 1 GiB of S/8.
printf 'op: all_gather\ngpus: 8\n' > "$scratch/made.yaml"
awk 'BEGIN {
  print "bytes,time_us";
  for (s = 16777216; s <= 17179869184; s *= 2) {
    T = 7 / 8 * s / 1048576;
    printf "%.0f,%.4f\n", s, 10 + T / (370e9 / 1048576 / 1e6) + 4 * sqrt(T);
  }
}' > "$scratch/made.csv"
out=$("$script" "$scratch/made.csv") || fail "exit $?"
case "$out" in
  "made.csv: B 370 GB/s, c 4.00 us/sqrt(MiB), a 10.0 us, worst 0.0%, lag at 1 GiB of S/n 339 us; without sqrt: "*) ;;
  *) fail "fit: $out" ;;
esac

head -3 "$scratch/made.csv" > "$scratch/short.csv"
cp "$scratch/made.yaml" "$scratch/short.yaml"
printf 'op: all_gather\n' > "$scratch/nogpus.yaml"
cp "$scratch/made.csv" "$scratch/nogpus.csv"
for args in "$scratch/short.csv" "$scratch/nogpus.csv" "$scratch/none.csv" "$scratch" ""; do
  expect_refusal "$script" "$args"
done
echo "nccl-lag-fit.py: ok"
