#!/usr/bin/env bash
# Diagnosis of stuck jobs, one case per run: the RDSM_HANG_REPORT watchdog, the SIGUSR1 report through rdsmrun,
# a stopped PE, finalize against another collective, and a malformed RDSM_HANG_REPORT.
# Usage: watch.sh <case> <rdsmrun> <hang_cases program>
set -u
case_=$1 rdsmrun=$2 prog=$3
tag="rdsm-watchtest-$$-$RANDOM"
out=$(mktemp)
job=
fail=0

cleanup() {
  if [ -n "$job" ] && kill -0 "$job" 2>/dev/null; then
    kill -TERM "$job" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$job" 2>/dev/null
  fi
  rm -f "$out"
}
trap cleanup EXIT

check() { grep -Eq -- "$1" "$out" || { echo "FAIL: output does not match /$1/"; fail=1; }; }
# mismatch_job PES MODE REGEX [LINE]: the job of mismatched calls ends by itself within 20 s, non-zero, with one
# line naming the mismatch (matching REGEX; the one line counted is LINE, by default collective calls').
mismatch_job() {
  local t0 t1 status n took
  t0=$(date +%s.%N)
  timeout 60 "$rdsmrun" -n "$1" "$prog" "$2" "$tag" >"$out" 2>&1
  status=$?
  t1=$(date +%s.%N)
  cat "$out"
  [ "$status" -ne 0 ] || { echo "FAIL: expected a non-zero exit status, got 0"; fail=1; }
  [ "$status" -ne 124 ] || { echo "FAIL: the job hung and was ended by the test's time limit"; fail=1; }
  check "$3"
  n=$(grep -c "${4:-collective calls do not match}" "$out")
  [ "$n" -eq 1 ] || { echo "FAIL: $n error lines, expected one"; fail=1; }
  took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  echo "the job ended in $took s"
  awk -v t="$took" 'BEGIN { exit !(t > 20) }' && { echo "FAIL: the job took $took s to end (at most 20 s)"; fail=1; }
}
# Waits until the output matches, up to $2 seconds.
wait_for() {
  for _ in $(seq $(($2 * 10))); do
    grep -Eq -- "$1" "$out" && return 0
    sleep 0.1
  done
  echo "FAIL: no line matching /$1/ within $2 s"
  fail=1
  return 1
}
# Starts the job in the background (its PEs carry the tag on their command lines).
start() { "$rdsmrun" "$@" "$tag" >"$out" 2>&1 & job=$!; }
# Ends the background job through rdsmrun (SIGTERM; rdsmrun kills what does not end) and waits for it.
finish() {
  kill -TERM "$job" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$job" 2>/dev/null && { echo "FAIL: rdsmrun did not end within 10 s of SIGTERM"; fail=1; }
  wait "$job" 2>/dev/null
  job=
}
no_leftovers() {
  sleep 0.2
  local left
  left=$(pgrep -f -- "$tag")
  if [ -n "$left" ]; then
    echo "FAIL: processes of the job are still running: $left"
    kill -KILL $left 2>/dev/null
    fail=1
  fi
}

pe1_wait='rdsm: PE 1 has waited [0-9]+\.[0-9] s in shmem_long_wait_until \(until the value at 0x[0-9a-f]+ is == 42; it is 0\)'
pe0_barrier='rdsm: PE 0 has waited [0-9]+\.[0-9] s in shmem_barrier_all \(team WORLD, waiting for PE 1\)'

case $case_ in
report)  # (a) each PE reports by itself once its wait is longer than RDSM_HANG_REPORT
  RDSM_HANG_REPORT=1s start -n 2 --timeout 60 "$prog" wait_forever
  wait_for "$pe1_wait" 30 && wait_for "$pe0_barrier" 10
  grep -Eq 'has waited 0\.' "$out" && { echo "FAIL: a report came before 1 s"; fail=1; }
  sleep 1.5
  n=$(grep -Ec 'rdsm: PE 1 has waited' "$out")
  [ "$n" -eq 1 ] || { echo "FAIL: PE 1 reported its wait $n times, expected once"; fail=1; }
  finish
  ;;
