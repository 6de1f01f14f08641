#!/usr/bin/env bash
# Runs an OpenSHMEM program as 2 "hosts": two network namespaces joined by a veth pair, with PER_HOST PEs
# in each (1 by default; ranks 0.. in the first), bootstrapped with the tcp rendezvous. PEs of one
# namespace share memory; across the link they talk UCX over TCP (RDSM_HOST_ID tells the hosts apart).
# Needs root and iproute2; exits 77 (skipped) otherwise.
# Usage: [PER_HOST=n] [PE_TIMEOUT=s] netns_job.sh <program> <expected output line> [program arguments...]
# (rdsm-bench run dsm --netns uses it too.)
set -u
prog=$1 expect=$2
shift 2
per_host=${PER_HOST:-1}
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "skipped: needs root and iproute2"
  exit 77
fi
tag="r$$"
a="${tag}a" b="${tag}b"
work=$(mktemp -d)
cleanup() {
  [ -n "${pids:-}" ] && kill -9 $pids 2>/dev/null
  ip netns del "$a" 2>/dev/null
  ip netns del "$b" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$a" && ip netns add "$b" || { echo "skipped: cannot create network namespaces"; exit 77; }
ip link add "${tag}x" netns "$a" type veth peer name "${tag}y" netns "$b"
ip -n "$a" addr add 10.213.0.1/24 dev "${tag}x"
ip -n "$b" addr add 10.213.0.2/24 dev "${tag}y"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "${tag}x" up
ip -n "$b" link set "${tag}y" up
# UCX only lists devices that are running: wait for the veth carrier on both ends.
for _ in $(seq 50); do
  ip -n "$a" link show "${tag}x" | grep -q LOWER_UP && ip -n "$b" link show "${tag}y" | grep -q LOWER_UP && break
  sleep 0.1
done

common=(RDSM_BOOT=tcp RDSM_BOOT_ADDR=10.213.0.1:47931 RDSM_SIZE=$((2 * per_host)) RDSM_JOB_SECRET="$tag"
        UCX_TLS=tcp,self)
pids=""
for rank in $(seq 0 $((2 * per_host - 1))); do
  if [ "$rank" -lt "$per_host" ]; then ns=$a dev="${tag}x"; else ns=$b dev="${tag}y"; fi
  ip netns exec "$ns" env "${common[@]}" RDSM_RANK="$rank" RDSM_HOST_ID="$ns" UCX_NET_DEVICES="$dev" \
    timeout "${PE_TIMEOUT:-120}" "$prog" "$@" >"$work/pe$rank" 2>&1 &
  pids="$pids $!"
done
status=0
for p in $pids; do wait "$p" || status=$?; done
pids=""
cat "$work"/pe*
[ $status -eq 0 ] || { echo "FAIL: a PE exited with status $status"; exit 1; }
grep -qxE "$expect" "$work/pe0" || { echo "FAIL: PE 0 did not print '$expect'"; exit 1; }
echo "netns job ok"
