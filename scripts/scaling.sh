#!/usr/bin/env bash
# Measures what a job costs per PE as PEs grow: shmem_init, the first barrier and shmem_finalize (ms),
# resident memory and mappings after init, and what each PE's bootstrap collectives moved through the
# launcher (bytes sent and received, as the runtime logs them at finalize with RDSM_LOG_LEVEL=info),
# oversubscribed on this machine. Prints CSV lines
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
  RDSM_LOG_LEVEL=info SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-64M} "$build/bin/rdsmrun" -n "$n" --timeout 300 \
    "$build/bench/scale_bench" >"$out" 2>&1 || { cat "$out"; echo "scaling: the $n-PE job failed" >&2; rm -f "$out"; exit 1; }
  grep '^SCALE,' "$out"
  # "... bootstrap traffic: C collectives, S bytes sent, R bytes received", one line per PE
  sed -n 's/.*bootstrap traffic: \([0-9]*\) collectives, \([0-9]*\) bytes sent, \([0-9]*\) bytes received.*/\1 \2 \3/p' "$out" |
    awk -v n="$n" '
      { c[NR] = $1; s[NR] = $2; r[NR] = $3 }
      function report(name, a, unit,   k, i, j, t, m) {
        k = 0; for (i in a) v[++k] = a[i]
        for (i = 1; i <= k; ++i) for (j = i + 1; j <= k; ++j) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        m = (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
        printf "SCALE,%d,%s,%.3f,%.3f,%s\n", n, name, m, v[k], unit
      }
      END { if (NR == 0) exit 1; report("boot_collectives", c, "count"); report("boot_sent", s, "bytes");
            report("boot_received", r, "bytes") }' ||
    { echo "scaling: no PE reported its bootstrap traffic" >&2; exit 1; }
  rm -f "$out"
done