lock)  # the watchdog in shmem_set_lock and in rdsm_dsm_lock (which knows the PE ahead in its queue)
  RDSM_HANG_REPORT=1s start -n 2 --timeout 60 "$prog" lock_held
  wait_for 'rdsm: PE 1 has waited [0-9]+\.[0-9] s in shmem_set_lock \(lock 0x[0-9a-f]+\)' 30
  wait_for 'rdsm: PE 0 has waited [0-9]+\.[0-9] s in shmem_long_wait_until' 10
  finish
  cat "$out"
  RDSM_HANG_REPORT=1s start -n 2 --timeout 60 "$prog" dsm_lock_held
  wait_for 'rdsm: PE 1 has waited [0-9]+\.[0-9] s in rdsm_dsm_lock \(lock 0x[0-9a-f]+, waiting for PE 0\)' 30
  wait_for "$pe0_barrier" 10
  finish
  ;;
signal)  # (b) SIGUSR1 to rdsmrun: every PE writes its state; nothing is reported without it
  env -u RDSM_HANG_REPORT "$rdsmrun" -n 2 --timeout 60 "$prog" wait_forever "$tag" >"$out" 2>&1 &
  job=$!
  wait_for '^ready' 30
  sleep 2
  grep -q 'has waited' "$out" && { echo "FAIL: a report before SIGUSR1 without RDSM_HANG_REPORT"; fail=1; }
  for _ in $(seq 10); do  # until both PEs are in their waits
    kill -USR1 "$job"
    sleep 1
    grep -Eq -- "$pe1_wait" "$out" && grep -Eq -- "$pe0_barrier" "$out" && break
  done
  check 'rdsmrun: report requested \(SIGUSR1\): 2 PEs running'
  check "$pe1_wait"
  check "$pe0_barrier"
  kill -0 "$job" 2>/dev/null || { echo "FAIL: the job ended on SIGUSR1"; fail=1; }
  finish
  ;;
quiet)  # the report names shmem_quiet when operations through UCX wait for a stopped peer
  UCX_TLS=tcp,self RDSM_SHARE_HEAP=0 SHMEM_SYMMETRIC_SIZE=96M start -n 2 --timeout 60 "$prog" quiet_stopped
  wait_for '^ready' 30
  for _ in $(seq 20); do  # until PE 0 is in its quiet
    sleep 1
    kill -USR1 "$job"
    sleep 0.5
    grep -Eq 'rdsm: PE 0 has waited [0-9]+\.[0-9] s in shmem_quiet' "$out" && break
  done
  check 'rdsm: PE 0 has waited [0-9]+\.[0-9] s in shmem_quiet'
  check 'rdsmrun: PE 1 \(pid [0-9]+\) is stopped'
  finish
  ;;
stopped)  # (c) PE 0 is stopped: the others name it in their reports; rdsmrun names it as stopped
  RDSM_HANG_REPORT=1s start -n 3 --timeout 60 "$prog" stopped
  for pe in 1 2; do
    wait_for "rdsm: PE $pe has waited [0-9]+\.[0-9] s in shmem_barrier_all \(team WORLD, waiting for PE 0\)" 30
  done
  kill -USR1 "$job"
  wait_for 'rdsmrun: PE 0 \(pid [0-9]+\) is stopped \(SIGSTOP or a debugger\) and cannot report' 10
  finish
  ;;
finalize_barrier | finalize_broadcast | finalize_alltoall | finalize_dsm_barrier | finalize_malloc | finalize_dsm_alloc)
  # (d) finalize against another collective ends the job (also where the other waits in a collective of the
  # bootstrap: the argument check of an allocation, the DSM's start)
  case $case_ in
  finalize_barrier) call=shmem_barrier_all ;;
  finalize_dsm_barrier) call=rdsm_dsm_barrier ;;
  finalize_dsm_alloc) call=rdsm_dsm_alloc ;;
  *) call="shmem_[a-z0-9_]*${case_#finalize_}[a-z0-9_]*" ;;
  esac
  mismatch_job 2 "$case_" "PE 0 called shmem_finalize while PE 1 waits in $call: collective calls do not match"
  [ "$case_" != finalize_barrier ] || check "PE 0 printed this before shmem_finalize"
  ;;
