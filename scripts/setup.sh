#!/usr/bin/env bash
# Installs what opsim needs from Debian (idempotent), then configures and builds into build/.
# Usage: scripts/setup.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git python3
  libsimgrid-dev libboost-graph-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev libtbb-dev libstarpu-dev
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev fonts-dejavu-core
  xvfb xauth
  openmpi-bin libopenmpi-dev  # mpirun -n K opsim sweep (built when CMake finds MPI)
  clang libclang-rt-dev  # scripts/test.sh's AddressSanitizer stage and fuzz harnesses (libFuzzer)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "opsim setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build_dir=${OPSIM_BUILD_DIR:-build}
# CI makes warnings errors; elsewhere the build keeps whatever it was configured with, so
# running the two README commands one after the other does not rebuild everything.
extra=()
[ "${CI:-}" = "true" ] && extra+=(-DOPSIM_WERROR=ON)
# -g1 (line tables: profilers and backtraces keep file:line) instead of -g: a third less
# compile time. Arguments override it, e.g. -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG".
release_flags="-O2 -g1 -DNDEBUG"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$release_flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$release_flags" \
  "${extra[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
