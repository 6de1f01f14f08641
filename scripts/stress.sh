#!/usr/bin/env bash
# Runs the shutdown cases that once failed now and then, many times in a row, and counts the failures:
#   dsm      2 PEs allocate DSM memory, barrier and finalize (release consistency, the default)
#   dsm-seq  the same in sequential consistency, where the progress thread serves the protocol (UCX once
#            aborted in ucp_worker_destroy, "got REP message", in about 1 of 100 runs)
#   ctx      2 PEs over TCP (UCX_TLS=tcp,self) create a context, add atomically to the next PE, destroy it,
#            barrier and finalize
# Usage: scripts/stress.sh [-n RUNS (200)] [-c dsm|dsm-seq|ctx|all] [-b BUILD_DIR (build)]
# Exits non-zero when any run failed; the output of the first failure of each case is printed.
set -u
runs=200 cases=all build=build
while getopts "n:c:b:" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    c) cases=$OPTARG ;;
    b) build=$OPTARG ;;
    *) echo "usage: $0 [-n runs] [-c dsm|dsm-seq|ctx|all] [-b build_dir]" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
build=${build%/bin}
rdsmrun=$build/bin/rdsmrun program=$build/tests/stress/shutdown_cases
for f in "$rdsmrun" "$program"; do
  [ -x "$f" ] || { echo "stress: $f not built (scripts/build.sh)" >&2; exit 2; }
done
[ "$cases" = all ] && cases="dsm dsm-seq ctx"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
total_failed=0
for c in $cases; do
  tls=all consistency=release program_case=$c
  [ "$c" = ctx ] && tls=tcp,self
  [ "$c" = dsm-seq ] && consistency=sequential program_case=dsm
  failed=0 start=$SECONDS
  for ((i = 1; i <= runs; ++i)); do
    UCX_TLS=$tls RDSM_DSM_CONSISTENCY=$consistency "$rdsmrun" -n 2 --timeout 30 "$program" "$program_case" \
      >"$out" 2>&1
    status=$?
    if [ $status -ne 0 ]; then
      failed=$((failed + 1))
      if [ $failed -eq 1 ]; then
        echo "-- $c: run $i failed with status $status:"
        tail -n 20 "$out"
      fi
    fi
  done
  echo "stress $c (UCX_TLS=$tls, RDSM_DSM_CONSISTENCY=$consistency): $failed of $runs runs failed ($((SECONDS - start)) s)"
  total_failed=$((total_failed + failed))
done
[ $total_failed -eq 0 ]