finalize_p2p)  # (g) a point-to-point wait (value, signal, lock, DSM lock) while every other PE finalizes ends the job
  for m in finalize_wait:shmem_long_wait_until finalize_signal:shmem_signal_wait_until finalize_lock:shmem_set_lock \
           finalize_dsm_lock:rdsm_dsm_lock; do
    mismatch_job 2 "${m%%:*}" "PE 1 waits in ${m#*:} while every other PE has called shmem_finalize: nothing can satisfy the wait" \
      'nothing can satisfy the wait'
  done
  ;;
teams_apart)  # collectives on two teams (world, shared), each PE waiting for the other: the job ends, naming both
  # Which of the two lines depends on which PE's watch looks first: the other's wait seen as another team's
  # collective, or both waits seen as a cycle.
  mismatch_job 2 world_vs_shared "PE [01] waits in shmem_long_broadcast \\(team (WORLD|SHARED)\\) for PE [01], which waits in a broadcast of another team \\(team (WORLD|SHARED)\\) that PE [01] has not joined|PE [01] waits in shmem_long_broadcast \\(team (WORLD|SHARED)\\) for PE [01] and PE [01] in a broadcast \\(team (WORLD|SHARED)\\) for PE [01]: each waits for the next, in a cycle"
  mismatch_job 2 shared_sync_vs_world "PE [01] waits in shmem_team_sync \\(team (WORLD|SHARED)\\) for PE [01], which waits in a barrier or sync of another team \\(team (WORLD|SHARED)\\) that PE [01] has not joined|PE [01] waits in shmem_team_sync \\(team (WORLD|SHARED)\\) for PE [01] and PE [01] in a barrier or sync \\(team (WORLD|SHARED)\\) for PE [01]: each waits for the next, in a cycle"
  ;;
active_sets)  # an active-set collective (deprecated 1.5 API) against a team collective: the job ends, naming both
  set3="(active set of 3 PEs from PE 0, stride 1|team WORLD)"
  mismatch_job 3 active_vs_barrier "PE [012] waits in shmem_barrier(_all)? \\(${set3}\\) for PE [012] and PE [012] in a barrier or sync \\(${set3}\\) for PE [012]: each waits for the next, in a cycle"
  mismatch_job 2 active_bcast_vs_sync "PE 0 waits in shmem_broadcast64 \\(active set of 2 PEs from PE 0, stride 1\\) for PE 1 and PE 1 in a barrier or sync \\(team WORLD\\) for PE 0: each waits for the next, in a cycle|PE 1 waits in shmem_team_sync \\(team WORLD\\) for PE 0 and PE 0 in a broadcast \\(active set of 2 PEs from PE 0, stride 1\\) for PE 1"
  set2="(active set of 2 PEs from PE 0, stride 1|team WORLD)"
  mismatch_job 2 active_reduce_vs_barrier "PE [01] waits in shmem_(long_sum_to_all|barrier_all) \\(${set2}\\) for PE [01] and PE [01] in (a reduction|a barrier or sync) \\(${set2}\\) for PE [01]: each waits for the next, in a cycle"
  mismatch_job 2 active_collect_vs_bcast "PE [01] waits in shmem_(fcollect64|long_broadcast) \\(${set2}\\) for PE [01] and PE [01] in (an fcollect|a broadcast) \\(${set2}\\) for PE [01]: each waits for the next, in a cycle"
  ;;
cycle3)  # three PEs each in a collective of another team, each waiting for the next: the job ends, naming all three
  mismatch_job 3 cycle3 "PE ([012]) waits in shmem_team_sync \\(team of 2 PEs from PE [01], stride [12]\\) for PE [012], PE [012] in a barrier or sync \\((another team|team of 2 PEs from PE [01], stride [12])\\) for PE [012] and PE [012] in a barrier or sync \\((another team|team of 2 PEs from PE [01], stride [12])\\) for PE \\1: each waits for the next, in a cycle"
  ;;
dsm_lock_barrier)  # a PE holding a DSM lock enters rdsm_dsm_barrier while a PE waits for the lock: the job ends, naming both
  mismatch_job 2 dsm_lock_barrier "PE 0 waits in rdsm_dsm_barrier \\(team WORLD\\) for PE 1 and PE 1 in a lock's wait for PE 0|PE 1 waits in rdsm_dsm_lock \\(lock 0x[0-9a-f]+\\) for PE 0 and PE 0 in a barrier or sync \\(team WORLD\\) for PE 1" \
    'a PE that holds a lock must release it'
  ;;
