#!/usr/bin/env bash
# Robustness cases (issue 9): robust_cases.sh CASE RDSMRUN ROBUST_PE. Each checks the exit status, the one
# line of error, the time taken and what the job left in its shared memory directory. PEs are killed only when
# this script (or the rdsmrun it started) started them.
set -u
case_name=$1 RDSMRUN=$2 PE=$3

# A clean environment: no inherited rendezvous, PMIx or UCX variables.
for v in $(env | grep -oE '^(RDSM|PMIX|OMPI|UCX|SHMEM)_[A-Za-z0-9_]*' || true); do unset "$v"; done

work=$(mktemp -d /tmp/robust_cases.XXXXXX)
# The jobs' directories go here (RDSM_SHM_DIR): a tmpfs directory of this test's own, empty at the end.
shm=$(mktemp -d /dev/shm/rdsm-robust-test.XXXXXX)
export RDSM_SHM_DIR=$shm
started=()
cleanup() {
  for p in "${started[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$work" "$shm"
}
trap cleanup EXIT

fail() {
  echo "FAIL [$case_name]: $*" >&2
  for f in "$work"/*.err "$work"/*.out; do [[ -s $f ]] && { echo "--- $f"; head -c 4000 "$f"; } >&2; done
  exit 1
}

source "$(dirname "$0")/../support/expect_job.sh"
# The job's stderr is exactly one line, matching REGEX.
one_line() {
  local lines; lines=$(wc -l <"$work/job.err")
  [[ $lines == 1 ]] || fail "stderr has $lines lines, expected one matching /$1/"
  grep -qE -- "$1" "$work/job.err" || fail "stderr lacks /$1/"
}
shm_empty() {
  local left; left=$(ls -A "$shm")
  [[ -z $left ]] || fail "$1: left in RDSM_SHM_DIR: $left"
}
# UCX's POSIX files directly in /dev/shm (where they went before each job had a directory of its own).
devshm_ucx() { ls /dev/shm | grep '^ucx_shm_posix_' | sort; }
new_in_devshm() {
  local now; now=$(devshm_ucx)
  comm -13 <(echo "$1") <(echo "$now") | grep . || true
}
# A random pause of 0 to 149 ms: kills land anywhere in the first moments of a job, shmem_init included.
random_pause() { sleep "0.$(printf %03d $((RANDOM % 150)))"; }
# Starts a job of 2 PEs that sleep and waits until it runs; r is rdsmrun.
sleeping_job() {
  start_sleeping_job 30000 200
  r=$job
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Over-large sizes must stop before anything is mapped; should a check fail to, the file size limit stops
# UCX from filling /dev/shm and the address space limit stops the DSM's bookkeeping from filling memory.
# AddressSanitizer reserves terabytes of address space for its shadow at start, which a -v limit forbids:
# under it (ASAN_OPTIONS set, as scripts/asan.sh does) only the file size is limited.
guarded() {
  if [[ -n ${ASAN_OPTIONS:-} ]]; then (ulimit -f $((1 << 20)); exec "$@"); else (ulimit -f $((1 << 20)) -v $((8 << 20)); exec "$@"); fi
}

case $case_name in
  aborts_while_stalled)
    # Every PE ends the job at once while rdsmrun is stopped: each waits 2 s for its abort's acknowledgement,
    # then exits with status 1. rdsmrun, continued, finds the exits and the aborts queued: the line is an
    # abort's (it was "PE 1 exited with status 1 before shmem_finalize", the cause lost).
    "$RDSMRUN" -n 2 --timeout 60 "$PE" misuse 500 >"$work/job.out" 2>"$work/job.err" &
    r=$!
    started+=("$r")
    for ((t = 0; t < 200; t++)); do grep -q ready "$work/job.out" && break; sleep 0.05; done
    grep -q ready "$work/job.out" || fail "the job did not start"
    kill -STOP "$r"
    sleep 3.5
    kill -CONT "$r"
    wait "$r"
    rc=$?
    [[ $rc == 1 ]] || fail "rdsmrun exited $rc, expected 1"
    grep -qE '^rdsmrun: PE [01] ended the job \(code 1\): shmem_long_p: pe 99 out of range' "$work/job.err" ||
      fail "no abort line" ;;
  heap_oversized)
    for v in 100T 99999999G; do
      SHMEM_SYMMETRIC_SIZE=$v expect 1 10 -- guarded "$RDSMRUN" -n 2 --timeout 20 "$PE" sleep 0
      one_line "^rdsmrun: SHMEM_SYMMETRIC_SIZE=$v asks .* more than this host's memory .*; lower SHMEM_SYMMETRIC_SIZE to at most [0-9.]+ [GM]iB$"
      # A program started bare (singleton) checks for itself.
      SHMEM_SYMMETRIC_SIZE=$v expect 1 10 -- guarded "$PE" sleep 0
      one_line "^rdsm: shmem_init failed: SHMEM_SYMMETRIC_SIZE=$v asks .*; lower SHMEM_SYMMETRIC_SIZE to at most"
    done
    shm_empty "oversized heap" ;;
  dsm_oversized)
    for v in 100T 2T; do
      RDSM_DSM_SIZE=$v expect 1 10 -- guarded "$RDSMRUN" -n 2 --timeout 20 "$PE" dsm
      one_line "^rdsmrun: RDSM_DSM_SIZE=$v: .* more than its memory .*; lower RDSM_DSM_SIZE to at most [0-9.]+ [GM]iB$"
      RDSM_DSM_SIZE=$v expect 1 10 -- guarded "$PE" dsm
      one_line "^rdsm: shmem_init failed: RDSM_DSM_SIZE=$v: .*; lower RDSM_DSM_SIZE to at most"
    done
    shm_empty "oversized DSM" ;;
  config_error_once)
    # One line for the job, from rdsmrun, however many PEs: none of them is started.
    SHMEM_SYMMETRIC_SIZE=12Q expect 1 10 -- "$RDSMRUN" -n 4 --timeout 20 "$PE" sleep 0
    one_line '^rdsmrun: SHMEM_SYMMETRIC_SIZE="12Q" is not valid: .*; fix or unset SHMEM_SYMMETRIC_SIZE$'
    RDSM_DSM_CONSISTENCY=eventual expect 1 10 -- "$RDSMRUN" -n 3 --timeout 20 "$PE" sleep 0
    one_line '^rdsmrun: RDSM_DSM_CONSISTENCY="eventual" is not valid'
    # An unknown variable is one warning for the job, and the job runs.
    RDSM_NOT_A_SETTING=1 expect 0 20 -- "$RDSMRUN" -n 4 --timeout 20 "$PE" sleep 0
    one_line 'unknown variable RDSM_NOT_A_SETTING is ignored'
    # Well-formed DSM settings out of range are found before any PE starts too (and by a bare PE at init),
    # not when the DSM is first used.
    RDSM_DSM_PAGE_SIZE=3000 expect 1 10 -- "$RDSMRUN" -n 3 --timeout 20 "$PE" sleep 0
    one_line '^rdsmrun: RDSM_DSM_PAGE_SIZE=3000 is not a power of two between the system page size \(4096\) and 2 MiB; use e.g. 4K or 64K$'
    RDSM_DSM_PAGE_SIZE=4M expect 1 10 -- "$PE" sleep 0
    one_line '^rdsm: shmem_init failed: RDSM_DSM_PAGE_SIZE=4194304 is not a power of two'
    RDSM_DSM_PREFETCH=65 expect 1 10 -- "$RDSMRUN" -n 3 --timeout 20 "$PE" sleep 0
    one_line '^rdsmrun: RDSM_DSM_PREFETCH=65 is out of range; use 1 \(no prefetch\) to 64$'
    RDSM_DSM_SIZE=0 expect 1 10 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" sleep 0
    one_line '^rdsmrun: RDSM_DSM_SIZE=0 is out of range; use between one page'
    RDSM_DSM_CONSISTENCY=sequential RDSM_PROGRESS_THREAD=off expect 1 10 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" sleep 0
    one_line '^rdsmrun: the sequential DSM .* needs the progress thread .*; unset RDSM_PROGRESS_THREAD=off' ;;
  tls_without_tcp)
    # rdsm ends a job whose PE died by UCX's peer failure detection: a UCX_TLS without such a transport is
    # one line naming UCX_TLS and the remedy (not UCX's own errors and "Destination is unreachable").
    for tls in sm,self posix,self; do
      UCX_TLS=$tls expect 1 10 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" sleep 0
      one_line "^rdsmrun: PE [01] ended the job \(code 1\): UCX_TLS=$tls has no transport that detects a peer's failure, .*add tcp \(e.g. UCX_TLS=$tls,tcp\) or unset UCX_TLS"
    done
    # A name UCX does not know is named too.
    UCX_TLS=bogus expect 1 10 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" sleep 0
    one_line "^rdsmrun: PE [01] ended the job \(code 1\): UCX_TLS=bogus has no transport that detects a peer's failure \(bogus: no UCX transport of that name\)"
    # One PE needs no peer: it runs.
    UCX_TLS=sm,self expect 0 10 -- "$RDSMRUN" -n 1 --timeout 20 "$PE" sleep 0 ;;
  dsm_base_bad)
    # Rejected at init, naming RDSM_DSM_BASE, whether or not the program uses the DSM.
    RDSM_DSM_BASE=0 expect 1 10 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" sleep 0
    one_line '^rdsmrun: RDSM_DSM_BASE=0 is address 0 .*; set RDSM_DSM_BASE to a free address aligned to 2 MiB'
    RDSM_DSM_BASE=0 expect 1 10 -- "$PE" dsm
    one_line '^rdsm: shmem_init failed: RDSM_DSM_BASE=0 is address 0'
    RDSM_DSM_BASE=0x7fffffe00000 expect 1 10 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" dsm
    one_line '^rdsmrun: RDSM_DSM_BASE=0x7fffffe00000 .*ends beyond the user address space'
    min=$(cat /proc/sys/vm/mmap_min_addr)
    if ((min > 0x200000)); then
      RDSM_DSM_BASE=0x200000 expect 1 10 -- "$PE" dsm
      one_line 'RDSM_DSM_BASE=0x200000 is below vm.mmap_min_addr'
    fi
    # Without address randomization the program's own pages sit at 0x555555554000: a DSM range over them
    # overlaps a mapping of each PE.
    if setarch "$(uname -m)" -R true 2>/dev/null; then
      RDSM_DSM_BASE=0x555555400000 expect 1 10 -- setarch "$(uname -m)" -R "$RDSMRUN" -n 2 --timeout 20 "$PE" dsm
      one_line '^rdsmrun: PE [01] ended the job \(code 1\): RDSM_DSM_BASE=0x555555400000 with RDSM_DSM_SIZE=512.0 MiB overlaps a mapping of this process, \[0x5555555'
    fi ;;
  sighup)
    # SIGHUP to rdsmrun ends the job: passed on to the PEs, whose default action ends them (UCX's own
    # SIGHUP handler turned on its debug output instead, and the PEs ran on until rdsmrun's SIGKILL).
    sleeping_job
    t0=$(date +%s%N)
    kill -HUP "$r"
    wait "$r"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    [[ $rc == 129 ]] || fail "rdsmrun exited $rc after SIGHUP, expected 129"
    # Not rdsmrun's SIGKILL 2 s later: the PEs end at once.
    ((ms < 1500)) || fail "the job took $ms ms to end after SIGHUP"
    ! grep -q UCX "$work/job.err" || fail "UCX wrote to stderr after SIGHUP"
    # A PE started without rdsmrun: the library puts UCX's SIGHUP handler back to the default action.
    "$PE" sleep 30000 >"$work/pe0.out" 2>"$work/pe0.err" &
    p=$!
    started+=("$p")
    for ((t = 0; t < 200; t++)); do grep -q ready "$work/pe0.out" && break; sleep 0.05; done
    kill -HUP "$p"
    for ((t = 0; t < 30; t++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$p" 2>/dev/null && fail "a PE started bare still runs 3 s after SIGHUP"
    wait "$p"
    rc=$?
    [[ $rc == 129 ]] || fail "a PE started bare exited $rc after SIGHUP, expected 129" ;;
  launcher_signals)
    # Any signal whose default ends rdsmrun is passed on and ends the job: nothing of it is left (SIGUSR2 and
    # SIGALRM killed rdsmrun and left the job's directory).
    for sig in USR2 ALRM; do
      sleeping_job
      kill -"$sig" "$r"
      wait "$r"
      rc=$?
      [[ $rc == $((128 + $(kill -l "$sig"))) ]] || fail "rdsmrun exited $rc after SIG$sig"
      shm_empty "after SIG$sig"
    done
    # SIGKILL cannot be passed on: the PEs end with rdsmrun, and its helper removes the job's directory.
    sleeping_job
    kill -9 "$r"
    wait "$r"
    for ((t = 0; t < 60; t++)); do [[ -z $(ls -A "$shm") ]] && break; sleep 0.05; done
    shm_empty "3 s after SIGKILL of rdsmrun"
    # Ctrl-Z (SIGTSTP) stops the PEs with rdsmrun, SIGCONT lets them go on (they ran on while rdsmrun stopped).
    sleeping_job
    # shellcheck disable=SC2207  # pids: words without globs
    kids=($(cat "/proc/$r/task/$r/children"))
    ((${#kids[@]} == 2)) || fail "rdsmrun has ${#kids[@]} children, expected 2"
    state() { for k in "$r" "${kids[@]}"; do awk '{printf "%s", ($3 == "T" ? "T" : "r")}' "/proc/$k/stat"; done; }
    kill -TSTP "$r"
    for ((t = 0; t < 40; t++)); do [[ $(state) == TTT ]] && break; sleep 0.05; done
    [[ $(state) == TTT ]] || fail "after SIGTSTP rdsmrun and its PEs are $(state), expected TTT"
    kill -CONT "$r"
    for ((t = 0; t < 40; t++)); do [[ $(state) == rrr ]] && break; sleep 0.05; done
    [[ $(state) == rrr ]] || fail "after SIGCONT rdsmrun and its PEs are $(state), expected rrr"
    kill -TERM "$r"
    wait "$r"
    # shmem_global_exit(256): the status cannot hold it, and it must not read as success.
    expect 1 20 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" exit 256
    expect 3 20 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" exit 3
    # PEs write to the terminal under `stty tostop` and set its attributes, outside its foreground group.
    if command -v script >/dev/null; then
      script -qec "stty tostop; '$RDSMRUN' -n 2 --timeout 20 '$PE' tty" /dev/null >"$work/job.out" 2>&1 ||
        fail "a job writing to a terminal with tostop set exited $?"
      [[ $(grep -c 'tty ok' "$work/job.out") == 2 ]] || fail "the PEs did not both write to the terminal"
    fi ;;
  timeouts)
    # --timeout beyond what the clock holds (1e10 s overflowed it: the job ended at once with 124).
    expect 0 20 -- "$RDSMRUN" -n 2 --timeout 1e10 "$PE" sleep 500
    expect 0 20 -- "$RDSMRUN" -n 2 --timeout 1e300 "$PE" sleep 0
    # RDSM_BOOT_TIMEOUT beyond an int of milliseconds, over the tcp bootstrap (rank 0 hosts the rendezvous).
    port=$(free_port) || fail "no free port"
    for r in 1 0; do
      RDSM_BOOT=tcp RDSM_BOOT_ADDR=127.0.0.1:$port RDSM_RANK=$r RDSM_SIZE=2 RDSM_JOB_SECRET=robust-test \
        RDSM_BOOT_TIMEOUT=99999999999 timeout 30 "$PE" sleep 0 >"$work/pe$r.out" 2>"$work/pe$r.err" &
      pids[r]=$!
      started+=("$!")
    done
    for r in 0 1; do wait "${pids[r]}" || fail "PE $r failed with RDSM_BOOT_TIMEOUT=99999999999"; done
    # Under rdsmrun a PE that never reaches shmem_init ends the job after RDSM_BOOT_TIMEOUT when it is set
    # (it was ignored: the others waited until that PE exited); unset, a late PE is waited for.
    RDSM_BOOT_TIMEOUT=2 expect 1 15 -- "$RDSMRUN" -n 3 "$PE" late 60000
    one_line '^rdsmrun: the rendezvous ended the job: PE\(s\) 1 did not reach the rendezvous within RDSM_BOOT_TIMEOUT=2 s .*raise RDSM_BOOT_TIMEOUT if start-up is slow$'
    expect 0 20 -- "$RDSMRUN" -n 2 "$PE" late 2500 ;;
  closed_stdio)
    # Started with standard descriptors closed, the launcher and the PEs open /dev/null on them before they
    # open anything: the program's output and input never reach a socket or memory file of the runtime
    # (closed stdout: the job ended with a rendezvous protocol error; all closed: SIGSEGV; stdin: a hang).
    expect 0 20 -- bash -c 'exec <&- >&- && exec "$@"' closed "$RDSMRUN" -n 2 --timeout 20 "$PE" stdio
    [[ $(grep -c '^PE [01] line' "$work/job.err") == 400 ]] || fail "stderr lacks the PEs' 400 lines"
    (exec <&- >&- 2>&-; "$RDSMRUN" -n 2 --timeout 20 "$PE" stdio) || fail "with 0-2 closed the job exited $?"
    (exec <&- >&- 2>&-; timeout 20 "$PE" stdio) || fail "one PE started bare with 0-2 closed exited $?" ;;
  heap_sizes)
    # OpenSHMEM: a non-negative size, and a heap at least as large as its ceiling in bytes (3.1m: 3250586).
    SHMEM_SYMMETRIC_SIZE=3.1m expect 0 20 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" alloc 3250586 ok
    SHMEM_SYMMETRIC_SIZE=1 expect 0 20 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" alloc 1 ok
    SHMEM_SYMMETRIC_SIZE=0 expect 0 20 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" alloc 1 null
    one_line 'raise SHMEM_SYMMETRIC_SIZE' ;;
  exhaustion_once)
    # Each exhausted variable is one warning for the job, however often allocation fails.
    expect 0 20 -- "$RDSMRUN" -n 2 --timeout 20 "$PE" exhaust
    grep -q '^exhausted 6 times$' "$work/job.out" || fail "allocations did not fail as expected"
    [[ $(grep -c 'raise SHMEM_SYMMETRIC_SIZE' "$work/job.err") == 1 ]] || fail "expected one heap warning"
    [[ $(grep -c 'raise RDSM_DSM_SIZE' "$work/job.err") == 1 ]] || fail "expected one DSM warning"
    [[ $(wc -l <"$work/job.err") == 2 ]] || fail "expected two lines of warnings" ;;
  shm_dir_killed)
    # The heap on POSIX shared memory, filled at init: the window in which a killed PE leaves files is wide.
    export UCX_ALLOC_PRIO=md:posix SHMEM_SYMMETRIC_SIZE=256M
    before=$(devshm_ucx)
    killed=0
    for ((i = 1; i <= 12; i++)); do
      "$RDSMRUN" -n 4 --timeout 20 "$PE" sleep 300 >"$work/job.out" 2>"$work/job.err" &
      r=$!
      started+=("$r")
      random_pause
      # shellcheck disable=SC2207  # pids: words without globs
      kids=($(cat "/proc/$r/task/$r/children" 2>/dev/null))
      if ((${#kids[@]} > 0)); then
        kill -9 "${kids[RANDOM % ${#kids[@]}]}" 2>/dev/null && killed=$((killed + 1))
      fi
      wait "$r"
      rc=$?
      [[ $rc == 0 || $rc == 137 ]] || fail "run $i: rdsmrun exited $rc"
      shm_empty "run $i (rdsmrun exited $rc)"
    done
    ((killed >= 6)) || fail "only $killed of 12 runs had a PE to kill"
    left=$(new_in_devshm "$before")
    [[ -z $left ]] || fail "UCX files left in /dev/shm: $left" ;;
  low_fd_limit)
    # With few descriptors allowed UCX fails with "Input/output error" only: the line names the limit.
    expect 1 20 -- bash -c 'ulimit -n 16 && exec "$@"' low "$RDSMRUN" -n 2 --timeout 20 "$PE" sleep 0
    grep -q 'this process may open only 16 files: raise the limit (ulimit -n 1024)' "$work/job.err" ||
      fail "the error does not name the limit of open files" ;;
  output_lines)
    # Lines of different PEs written to one pipe stay whole (fully buffered, they mixed: 18-34 of 8000).
    for run in 1 2; do
      "$RDSMRUN" -n 4 --timeout 30 "$PE" lines | cat >"$work/job.out" || fail "run $run: the job failed"
      [[ $(wc -l <"$work/job.out") == 8000 ]] || fail "run $run: $(wc -l <"$work/job.out") lines, expected 8000"
      bad=$(grep -cvE '^PE [0-3] line [0-9]{4} \.{42}$' "$work/job.out")
      [[ $bad == 0 ]] || fail "run $run: $bad lines mixed from several PEs"
    done
    # Long lines written to a file stay whole too, up to the 64 KiB of stdout's buffer (with the C library's
    # 4 KiB buffer, lines of 8000 characters mixed: a line went out in pieces).
    "$RDSMRUN" -n 4 --timeout 30 "$PE" lines 8000 >"$work/long.out" || fail "long lines: the job failed"
    [[ $(wc -l <"$work/long.out") == 800 ]] || fail "long lines: $(wc -l <"$work/long.out") lines, expected 800"
    bad=$(awk '{ d = substr($0, 4, 1); rest = substr($0, 6); gsub(d, "", rest)
                 if (length($0) != 8000 || substr($0, 1, 3) != "PE " || d !~ /^[0-3]$/ || rest != "") bad++ }
               END { print bad + 0 }' "$work/long.out")
    [[ $bad == 0 ]] || fail "long lines: $bad lines mixed from several PEs" ;;
  tcp_children)
    # With UCX_TLS set and no rdsmrun each PE starts a helper that removes its directory when it dies; a program
    # that waits for all of its children must not wait for that helper (it hung).
    port=$(free_port) || fail "no free port"
    for r in 1 0; do
      RDSM_BOOT=tcp RDSM_BOOT_ADDR=127.0.0.1:$port RDSM_RANK=$r RDSM_SIZE=2 RDSM_JOB_SECRET=robust-test \
        UCX_TLS=tcp,self timeout 30 "$PE" children >"$work/pe$r.out" 2>"$work/pe$r.err" &
      pids[r]=$!
      started+=("$!")
    done
    for r in 0 1; do wait "${pids[r]}" || fail "PE $r exited $? (124: it waited for the helper)"; done
    shm_empty "after the job" ;;
  shm_dir_tcp_killed)
    # Without rdsmrun (tcp bootstrap) each PE makes its own directory, removed by a helper when it dies.
    export UCX_ALLOC_PRIO=md:posix SHMEM_SYMMETRIC_SIZE=256M RDSM_BOOT=tcp RDSM_SIZE=2 RDSM_JOB_SECRET=robust-test
    export RDSM_BOOT_TIMEOUT=3
    before=$(devshm_ucx)
    for ((i = 1; i <= 6; i++)); do
      port=$(free_port) || fail "no free port"
      pids=()
      for r in 1 0; do
        RDSM_BOOT_ADDR=127.0.0.1:$port RDSM_RANK=$r "$PE" sleep 300 >"$work/pe$r.out" 2>"$work/pe$r.err" &
        pids[r]=$!
        started+=("$!")
      done
      random_pause
      kill -9 "${pids[RANDOM % 2]}" 2>/dev/null
      # The other PE ends by itself (lost contact): within 15 s, or this case fails.
      for ((t = 0; t < 150; t++)); do
        kill -0 "${pids[0]}" 2>/dev/null || kill -0 "${pids[1]}" 2>/dev/null || break
        sleep 0.1
      done
      ((t < 150)) || fail "run $i: a PE still runs 15 s after its peer was killed"
      wait "${pids[0]}" "${pids[1]}" 2>/dev/null
      # The helpers remove the directories once their PEs have ended.
      for ((t = 0; t < 50; t++)); do
        [[ -z $(ls -A "$shm") ]] && break
        sleep 0.1
      done
      shm_empty "run $i"
    done
    left=$(new_in_devshm "$before")
    [[ -z $left ]] || fail "UCX files left in /dev/shm: $left" ;;
  *)
    fail "unknown case" ;;
esac
echo "ok [$case_name]"
