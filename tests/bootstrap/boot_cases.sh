#!/usr/bin/env bash
# Bootstrap job tests: boot_cases.sh CASE RDSMRUN BOOT_PE. Checks exit status, messages, time and leftovers.
set -u
case_name=$1 RDSMRUN=$2 PE=$3

# A clean environment: no inherited rendezvous or PMIx variables.
for v in $(env | grep -oE '^(RDSM|PMIX|OMPI)_[A-Za-z0-9_]*' || true); do unset "$v"; done

work=$(mktemp -d /tmp/boot_cases.XXXXXX)
export BOOT_PE_PIDDIR=$work/pids
mkdir -p "$BOOT_PE_PIDDIR"
cleanup() {
  for f in "$BOOT_PE_PIDDIR"/pid.*; do [[ -e $f ]] && kill -9 "$(cat "$f")" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL [$case_name]: $*" >&2; for f in "$work"/*.err "$work"/*.out; do [[ -s $f ]] && { echo "--- $f"; cat "$f"; } >&2; done; exit 1; }

# No PE that wrote a pid file may still exist.
check_no_leftovers() {
  sleep 0.1
  for f in "$BOOT_PE_PIDDIR"/pid.*; do
    [[ -e $f ]] || continue
    local pid; pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
      fail "PE process $pid is still running"
    fi
  done
}

source "$(dirname "$0")/../support/expect_job.sh"
err_has() { grep -qE -- "$1" "$work/job.err" || fail "stderr lacks /$1/"; }
out_has() { grep -qE -- "$1" "$work/job.out" || fail "stdout lacks /$1/"; }
count_pids() { ls "$BOOT_PE_PIDDIR" | wc -l; }

# tcp: start N PEs of boot_pe with RDSM_BOOT=tcp on a free loopback port; ranks > 0 first (they retry).
tcp_job() {
  local n=$1; shift
  local port; port=$("$PE" freeport) || fail "no free port"
  local r
  for ((r = n - 1; r >= 0; r--)); do
    RDSM_BOOT=tcp RDSM_BOOT_ADDR=127.0.0.1:$port RDSM_RANK=$r RDSM_SIZE=$n RDSM_JOB_SECRET=tcp-test-secret \
      RDSM_BOOT_TIMEOUT=10 "$PE" "$@" >"$work/pe$r.out" 2>"$work/pe$r.err" &
    pids[r]=$!
  done
  local t0=$SECONDS
  for ((r = 0; r < n; r++)); do wait "${pids[r]}"; rcs[r]=$?; done
  took=$((SECONDS - t0))
}
pe_err_has() { grep -qE -- "$2" "$work/pe$1.err" || fail "PE $1 stderr lacks /$2/"; }

case $case_name in
  launcher_n2)
    expect 0 10 -- "$RDSMRUN" -n 2 "$PE" ok
    out_has '^boot_pe: 2 PEs ok \(launcher\)'
    [[ $(count_pids) == 2 ]] || fail "expected 2 PEs"
    check_no_leftovers ;;
  launcher_n4)
    expect 0 15 -- "$RDSMRUN" -n 4 "$PE" ok 200
    out_has '^boot_pe: 4 PEs ok \(launcher\)'
    [[ $(count_pids) == 4 ]] || fail "expected 4 PEs"
    check_no_leftovers ;;
  launcher_big)
    expect 0 20 -- "$RDSMRUN" -n 4 "$PE" big
    out_has '^boot_pe: 4 PEs ok \(launcher\)'
    check_no_leftovers ;;
  noinit)
    expect 1 5 -- "$RDSMRUN" -n 3 "$PE" noinit 1
    err_has '^rdsmrun: PE 1 \(pid [0-9]+\) exited with status 0 without calling shmem_init while other PEs did; ending the job$'
    check_no_leftovers ;;
  singleton)
    expect 0 5 -- "$PE" ok
    out_has '^boot_pe: 1 PEs ok \(singleton\)' ;;
  true_program)
    expect 0 5 -- "$RDSMRUN" -n 2 /bin/true ;;
  launcher_programs)  # several programs in one job, numbered in order (rdsmrun -n 1 a : -n 2 b)
    expect 0 15 -- "$RDSMRUN" -n 1 "$PE" ok 200 : --np=2 -- "$PE" ok 200
    out_has '^boot_pe: 3 PEs ok \(launcher\)'
    [[ $(count_pids) == 3 ]] || fail "expected 3 PEs"
    check_no_leftovers ;;
  usage_errors)
    expect 2 5 -- "$RDSMRUN" -n 0 "$PE"; err_has '^rdsmrun: -n needs a positive number'
    expect 2 5 -- "$RDSMRUN" -n abc "$PE"; err_has '^rdsmrun: -n needs a positive number'
    expect 2 5 -- "$RDSMRUN" -n 99999999999 "$PE"; err_has '^rdsmrun: -n 99999999999 is more PEs than rdsmrun starts'
    expect 2 5 -- "$RDSMRUN" -n 2 -n 3 "$PE"; err_has '^rdsmrun: -n is given twice \(2 and 3\)'
    expect 2 5 -- "$RDSMRUN" -n 2; err_has 'no program given'
    expect 2 5 -- "$RDSMRUN" --bogus -n 2 "$PE"; err_has "unknown option '--bogus'"
    expect 2 5 -- "$RDSMRUN" -n 1 "$PE" : "$PE"; err_has "after ':' give -n M and the next program"
    expect 2 5 -- "$RDSMRUN" -n 1 "$PE" : -n2; err_has "no program given after ':'"
    expect 2 5 -- "$RDSMRUN" -n 1 "$PE" : -np 0 "$PE"; err_has '^rdsmrun: -n needs a positive number'
    expect 127 5 -- "$RDSMRUN" -n 2 no-such-program-xyz
    err_has "^rdsmrun: cannot execute 'no-such-program-xyz': No such file or directory"
    expect 0 5 -- "$RDSMRUN" --help; out_has '^usage: rdsmrun' ;;
  kill)
    expect 137 5 -- "$RDSMRUN" -n 3 "$PE" kill 1
    err_has '^rdsmrun: PE 1 \(pid [0-9]+\) was killed by signal 9 \(Killed\); ending the job$'
    [[ $(grep -c '^rdsmrun:' "$work/job.err") == 1 ]] || fail "expected exactly one rdsmrun line"
    check_no_leftovers ;;
  segv)
    expect 139 5 -- "$RDSMRUN" -n 2 "$PE" segv 0
    err_has '^rdsmrun: PE 0 \(pid [0-9]+\) was killed by signal 11 '
    check_no_leftovers ;;
  exit_nonzero)
    expect 5 5 -- "$RDSMRUN" -n 3 "$PE" exit 2 5
    err_has '^rdsmrun: PE 2 \(pid [0-9]+\) exited with status 5 before shmem_finalize; ending the job$'
    check_no_leftovers ;;
  exit0_without_finalize)
    expect 1 5 -- "$RDSMRUN" -n 2 "$PE" exit0 1
    err_has '^rdsmrun: PE 1 \(pid [0-9]+\) exited with status 0 before shmem_finalize; ending the job$'
    check_no_leftovers ;;
  abort)
    expect 42 5 -- "$RDSMRUN" -n 4 "$PE" abort 2 42
    err_has '^rdsmrun: PE 2 ended the job \(code 42\): test abort from PE 2$'
    [[ $(grep -c 'ended the job' "$work/job.err") == 1 ]] || fail "expected exactly one report"
    check_no_leftovers ;;
  timeout)
    expect 124 4 -- "$RDSMRUN" -n 3 --timeout 1 "$PE" sleep
    err_has '^rdsmrun: job exceeded --timeout 1 s; ending it$'
    [[ $(count_pids) == 3 ]] || fail "expected 3 PEs"
    check_no_leftovers ;;
  sigint)
    # SIGINT would be ignored by a background job of a non-interactive shell; SIGTERM takes the same path.
    "$RDSMRUN" -n 2 "$PE" sleep >"$work/job.out" 2>"$work/job.err" &
    job=$!
    for _ in $(seq 100); do [[ $(count_pids) == 2 ]] && break; sleep 0.05; done
    sleep 0.3
    t0=$SECONDS
    kill -TERM $job
    wait $job; rc=$?
    [[ $rc == 143 ]] || fail "rdsmrun exited $rc after SIGTERM, expected 143"
    (( SECONDS - t0 <= 4 )) || fail "too slow"
    check_no_leftovers ;;
  stranger)
    expect 0 10 -- "$RDSMRUN" -n 2 "$PE" stranger
    [[ $(grep -cE '^rdsmrun: refused a rendezvous connection from 127.0.0.1:[0-9]+: wrong job secret$' "$work/job.err") == 2 ]] ||
      fail "expected two refusals, one line each"
    [[ $(grep -c '^boot_pe: stranger refused$' "$work/job.err") == 2 ]] || fail "stranger not refused"
    out_has '^boot_pe: 2 PEs ok \(launcher\)'
    check_no_leftovers ;;
  tcp_n3)
    tcp_job 3 ok 100
    for r in 0 1 2; do [[ ${rcs[r]} == 0 ]] || fail "PE $r exited ${rcs[r]}"; done
    grep -q '^boot_pe: 3 PEs ok (tcp)' "$work/pe0.out" || fail "PE 0 did not report success" ;;
  tcp_pe_dies)
    tcp_job 3 kill 2
    (( took <= 5 )) || fail "took ${took}s"
    [[ ${rcs[2]} == 137 ]] || fail "PE 2 exited ${rcs[2]}"
    for r in 0 1; do
      [[ ${rcs[r]} == 1 ]] || fail "PE $r exited ${rcs[r]}, expected 1"
      pe_err_has $r '^rdsm: PE 2 lost \(connection to the rendezvous closed before finalize\); ending the job$'
    done
    check_no_leftovers ;;
  tcp_rank0_dies)
    tcp_job 3 kill 0
    (( took <= 5 )) || fail "took ${took}s"
    for r in 1 2; do
      [[ ${rcs[r]} == 1 ]] || fail "PE $r exited ${rcs[r]}, expected 1"
      pe_err_has $r '^rdsm: PE [0-9] lost the rendezvous at 127.0.0.1:[0-9]+'
    done
    check_no_leftovers ;;
  tcp_abort)
    tcp_job 3 abort 1 9
    (( took <= 5 )) || fail "took ${took}s"
    for r in 0 1 2; do
      [[ ${rcs[r]} == 9 ]] || fail "PE $r exited ${rcs[r]}, expected 9"
      pe_err_has $r '^rdsm: PE 1 ended the job \(code 9\): test abort from PE 1$'
    done
    check_no_leftovers ;;
  tcp_bad_config)
    RDSM_BOOT=tcp RDSM_BOOT_ADDR=127.0.0.1:9 RDSM_RANK=5 RDSM_SIZE=4 RDSM_JOB_SECRET=x \
      expect 2 5 -- "$PE" ok
    err_has 'RDSM_RANK=5 is out of range for RDSM_SIZE=4'
    RDSM_BOOT=tcp RDSM_RANK=0 RDSM_SIZE=2 RDSM_JOB_SECRET=x expect 2 5 -- "$PE" ok
    err_has 'RDSM_BOOT=tcp needs RDSM_BOOT_ADDR' ;;
  pmix)
    MPIRUN=${MPIRUN:-mpirun}
    expect 0 30 -- "$MPIRUN" --allow-run-as-root --oversubscribe -n 2 "$PE" ok 100
    out_has '^boot_pe: 2 PEs ok \(pmix\)'
    check_no_leftovers
    expect 5 30 -- "$MPIRUN" --allow-run-as-root --oversubscribe -n 2 "$PE" abort 1 5
    err_has 'PE 1 ended the job \(code 5\)'
    check_no_leftovers ;;
  *)
    fail "unknown case" ;;
esac
echo "ok [$case_name]"
