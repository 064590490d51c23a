#!/usr/bin/env bash
# Records real training steps on a GPU machine whose python3 has torch with CUDA, with
# scripts/record-pytorch-step.py (4 profiled steps each, after 3 warm-up steps: on an H100 with
# torch 2.11 the first step takes ~0.4 s and the second still ~6x a steady one):
#   mlp-cuda.json.gz       the MLP 1024-4096-4096-1024, batch 64, float32 (as mlp-cpu.json.gz)
#   mlp-cuda-bf16.json.gz  the same MLP, batch 1024, bfloat16 (skipped where unsupported)
#   cnn-cuda.json.gz       the small CNN, batch 64, float32 (as cnn-cpu.json.gz)
# Needs only the checkout: no network, no installs. PYTHON names another interpreter.
# Prints torch's version, the GPU and each step's time; exit 2 with one line when python3 has
# no torch or torch sees no CUDA device. Usage: scripts/gpu-host/record-steps.sh OUTDIR
set -uo pipefail
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: scripts/gpu-host/record-steps.sh OUTDIR" >&2
  exit 2
fi
out=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null; then
  echo "record-steps.sh: no $python on this machine" >&2
  exit 2
fi
t0=$(date +%s)

# One line: torch's version, CUDA's, the GPU, and whether it does bfloat16.
probe=$("$python" - 2>&1 <<'EOF'
import sys
try:
    import torch
except ImportError:
    sys.exit(f"no torch for {sys.executable}")
if not torch.cuda.is_available():
    sys.exit(f"torch {torch.__version__} ({sys.executable}) sees no CUDA device")
bf16 = "yes" if torch.cuda.is_bf16_supported() else "no"
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, "
      f"{torch.cuda.get_device_name()}, bfloat16 {bf16}")
EOF
)
probe_rc=$?
if [ $probe_rc -ne 0 ]; then
  echo "record-steps.sh: ${probe##*$'\n'}" >&2
  exit 2
fi
echo "$probe"
mkdir -p "$out" || exit 2

failed=0
record() {
  local name=$1
  shift
  echo "== [$(($(date +%s) - t0)) s] $name"
  timeout 60 "$python" "$root/scripts/record-pytorch-step.py" --device cuda --warmup 3 --steps 4 "$@" \
    -o "$out/$name" || failed=1
}
record mlp-cuda.json.gz --model mlp
case $probe in
  *"bfloat16 yes") record mlp-cuda-bf16.json.gz --model mlp --batch 1024 --dtype bfloat16 ;;
  *) echo "== mlp-cuda-bf16.json.gz skipped: this GPU does not support bfloat16" ;;
esac
record cnn-cuda.json.gz --model cnn
echo "== [$(($(date +%s) - t0)) s] done$([ $failed -eq 0 ] || echo ', with failures')"
exit $failed
