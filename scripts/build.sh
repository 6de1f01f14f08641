#!/usr/bin/env bash
# Configures and builds rdsm in ./build (warnings are errors). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDSM_WERROR=ON "$@" >/dev/null
cmake --build build -j "$(nproc)" 2>&1 | grep -Ev "^\[|^-- |Built target|Consolidate compiler" || true
test -x build/bin/rdsmrun