lock_barrier)  # the same with shmem_set_lock, whose waiters learn the holder from the locks each PE publishes
  mismatch_job 2 lock_barrier "PE 0 waits in shmem_barrier_all \\(team WORLD\\) for PE 1 and PE 1 in a lock's wait for PE 0|PE 1 waits in shmem_set_lock \\(lock 0x[0-9a-f]+\\) for PE 0 and PE 0 in a barrier or sync \\(team WORLD\\) for PE 1" \
    'a PE that holds a lock must release it'
  ;;
bcast_roots)  # one broadcast, each PE naming another root: the job ends, naming both roots
  mismatch_job 2 bcast_roots "PE [01] waits in shmem_long_broadcast with root [01] while PE [01] is in a broadcast with root [01] of the same team"
  ;;
split_vs_barrier)  # a team split against a barrier: the mismatch, not "all team slots are in use"
  mismatch_job 2 split_vs_barrier "PE 0 waits in shmem_team_split_strided while PE 1 is in a barrier or sync of the same team|shmem_team_split_strided: a member of the parent team made another collective call at this point"
  grep -q 'team slots' "$out" && { echo "FAIL: a warning about team slots"; fail=1; }
  ;;
split_apart)  # team splits with different arguments on members of the parent: the job ends, naming the call
  mismatch_job 3 split_apart "shmem_team_split_strided: members of the parent team passed different arguments \\(PE [012] passed start 0, stride [12], size 2\\): every member of the parent team must call shmem_team_split_strided with the same start, stride and size" \
    'passed different arguments'
  mismatch_job 3 split_2d_apart "shmem_team_split_2d: members of the parent team passed different arguments \\(PE [012] passed xrange [12]\\): every member of the parent team must call shmem_team_split_2d with the same xrange" \
    'passed different arguments'
  ;;
kinds)  # (f) members of a team in different collectives at the same point: the job ends, naming both
  mismatch_job 3 barrier_vs_broadcast "PE [12] waits in shmem_[a-z_]*broadcast while PE 0 is in a barrier or sync of the same team|PE 0 waits in shmem_barrier_all while PE [12] is in a broadcast of the same team"
  ;;
finalize_apart | active_sets_late | split_singletons | slow_mix)
  # correct programs: PEs that reach finalize far apart, a PE waiting in an active set for one that waits in
  # another for a late PE, each PE splitting off a team of itself, collectives of every form and a DSM lock
  # each waiting over a second for a late PE (4 PEs: more than the CPUs of small machines)
  case $case_ in
  finalize_apart) args=(-n 2 "$prog" finalize_matched) ;;
  slow_mix) args=(-n 4 "$prog" slow_mix) ;;
  *) args=(-n 3 "$prog" "$case_") ;;
  esac
  timeout 60 "$rdsmrun" "${args[@]}" "$tag" >"$out" 2>&1
  status=$?
  cat "$out"
  [ "$status" -eq 0 ] || { echo "FAIL: expected exit status 0, got $status"; fail=1; }
  grep -q 'do not match' "$out" && { echo "FAIL: a correct program was taken for a mismatch"; fail=1; }
  ;;
malformed)  # (e) a malformed RDSM_HANG_REPORT stops the job before any PE starts, with one line
  for bad in soon 10x -1s; do
    RDSM_HANG_REPORT=$bad timeout 60 "$rdsmrun" -n 2 "$prog" wait_forever "$tag" >"$out" 2>&1
    status=$?
    cat "$out"
    [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || { echo "FAIL: RDSM_HANG_REPORT=$bad: exit status $status"; fail=1; }
    check "RDSM_HANG_REPORT=\"$bad\" is not valid: expected a duration"
    n=$(wc -l <"$out")
    [ "$n" -eq 1 ] || { echo "FAIL: RDSM_HANG_REPORT=$bad: $n lines of output, expected one"; fail=1; }
  done
  ;;
*)
  echo "unknown case $case_"
  exit 2
  ;;
esac
case $case_ in report | lock | signal | quiet | stopped) cat "$out" ;; esac
no_leftovers
exit $fail
