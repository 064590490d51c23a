#!/usr/bin/env bash
# Packs this checkout's build (build/) for a GPU machine that has the NVIDIA driver and CUDA
# runtime but none of opsim's Debian packages and no network: the programs the GPU checks
# use, the CUDA plug-in, Qt's offscreen platform, and every library they link beyond glibc
# (libstdc++/libgcc_s apart, used there only if the host's are older).
# Usage: scripts/gpu-host/pack.sh OUTDIR   (then carry OUTDIR and the checkout there, and
#        `source scripts/gpu-host/env.sh OUTDIR` from the checkout's root on that machine)
set -euo pipefail
out=${1:?usage: scripts/gpu-host/pack.sh OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
[ -x build/bin/opsim ] && [ -f build/lib/libopsim_cuda.so ] ||
  { echo "pack.sh: build/bin/opsim or build/lib/libopsim_cuda.so missing: build with CUDA first" >&2; exit 2; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/platforms" "$stage/deps" "$stage/cxx" "$out"
programs=(opsim exec_gpu_test exec_experiments_test calibration_test
          calibration_cli_test cli_test)
for p in "${programs[@]}"; do strip -o "$stage/bin/$p" "build/bin/$p"; done
cp build/lib/libopsim_cuda.so "$stage/lib/"
plugin=/usr/lib/x86_64-linux-gnu/qt6/plugins/platforms/libqoffscreen.so
[ -f "$plugin" ] && cp "$plugin" "$stage/lib/platforms/"
# The libraries they link, less glibc's own and CUDA's (the GPU host has those).
for f in "$stage"/bin/* "$stage"/lib/*.so "$stage"/lib/platforms/*.so; do
  ldd "$f" | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libcuda.so*|libcudart*|libcublas*) ;;
    libstdc++.so*|libgcc_s.so*) cp -L "$lib" "$stage/cxx/" ;;
    *) cp -L "$lib" "$stage/deps/" ;;
  esac
done
echo "$root" > "$stage/source_dir"  # tests find their data under the path they were built in
tar -C "$stage" -cJf "$out/opsim-gpu-host.tar.xz" .
echo "packed $(du -h "$out/opsim-gpu-host.tar.xz" | cut -f1): $out/opsim-gpu-host.tar.xz"
