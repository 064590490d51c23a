#!/usr/bin/env bash
# The GPU checks of a lent device machine, in one call (~2 min on an H100 host): the GPU test
# binaries, a quick calibration, the GPU suite and the launch probes on it, then the
# GPU-bound workloads interleaved. Run from the checkout's root after
# `source scripts/gpu-host/env.sh PACKDIR`. Usage: scripts/gpu-host/checks.sh OUTDIR
# (the profile, the calibration's JSON and the real/simulated traces land in OUTDIR).
set -uo pipefail
out=${1:?usage: scripts/gpu-host/checks.sh OUTDIR}
mkdir -p "$out"
t0=$(date +%s)
step() { echo "== [$(($(date +%s) - t0)) s] $*"; }
step tests
for t in exec_gpu_test exec_experiments_test; do
  timeout 60 build/bin/$t --gtest_brief=1 2>&1 | tail -3
  echo "$t rc=${PIPESTATUS[0]}"
done
step "calibrate --quick"
timeout 90 build/bin/opsim calibrate --quick --out "$out/q.yaml" --format json \
  >"$out/calibrate.json" 2>/dev/null
echo "rc=$?"
if ! grep -q "name: gpu0" "$out/q.yaml" 2>/dev/null; then
  echo "checks.sh: the calibration measured no GPU on this host (see opsim calibrate's output)" >&2
  exit 2
fi
step "GPU suite"
timeout 90 build/bin/opsim validate --suite experiments/validation-gpu --profile "$out/q.yaml" \
  --markdown --trace-dir "$out/traces"
step "launch probes"
timeout 60 build/bin/opsim validate --suite experiments/gpu-launch-probes --profile "$out/q.yaml" \
  --markdown --trace-dir "$out/traces"
step "GPU-bound workloads, interleaved"
bound=$(mktemp -d)
cp experiments/validation-gpu/*.json "$bound/" && rm "$bound/gpu-book-b-cpu-and-gpu.json"
timeout 180 build/bin/opsim validate --suite "$bound" --profile "$out/q.yaml" --interleave 3 \
  --markdown
step done
