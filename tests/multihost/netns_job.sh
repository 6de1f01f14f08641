#!/usr/bin/env bash
# Runs an OpenSHMEM program as 2 "hosts": each PE in its own network namespace joined by a veth pair,
# bootstrapped with the tcp rendezvous and talking UCX over TCP across the link. Needs root and iproute2;
# exits 77 (skipped) otherwise. Usage: netns_job.sh <program> <expected output line>
set -u
prog=$1 expect=$2
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

common=(RDSM_BOOT=tcp RDSM_BOOT_ADDR=10.213.0.1:47931 RDSM_SIZE=2 RDSM_JOB_SECRET="$tag" UCX_TLS=tcp,self)
ip netns exec "$b" env "${common[@]}" RDSM_RANK=1 UCX_NET_DEVICES="${tag}y" timeout 60 "$prog" >"$work/pe1" 2>&1 &
pids="$!"
ip netns exec "$a" env "${common[@]}" RDSM_RANK=0 UCX_NET_DEVICES="${tag}x" timeout 60 "$prog" >"$work/pe0" 2>&1 &
pids="$pids $!"
status=0
for p in $pids; do wait "$p" || status=$?; done
pids=""
cat "$work/pe0" "$work/pe1"
[ $status -eq 0 ] || { echo "FAIL: a PE exited with status $status"; exit 1; }
grep -qx "$expect" "$work/pe0" || { echo "FAIL: PE 0 did not print '$expect'"; exit 1; }
echo "netns job ok"
