# Sourced by the scripted job tests: expect RC MAX_SECONDS -- command... runs the command with its output in
# $work/job.out and $work/job.err and fails (the caller's fail) unless it exits RC within MAX_SECONDS.
expect() {
  local want=$1 max=$2; shift 3
  local t0=$SECONDS
  "$@" >"$work/job.out" 2>"$work/job.err"
  local rc=$?
  local took=$((SECONDS - t0))
  [[ $rc == "$want" ]] || fail "'$*' exited $rc, expected $want"
  ((took <= max)) || fail "'$*' took ${took}s, expected at most ${max}s"
}
