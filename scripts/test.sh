#!/usr/bin/env bash
# Builds rdsm and runs the whole test suite; ends with ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
scripts/build.sh
cd build
ctest --output-on-failure -j 2 --timeout 300 "$@"
