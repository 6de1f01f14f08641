#!/usr/bin/env bash
# Cross-builds rdsm for 64-bit ARM in ./build-aarch64 (library, tools, tests), installing what it needs: the
# arm64 architecture in dpkg, Debian's cross compiler, the arm64 UCX and GoogleTest packages and qemu-user.
# The PMIx bootstrap is left out (RDSM_WITH_PMIX=OFF): libpmix-dev cannot be installed for two architectures at
# once, and installing the arm64 one would remove the native one. Arm64 programs run here as
# `qemu-aarch64 <program>`; the native ./build's rdsmrun (built too if missing) launches them.
# Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "build-aarch64: adding the arm64 architecture to dpkg"
  $sudo dpkg --add-architecture arm64
  $sudo apt-get update -qq
fi
packages=(g++-aarch64-linux-gnu qemu-user libc6:arm64 libstdc++6:arm64 libucx-dev:arm64 libgtest-dev:arm64)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-aarch64: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The native launcher for the emulated PEs.
if [ ! -x build/bin/rdsmrun ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDSM_WERROR=ON >/dev/null
  cmake --build build -j "$(nproc)" --target rdsmrun 2>&1 | grep -Ev "^\[|^-- |Built target" || true
fi
toolchain=()  # given once: a configured tree keeps it (cmake warns when it is given again)
[ -f build-aarch64/CMakeCache.txt ] || toolchain=(-DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake)
cmake -S . -B build-aarch64 "${toolchain[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDSM_WERROR=ON -DRDSM_WITH_PMIX=OFF \
  -DRDSM_HOST_BUILD="$PWD/build" "$@" >/dev/null
cmake --build build-aarch64 -j "$(nproc)" 2>&1 | grep -Ev "^\[|^-- |Built target|Consolidate compiler" || true
test -x build-aarch64/bin/rdsmrun
