#!/usr/bin/env bash
# Runs an OpenSHMEM program over several "hosts": network namespaces joined by a bridge (in a namespace of
# its own), with LAYOUT PEs in each, bootstrapped with the tcp rendezvous. PEs of one namespace share memory;
# across the bridge they talk UCX over TCP (RDSM_HOST_ID tells the hosts apart).
# LAYOUT lists the PEs per host, ranks numbered host by host ("2,3": ranks 0-1 on the first, 2-4 on the
# second); PER_HOST=n means LAYOUT=n,n (the default is 1,1). With EXPECT_FAILURE=1 the job must end by
# itself (no PE hung until PE_TIMEOUT) with some PE failing, and PE 0 must print the expected line.
# Needs root and iproute2; exits 77 (skipped) otherwise.
# PROGRAM_<h>="<command words>" runs that instead of <program> on host h (e.g. PROGRAM_1="qemu-aarch64
# build-aarch64/examples/demo": a mixed-architecture job).
# Usage: [LAYOUT=a,b,..|PER_HOST=n] [PE_TIMEOUT=s] [EXPECT_FAILURE=1] netns_job.sh <program> <expected line
#        of PE 0's output> [program arguments...]
# (rdsm-bench run dsm --netns uses it too.)
set -u
prog=$1 expect=$2
shift 2
IFS=, read -r -a layout <<<"${LAYOUT:-${PER_HOST:-1},${PER_HOST:-1}}"
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "skipped: needs root and iproute2"
  exit 77
fi
tag="r$$"
switch="${tag}s"
hosts=()
work=$(mktemp -d)
cleanup() {
  [ -n "${pids:-}" ] && kill -9 $pids 2>/dev/null
  for ns in "${hosts[@]}" "$switch"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$switch" || { echo "skipped: cannot create network namespaces"; exit 77; }
ip -n "$switch" link add name sw type bridge && ip -n "$switch" link set sw up ||
  { echo "skipped: cannot create a bridge"; exit 77; }
for h in "${!layout[@]}"; do
  ns="${tag}h$h"
  hosts+=("$ns")
  ip netns add "$ns"
  ip link add "${tag}e$h" netns "$ns" type veth peer name "${tag}p$h" netns "$switch"
  ip -n "$switch" link set "${tag}p$h" master sw up
  ip -n "$ns" addr add "10.213.0.$((h + 1))/24" dev "${tag}e$h"
  ip -n "$ns" link set lo up
  ip -n "$ns" link set "${tag}e$h" up
done
# UCX only lists devices that are running: wait for every carrier.
for h in "${!layout[@]}"; do
  for _ in $(seq 50); do
    ip -n "${hosts[$h]}" link show "${tag}e$h" | grep -q LOWER_UP && break
    sleep 0.1
  done
done

total=0
for n in "${layout[@]}"; do total=$((total + n)); done
common=(RDSM_BOOT=tcp RDSM_BOOT_ADDR=10.213.0.1:47931 RDSM_SIZE=$total RDSM_JOB_SECRET="$tag" UCX_TLS=tcp,self)
pids=""
rank=0
for h in "${!layout[@]}"; do
  cmd=("$prog")
  own="PROGRAM_$h"
  [ -z "${!own:-}" ] || read -r -a cmd <<<"${!own}"
  for _ in $(seq "${layout[$h]}"); do
    ip netns exec "${hosts[$h]}" env "${common[@]}" RDSM_RANK="$rank" RDSM_HOST_ID="${hosts[$h]}" \
      UCX_NET_DEVICES="${tag}e$h" timeout "${PE_TIMEOUT:-120}" "${cmd[@]}" "$@" >"$work/pe$rank" 2>&1 &
    pids="$pids $!"
    rank=$((rank + 1))
  done
done
status=0 hung=0
for p in $pids; do
  wait "$p"
  st=$?
  [ $st -eq 0 ] || status=$st
  [ $st -ne 124 ] || hung=1
done
pids=""
for r in $(seq 0 $((total - 1))); do cat "$work/pe$r"; done
[ $hung -eq 0 ] || { echo "FAIL: a PE was still running after ${PE_TIMEOUT:-120} s"; exit 1; }
if [ "${EXPECT_FAILURE:-0}" = 1 ]; then
  [ $status -ne 0 ] || { echo "FAIL: every PE succeeded; the job was expected to fail"; exit 1; }
  grep -qE "$expect" "$work/pe0" || { echo "FAIL: PE 0 did not print /$expect/"; exit 1; }
  echo "netns job failed as expected"
  exit 0
fi
[ $status -eq 0 ] || { echo "FAIL: a PE exited with status $status"; exit 1; }
grep -qxE "$expect" "$work/pe0" || { echo "FAIL: PE 0 did not print '$expect'"; exit 1; }
echo "netns job ok"
