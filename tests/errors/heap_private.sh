#!/usr/bin/env bash
# The symmetric heap is private to the job's user: each PE's heap is a memory file of mode 0600 (no System V
# or POSIX shared memory segment holds it), and a process of another user with the job's group can neither
# open it nor map it, while the job's own user can. Usage: heap_private.sh <rdsmrun> <heap_private program>
set -u
rdsmrun=$1 program=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to probe as another user"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: setpriv is not installed"; exit 77; }
dir=$(mktemp -d)
job=
cleanup() {
  touch "$dir/go"
  [ -n "$job" ] && wait "$job" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$dir/out"; exit 1; }
# maps <pid> <address>: the range, mode and name of the mapping holding the address, and those of every shared
# mapping of 48 MiB or more.
maps() {
  local a=$(($2)) range mode offset dev inode name lo hi
  while read -r range mode offset dev inode name; do
    lo=$((16#${range%-*})) hi=$((16#${range#*-}))
    if [ "$lo" -le "$a" ] && [ "$a" -lt "$hi" ]; then echo "heap: $mode $name"; echo "range: $range"; fi
    if [ "${mode:3:1}" = s ] && [ $((hi - lo)) -ge $((48 << 20)) ]; then echo "big: $mode $name"; fi
  done <"/proc/$1/maps"
}

SHMEM_SYMMETRIC_SIZE=48M timeout 60 "$rdsmrun" -n 2 --timeout 50 "$program" "$dir/go" >"$dir/out" 2>&1 &
job=$!
for _ in $(seq 300); do
  [ "$(grep -c '^ready ' "$dir/out")" -ge 2 ] && break
  kill -0 "$job" 2>/dev/null || fail "the job ended before it was ready"
  sleep 0.1
done
[ "$(grep -c '^ready ' "$dir/out")" -ge 2 ] || fail "the job did not get ready within 30 s"

gid=$(id -g)
while read -r pid heap; do
  # The mapping that holds the heap, and every big shared mapping of the PE.
  found=$(maps "$pid" "$heap")
  echo "PE pid $pid: $found"
  echo "$found" | grep -q '^heap: rw-s /memfd:rdsm-heap' || fail "pid $pid: the heap is not on the memfd rdsm-heap"
  echo "$found" | grep '^big:' | grep -vq '/memfd:rdsm-heap' &&
    fail "pid $pid: a big shared mapping other than the heap's memory file"
  awk -v p="$pid" '$7 == p' /proc/sysvipc/shm | awk '$4 >= 48 * 1048576 { exit 1 }' ||
    fail "pid $pid: created a System V segment as big as the heap"
  fd=$(find "/proc/$pid/fd" -lname '/memfd:rdsm-heap*' -printf '%f\n' | head -1)
  [ -n "$fd" ] || fail "pid $pid: no open descriptor of the heap's memory file"
  mode=$(stat -L -c %a "/proc/$pid/fd/$fd")
  [ "$mode" = 600 ] || fail "pid $pid: the heap's memory file has mode $mode, not 600"
  # The job's user reaches it (so the probe works) ...
  head -c 1 "/proc/$pid/fd/$fd" >/dev/null || fail "pid $pid: the job's own user cannot open the heap"
  # ... another user of the job's group does not, neither by the descriptor nor by the mapping.
  range=$(maps "$pid" "$heap" | sed -n 's/^range: //p')
  for path in "/proc/$pid/fd/$fd" "/proc/$pid/map_files/$range" "/proc/$pid/mem"; do
    if setpriv --reuid=65534 --regid="$gid" --clear-groups head -c 1 "$path" >/dev/null 2>&1; then
      fail "pid $pid: user 65534 of group $gid opened $path"
    fi
  done
done < <(sed -n 's/^ready pid=\([0-9]*\) heap=\(0x[0-9a-f]*\).*/\1 \2/p' "$dir/out")

touch "$dir/go"
wait "$job"
status=$?
job=
cat "$dir/out"
[ "$status" -eq 0 ] || fail "the job ended with status $status"
[ "$(grep -c 'heap intact' "$dir/out")" -eq 2 ] || fail "a PE's heap changed"
echo "heap private: memory file 0600, closed to other users"
