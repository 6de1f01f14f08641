#!/usr/bin/env bash
# Runs a job that must succeed: exit status 0 and a whole line of its output matching <regex>.
# Usage: expect_ok.sh <regex> <command...>
set -u
pattern=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
status=$?
cat "$out"
[ "$status" -eq 0 ] || { echo "FAIL: the job exited with status $status"; exit 1; }
grep -qxE "$pattern" "$out" || { echo "FAIL: no line of the output is /$pattern/"; exit 1; }
echo "job ok"
