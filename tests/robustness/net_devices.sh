#!/usr/bin/env bash
# Which network devices a one-host job listens on: net_devices.sh lo_only|user_devices RDSMRUN ROBUST_PE
#   lo_only       rdsmrun's PEs listen on loopback only (rdsmrun sets UCX_NET_DEVICES=lo), and there is such
#                 a listener (UCX's tcp transport on lo, which peer-failure detection uses)
#   user_devices  a UCX_NET_DEVICES the user set reaches the PEs unchanged; with an external interface given,
#                 a PE listens on it
# The PEs are found as rdsmrun's children; their listening sockets by matching /proc/PID/fd socket inodes with
# the LISTEN entries of /proc/net/tcp and tcp6. rdsmrun (started here) is killed by PID on the way out.
set -u
case_name=$1 RDSMRUN=$2 PE=$3
for v in $(env | grep -oE '^(RDSM|PMIX|OMPI|UCX|SHMEM)_[A-Za-z0-9_]*' || true); do unset "$v"; done

work=$(mktemp -d /tmp/net_devices.XXXXXX)
started=()
cleanup() {
  for p in "${started[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
source "$(dirname "$0")/../support/expect_job.sh"
fail() {
  echo "FAIL [$case_name]: $*" >&2
  for f in "$work"/*.err "$work"/*.out; do [[ -s $f ]] && { echo "--- $f"; head -c 4000 "$f"; } >&2; done
  exit 1
}

# Starts a 2-PE job that waits (robust_pe sleep); sets $job (rdsmrun's pid) and $pes (the PEs' pids).
start_job() {
  start_sleeping_job 4000 400
  pes=$(cat /proc/"$job"/task/*/children 2>/dev/null)
  [[ $(wc -w <<<"$pes") == 2 ]] || fail "expected 2 PEs under rdsmrun, found '$pes'"
}
finish_job() {
  wait "$job"
  local rc=$?
  [[ $rc == 0 ]] || fail "the job exited $rc"
}

# Prints "pid hexaddr hexport" for every listening TCP socket of the given processes.
listeners() {
  local pid inodes
  for pid in "$@"; do
    inodes=$(ls -l /proc/"$pid"/fd 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')
    [[ -n $inodes ]] || continue
    awk -v pid="$pid" -v inodes=" $inodes" '
      FNR > 1 && $4 == "0A" && index(inodes, " " $10 " ") { split($2, a, ":"); print pid, a[1], a[2] }
    ' /proc/net/tcp /proc/net/tcp6
  done
}
# /proc/net/tcp* address in hex: 127.0.0.0/8, ::1, or ::ffff:127.x.
is_loopback() {
  local a=${1^^}
  if ((${#a} == 8)); then [[ ${a:6:2} == 7F ]]; return; fi
  [[ $a == 00000000000000000000000001000000 ]] && return 0
  [[ ${a:0:24} == 0000000000000000FFFF0000 && ${a:30:2} == 7F ]]
}
pe_env() { tr '\0' '\n' <"/proc/$1/environ" | grep "^$2=" ; }

case $case_name in
  lo_only)
    start_job
    listeners $pes >"$work/listeners.out"
    n=$(wc -l <"$work/listeners.out")
    echo "lo_only: the PEs ($pes) have $n listening TCP sockets"
    ((n > 0)) || fail "no listening socket found: UCX's tcp transport should listen on lo"
    while read -r pid addr port; do
      is_loopback "$addr" || fail "PE pid $pid listens on a non-loopback address ($addr port $((16#$port)))"
    done <"$work/listeners.out"
    for p in $pes; do
      [[ $(pe_env "$p" UCX_NET_DEVICES) == UCX_NET_DEVICES=lo ]] || fail "PE pid $p has no UCX_NET_DEVICES=lo"
    done
    finish_job ;;
  user_devices)
    # A device of this machine other than lo that is up and has an IPv4 address, if there is one.
    ext=""
    for d in /sys/class/net/*; do
      d=${d##*/}
      [[ $d == lo || $(cat /sys/class/net/"$d"/operstate 2>/dev/null) != up ]] && continue
      ip -4 -o addr show dev "$d" 2>/dev/null | grep -q inet && { ext=$d; break; }
    done
    want=${ext:-lo}
    export UCX_NET_DEVICES=$want
    start_job
    for p in $pes; do
      [[ $(pe_env "$p" UCX_NET_DEVICES) == "UCX_NET_DEVICES=$want" ]] || fail "PE pid $p lost UCX_NET_DEVICES=$want"
    done
    if [[ -n $ext ]]; then
      listeners $pes >"$work/listeners.out"
      external=0
      while read -r pid addr port; do is_loopback "$addr" || external=$((external + 1)); done <"$work/listeners.out"
      echo "user_devices: UCX_NET_DEVICES=$ext: $external listening sockets off loopback"
      ((external > 0)) || fail "UCX_NET_DEVICES=$ext was set but no PE listens off loopback"
    else
      echo "user_devices: no external interface here; checked that UCX_NET_DEVICES reaches the PEs"
    fi
    finish_job ;;
  *)
    fail "unknown case" ;;
esac
echo "net_devices $case_name: ok"
