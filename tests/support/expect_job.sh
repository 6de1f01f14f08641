# Sourced by the scripted job tests: expect RC MAX_SECONDS -- command... runs the command with its output in
# $work/job.out and $work/job.err and fails (the caller's fail) unless it exits RC within MAX_SECONDS;
# start_sleeping_job starts a job to act on while it runs.
expect() {
  local want=$1 max=$2; shift 3
  local t0=$SECONDS
  "$@" >"$work/job.out" 2>"$work/job.err"
  local rc=$?
  local took=$((SECONDS - t0))
  [[ $rc == "$want" ]] || fail "'$*' exited $rc, expected $want"
  ((took <= max)) || fail "'$*' took ${took}s, expected at most ${max}s"
}

# start_sleeping_job MS TRIES: starts "$RDSMRUN" -n 2 with 2 PEs of "$PE" sleep MS (robust_pe), its output in
# $work/job.out and .err, adds it to $started and sets $job to rdsmrun's pid; waits until PE 0 says "ready",
# looking TRIES times 50 ms apart, and fails (the caller's fail) if it never does.
start_sleeping_job() {
  "$RDSMRUN" -n 2 --timeout 60 "$PE" sleep "$1" >"$work/job.out" 2>"$work/job.err" &
  job=$!
  started+=("$job")
  for ((t = 0; t < $2; t++)); do grep -q ready "$work/job.out" && break; sleep 0.05; done
  grep -q ready "$work/job.out" || fail "the job did not start"
}
