#!/usr/bin/env bash
# Builds rdsm for aarch64 (scripts/build-aarch64.sh, beside the native ./build) and runs the cross-built
# tests under qemu-aarch64: the unit, cache-maintenance, OpenSHMEM, collective and DSM tests at 2 and 4 PEs,
# launched by the native rdsmrun, and the mixed-architecture jobs (x86-64 and aarch64 PEs in one job, on one
# host and across two network namespaces). Extra arguments go to ctest. Ends with ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bin/rdsmrun ] || scripts/build.sh
# The mixed jobs run the native build's programs beside the cross-built ones.
cmake --build build -j "$(nproc)" --target rdsmrun demo shmem_amo coll_collectives coll_reduce dsm_bench dsm_test \
  dsm_cache_maintenance coll_errors shmem_rma_typed coll_legacy \
  shmem_lock coll_teams shmem_p2p_sync dsm_release_test 2>&1 | grep -Ev "^\[|^-- |Built target" || true
scripts/build-aarch64.sh
cd build-aarch64
ctest --output-on-failure -j 2 --timeout 300 "$@"
