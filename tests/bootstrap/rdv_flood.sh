#!/usr/bin/env bash
# A flood of idle connections to a running job's rendezvous:
#   rdv_flood.sh rdsmrun|rdsmrun_lowfd|tcp RDSMRUN BOOT_PE FLOOD_PY
# The server (rdsmrun, or PE 0 of the tcp bootstrap) runs with `ulimit -n 256` and gets 1100 idle strangers;
# rdsmrun_lowfd gives rdsmrun 40 descriptors, fewer than it keeps strangers, so accept fails with EMFILE.
# It must stay nearly idle (< 10 % of one CPU over 2 s: a server that spins on accept gets more even on a
# loaded machine), write few log lines, and still let the job's PEs join and finish within 3 s while the
# strangers hold their connections (a server out of descriptors makes them wait until strangers time out).
set -u
mode=$1 RDSMRUN=$2 PE=$3 FLOOD=$4
for v in $(env | grep -oE '^(RDSM|PMIX|OMPI)_[A-Za-z0-9_]*' || true); do unset "$v"; done

work=$(mktemp -d /tmp/rdv_flood.XXXXXX)
export BOOT_PE_PIDDIR=$work/pids W=$work PE
mkdir -p "$BOOT_PE_PIDDIR"
pids=()
cleanup() {
  for p in "${pids[@]}"; do { kill -9 "$p" && wait "$p"; } 2>/dev/null; done
  for f in "$BOOT_PE_PIDDIR"/pid.*; do [[ -e $f ]] && kill -9 "$(cat "$f")" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL [rdv_flood $mode]: $*" >&2
  for f in "$work"/*.err "$work"/*.out; do [[ -s $f ]] && { echo "--- $f"; head -40 "$f"; } >&2; done
  exit 1
}
# wait_for SECONDS COMMAND...: polls every 50 ms.
wait_for() {
  local n=$(($1 * 20)); shift
  while ! "$@"; do ((n-- > 0)) || return 1; sleep 0.05; done
}
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
dead() { ! alive "$1"; }
cpu_ticks() { local s; s=$(cat "/proc/$1/stat") || return 1; s=${s##*) }; set -- $s; echo $((${12} + ${13})); }
listening() { grep -qiE "^ *[0-9]+: 0100007F:$(printf %04X "$1") 00000000:0000 0A" /proc/net/tcp; }

nofile=256
[[ $mode == rdsmrun_lowfd ]] && nofile=40
if [[ $mode == rdsmrun* ]]; then
  # The PEs wait for $W/go before they join; the rendezvous address is in their environment.
  (ulimit -n $nofile && exec "$RDSMRUN" -n 2 --timeout 60 sh -c \
    'echo "$RDSM_BOOT_ADDR" >"$W/addr.$RDSM_RANK"; while [ ! -e "$W/go" ]; do sleep 0.05; done; exec "$PE" ok 20') \
    >"$work/job.out" 2>"$work/job.err" &
  server=$!
  pids+=("$server")
  wait_for 10 test -s "$work/addr.0" || fail "the job did not start"
  addr=$(cat "$work/addr.0")
  port=${addr##*:}
  log=$work/job.err
else
  port=$("$PE" freeport) || fail "no free port"
  export RDSM_BOOT=tcp RDSM_BOOT_ADDR=127.0.0.1:$port RDSM_SIZE=2 RDSM_JOB_SECRET=flood-test-secret RDSM_BOOT_TIMEOUT=60
  (ulimit -n $nofile && RDSM_RANK=0 exec "$PE" ok 20) >"$work/pe0.out" 2>"$work/pe0.err" &
  server=$!
  pids+=("$server")
  wait_for 10 listening "$port" || fail "PE 0 does not listen on port $port"
  log=$work/pe0.err
fi

python3 "$FLOOD" "$port" 1100 60 "$work/ready" 2>"$work/flood.err" &
pids+=($!)
wait_for 15 test -s "$work/ready" || fail "the flood did not finish connecting"
read -r _ connected <"$work/ready"
((connected >= 300)) || fail "only $connected of 1100 strangers connected; the test needs more than the server's $nofile descriptors"
alive "$server" || fail "the rendezvous process ended under the flood"

# (a) CPU time over 2 s of wall time.
hz=$(getconf CLK_TCK)
t0=$(cpu_ticks "$server") || fail "cannot read /proc/$server/stat"
sleep 2
t1=$(cpu_ticks "$server") || fail "cannot read /proc/$server/stat"
pct=$(((t1 - t0) * 100 / (2 * hz)))
echo "rdv_flood $mode: $connected strangers connected; server used ${pct}% of a CPU over 2 s"
((pct < 10)) || fail "the rendezvous used ${pct}% of a CPU over 2 s with $connected idle strangers (spinning?)"

# (c) the job's PEs still join and finish while the strangers hold their connections.
ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(ms)
if [[ $mode == rdsmrun* ]]; then
  touch "$work/go"
  wait_for 10 dead "$server" || fail "the job did not finish within 10 s of its PEs starting to join"
  wait "$server"; rc=$?
  [[ $rc == 0 ]] || fail "rdsmrun exited $rc"
  grep -q '^boot_pe: 2 PEs ok (launcher)' "$work/job.out" || fail "the job did not report success"
else
  RDSM_RANK=1 "$PE" ok 20 >"$work/pe1.out" 2>"$work/pe1.err" &
  pe1=$!
  pids+=("$pe1")
  wait_for 10 dead "$pe1" || fail "PE 1 did not finish within 10 s"
  wait_for 6 dead "$server" || fail "PE 0 did not finish"
  wait "$pe1"; rc1=$?
  wait "$server"; rc0=$?
  [[ $rc0 == 0 && $rc1 == 0 ]] || fail "PEs exited $rc0 and $rc1"
  grep -q '^boot_pe: 2 PEs ok (tcp)' "$work/pe0.out" || fail "the job did not report success"
fi
took=$(($(ms) - t0))
echo "rdv_flood $mode: the job finished $took ms after its PEs started joining"
((took < 3000)) || fail "the job took $took ms to finish with strangers connected (expected under 3 s)"

# (b) few log lines, and the operator is told what happened.
lines=$(wc -l <"$log")
echo "rdv_flood $mode: $lines log lines"
((lines <= 20)) || fail "$lines log lines from the rendezvous (expected a rate-limited handful)"
grep -qE 'unauthenticated' "$log" || fail "no line says that unauthenticated connections were dropped"
cat "$log"
echo "rdv_flood $mode: ok"
