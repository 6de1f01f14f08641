#!/usr/bin/env bash
# Builds rdsm with ThreadSanitizer in ./build-tsan and runs every multi-threaded and DSM test under it: the
# SHMEM_THREAD_MULTIPLE, progress, context and lock programs and the whole DSM (whose progress thread and
# faulting threads share the page table). Every PE has a progress thread, so these are the tests where two
# threads of rdsm touch the same state. Extra arguments go to ctest (e.g. -R dsm_oracle). Ends with ctest's
# summary line. UCX itself is not instrumented: reports from inside it are suppressed below, with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
flags="-fsanitize=thread"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" >/dev/null
cmake --build build-tsan -j "$(nproc)" 2>&1 | grep -Ev "^\[|^-- |Built target|Consolidate compiler" || true
supp=$(mktemp)
trap 'rm -f "$supp"' EXIT
# UCX's workers lock with spinlocks whose acquire and release TSan sees split across UCX's own frames
# (reported as "unlock of an unlocked mutex" in a lock UCX allocated, also from its library destructor at
# exit), and UCX's progress touches its own queues from whichever thread progresses: none of it is rdsm's
# state (rdsm serialises its calls into a worker itself and takes no spinlocks).
printf '%s\n' called_from_lib:libucs.so.0 called_from_lib:libuct.so.0 called_from_lib:libucp.so.0 \
  race:libucs.so.0 race:libuct.so.0 race:libucp.so.0 mutex:ucs_calloc mutex:ucs_malloc mutex:libucs.so.0 \
  mutex:pthread_spin_unlock mutex:_dl_call_fini >"$supp"
# TSan records a mapping as a write to its range. A DSM fault maps pages into the view (map_view) while a
# program thread that faulted on one of them waits for the fault's lock: TSan recorded that thread's access
# before the fault, so the access looks concurrent with the mapping, though it runs again only after the
# lock is released.
printf '%s\n' race:rdsm::detail::dsm::page_table::map_view >>"$supp"
# UCX's memory hooks (ucm) intercept madvise in exiting threads, where TSan cannot take locks.
export UCX_MEM_EVENTS=no
# TSan keeps its shadow memory where the DSM's default view lies (0x200000000000): the view goes to an
# address TSan leaves to the program (below 512 GiB), the same in every PE.
export RDSM_DSM_BASE=${RDSM_DSM_BASE:-0x4000000000}
# The DSM's fault handler runs in a SIGSEGV handler by design (it resolves the fault and returns): TSan's
# check for async-signal-unsafe calls in handlers does not apply to a synchronous fault on the thread itself.
# A longer history keeps the earlier access's stack (the mapping's, above), which the suppression matches.
export TSAN_OPTIONS="suppressions=$supp halt_on_error=1 exitcode=66 report_signal_unsafe=0 history_size=7"
tests='^(threads|progress|coll_ctx|shmem_lock|shmem_p2p_sync|shmem_init_nesting|oversubscribe|dsm_|unit\.)'
cd build-tsan
# dsm_errors.base_in_use asks for the DSM at 0x300000000000, inside TSan's own metadata, which TSan's mmap
# refuses before rdsm can name the overlap: the message under test cannot appear there. The stress.* tests
# (50 runs of a program each) outgrow their time limit 5-15 times slower; their programs are DSM and context
# tests that run here once each.
ctest --output-on-failure -j 2 --timeout 900 -R "$tests" -E '^dsm_errors\.base_in_use$' "$@"
