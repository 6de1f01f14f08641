#!/usr/bin/env bash
# Model-checks the DSM's protocols with spin: spin -a, gcc pan.c, ./pan (exhaustive safety search:
# assertions and invalid end states, channels required empty at the end).
#
#   model/check.sh MODE [--expect-violation BUGFLAG] [-DNAME=VALUE...]
#     MODE          sequential (model/dsm.pml) | release (model/release.pml)
#     --expect-violation BUGFLAG
#                   model the broken variant -DBUGFLAG and succeed only if pan finds the error
#                   (sequential: BUG_SKIP_INV, BUG_EXCL_KEPT, and with -DHANDOVER BUG_STALE_HANDOVER,
#                   BUG_HANDOVER_PENDING: swmr_ok; BUG_NO_WRITEBACK: read_ok or final_ok; RACY_GRANT: any assertion; release: BUG_NO_FRESH, BUG_COUNT_FIRST, BUG_WHOLE_PAGE,
#                   BUG_HOME_NO_NOTICE, BUG_NO_CONSERVATIVE, BUG_NO_EARLY_FLUSH, BUG_TWIN_AFTER_MAP (with
#                   -DTHREADS): read_ok or final_ok)
#     -DNAME=VALUE  passed on to spin, e.g. -DOPS2=3 -DMAXTRY=2, -DHANDOVER (sequential); -DNPE=3 -DNPG=1, -DNPH=3,
#                   -DTHREADS, -DFAR_PEERS, -DNO_OVERRUN (release; see the top of model/release.pml)
#
# Works in a fresh directory under $TMPDIR (default /tmp), removed afterwards. Prints one summary
# line; exits non-zero if pan reports errors (or, with --expect-violation, reports none) or if the
# search was not complete (e.g. more than $DSM_MODEL_MEMLIM MB, default 3072, were needed).
# Needs spin ($SPIN, default spin) and a C compiler ($CC, default gcc).
set -euo pipefail

usage() { echo "usage: $0 sequential|release [--expect-violation BUGFLAG] [-DNAME=VALUE...]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
mode=$1; shift
case "$mode" in
  sequential) file=dsm.pml ;;
  release)    file=release.pml ;;
  *) usage ;;
esac
defines=()
bug=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --expect-violation) [[ $# -ge 2 ]] || usage; bug=$2; defines+=("-D$bug"); shift 2 ;;
    -D*) defines+=("$1"); shift ;;
    *) usage ;;
  esac
done
case "$bug" in
  "") expect="" ;;
  BUG_SKIP_INV|BUG_EXCL_KEPT|BUG_STALE_HANDOVER|BUG_HANDOVER_PENDING) expect="swmr_ok" ;;
  BUG_NO_WRITEBACK) expect="read_ok|final_ok" ;;
  BUG_NO_FRESH|BUG_COUNT_FIRST|BUG_WHOLE_PAGE|BUG_HOME_NO_NOTICE|BUG_NO_CONSERVATIVE|BUG_NO_EARLY_FLUSH|BUG_TWIN_AFTER_MAP)
    expect="read_ok|final_ok" ;;
  *) expect="[A-Za-z_]+" ;;
esac

spin=${SPIN:-spin}
cc=${CC:-gcc}
if ! command -v "$spin" >/dev/null 2>&1; then
  echo "model $mode: spin not found: install the Debian package spin (scripts/setup.sh does)" >&2
  exit 1
fi
model="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$file"
work=$(mktemp -d "${TMPDIR:-/tmp}/dsm-model.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$model" "$file"

label="model $mode${defines[*]:+ ${defines[*]}}"
if ! "$spin" "${defines[@]}" -a "$file" >spin.out 2>&1; then
  cat spin.out >&2
  echo "$label: spin -a failed" >&2
  exit 1
fi
# -DSAFETY: safety properties only (assertions, invalid end states); -DCOLLAPSE: compressed state
# storage, still exhaustive; -DMEMLIM (MB): stop, and fail below, rather than exhaust the machine.
if ! "$cc" -O1 -w -DSAFETY -DCOLLAPSE -DMEMLIM="${DSM_MODEL_MEMLIM:-3072}" -o pan pan.c >cc.out 2>&1; then
  cat cc.out >&2
  echo "$label: compiling pan.c failed" >&2
  exit 1
fi
# -q: in a valid end state every channel must be empty too; -m: search depth (at most about 1000 needed).
status=0
./pan -q -m20000 >pan.out 2>&1 || status=$?

states=$(sed -nE 's/^ *([0-9]+) states, stored.*/\1/p' pan.out | head -n1)
secs=$(sed -nE 's/^pan: elapsed time ([0-9.e+]+) seconds.*/\1/p' pan.out | head -n1)
violation=$(grep -m1 -E "^pan:[0-9]+: " pan.out | sed -E 's/^pan:[0-9]+: //' || true)
mem=$(sed -nE 's/^ *([0-9.]+)[[:space:]]+total actual memory usage.*/\1/p' pan.out | head -n1)
summary="states stored: ${states:-?}, time: ${secs:-?} s, memory: ${mem:-?} MB"

if [[ -z "$bug" ]]; then
  if grep -q "errors: 0" pan.out && ! grep -qE "Search not completed|max search depth too small|out of memory" pan.out \
     && [[ $status -eq 0 ]]; then
    echo "$label: OK, errors: 0, $summary"
    exit 0
  fi
  cat pan.out >&2
  if [[ -f "$file.trail" ]]; then
    echo "--- counterexample (spin -t -p) ---" >&2
    "$spin" "${defines[@]}" -t -p "$file" 2>&1 | tail -n 80 >&2 || true
  fi
  echo "$label: FAILED${violation:+ ($violation)}, $summary" >&2
  exit 1
fi

if ! grep -q "errors: 0" pan.out && [[ -n "$violation" ]] && grep -qE "assertion violated ($expect)" <<<"$violation"; then
  echo "$label: violation found as expected ($violation), $summary"
  exit 0
fi
cat pan.out >&2
echo "$label: FAILED: expected pan to report a violation of ${expect//|/ or } with -D$bug${violation:+, got: $violation}" >&2
exit 1
