# Sourced on the GPU machine from the checkout's root: unpacks what scripts/gpu-host/pack.sh
# made into build/ and sets the environment to run it. Usage: source scripts/gpu-host/env.sh OUTDIR
_pack=${1:?usage: source scripts/gpu-host/env.sh OUTDIR}/opsim-gpu-host.tar.xz
_root=$PWD
_unpacked=$(mktemp -d)
tar -C "$_unpacked" -xJf "$_pack"
mkdir -p build/bin build/lib
cp -f "$_unpacked"/bin/* build/bin/
cp -rf "$_unpacked"/lib/* build/lib/
# Tests read data from the source path compiled into them: point it at this checkout.
_built_in=$(cat "$_unpacked/source_dir")
if [ "$_built_in" != "$_root" ] && [ ! -e "$_built_in" ]; then
  mkdir -p "$(dirname "$_built_in")" && ln -s "$_root" "$_built_in"
fi
# cuBLAS and the CUDA runtime: the toolkit's, wherever the host has them.
_cuda_libs=$(find / -xdev \( -name 'libcublasLt.so.*' -o -name 'libcudart.so.*' \) \
  -not -path '/proc/*' -exec dirname {} \; 2>/dev/null | sort -u | paste -sd:)
LD_LIBRARY_PATH=$_unpacked/deps${_cuda_libs:+:$_cuda_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The packed libstdc++ only where the host's is older than the build's.
_need=$(grep -ao 'GLIBCXX_3\.4\.[0-9]*' "$_unpacked/cxx/libstdc++.so.6" 2>/dev/null | sort -V | tail -1)
if [ -n "$_need" ] && ! grep -qa "$_need" /usr/lib/x86_64-linux-gnu/libstdc++.so.6 2>/dev/null; then
  LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$_unpacked/cxx
fi
export LD_LIBRARY_PATH QT_PLUGIN_PATH=$_root/build/lib QT_QPA_PLATFORM=offscreen
echo "opsim for this GPU host: build/bin (libraries from $_unpacked)"
unset _pack _root _built_in _cuda_libs _need
