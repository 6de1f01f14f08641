#!/usr/bin/env bash
# Measures what a job costs per PE as PEs grow: shmem_init, the first barrier and shmem_finalize (ms),
# resident memory and mappings after init, oversubscribed on this machine. Prints CSV lines
#   SCALE,<PEs>,<quantity>,<median over PEs>,<max>,<unit>
# Usage: scripts/scaling.sh [BUILD] [PE counts...]   (default: build, 2 4 8 16 32 64)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(2 4 8 16 32 64)
for n in "${counts[@]}"; do
  # A small heap: the measurement is of the runtime, not of touching a big heap.
  out=$(mktemp)
  SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-64M} "$build/bin/rdsmrun" -n "$n" --timeout 300 \
    "$build/bench/scale_bench" >"$out" 2>&1 || { cat "$out"; echo "scaling: the $n-PE job failed" >&2; rm -f "$out"; exit 1; }
  grep '^SCALE,' "$out"
  rm -f "$out"
done
