#!/usr/bin/env bash
# Runs a job that must fail: checks its exit status, that its output matches a pattern, and that no process
# of the job is left. Usage: expect_failure.sh <status|nonzero> <regex> <command...>; with EXPECT_LINES=N in the
# environment the output may have N lines at most.
set -u
want=$1 pattern=$2
shift 2
tag="rdsm-errtest-$$-$RANDOM"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# The tag reaches every PE's command line, so leftovers can be found by it.
timeout 60 "$@" "$tag" >"$out" 2>&1
status=$?
cat "$out"
fail=0
if [ "$want" = nonzero ]; then
  [ "$status" -ne 0 ] || { echo "FAIL: expected a non-zero exit status, got 0"; fail=1; }
else
  [ "$status" -eq "$want" ] || { echo "FAIL: expected exit status $want, got $status"; fail=1; }
fi
[ "$status" -ne 124 ] || { echo "FAIL: the job hung and was ended by the test's time limit"; fail=1; }
grep -Eq "$pattern" "$out" || { echo "FAIL: output does not match /$pattern/"; fail=1; }
lines=$(wc -l <"$out")
if [ -n "${EXPECT_LINES:-}" ] && [ "$lines" -gt "$EXPECT_LINES" ]; then
  echo "FAIL: $lines lines of output, expected $EXPECT_LINES at most"
  fail=1
fi
sleep 0.2
left=$(pgrep -f -- "$tag")
if [ -n "$left" ]; then
  echo "FAIL: processes of the job are still running: $left"
  kill -9 $left 2>/dev/null
  fail=1
fi
exit $fail
