#!/usr/bin/env bash
# Builds rdsm with ThreadSanitizer in ./build-tsan and runs the multi-threaded tests under it
# (SHMEM_THREAD_MULTIPLE with default and private contexts, over shared memory and TCP).
# UCX itself is not instrumented: races reported inside libucs/libuct/libucp are suppressed, not ours.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-fsanitize=thread \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
  -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build build-tsan -j "$(nproc)" --target rdsm rdsmrun threads_test >/dev/null
supp=$(mktemp)
trap 'rm -f "$supp"' EXIT
# UCX's workers lock with spinlocks whose acquire and release TSan sees split across UCX's own frames
# (reported as "unlock of an unlocked mutex" in a lock UCX allocated, also from its library destructor at
# exit); rdsm itself takes no spinlocks.
printf '%s\n' called_from_lib:libucs.so.0 called_from_lib:libuct.so.0 called_from_lib:libucp.so.0 \
  race:libucs.so.0 race:libuct.so.0 race:libucp.so.0 mutex:ucs_calloc mutex:ucs_malloc mutex:libucs.so.0 mutex:pthread_spin_unlock mutex:_dl_call_fini >"$supp"
# UCX's memory hooks (ucm) intercept madvise in exiting threads, where TSan cannot take locks.
export UCX_MEM_EVENTS=no
export TSAN_OPTIONS="suppressions=$supp halt_on_error=1 exitcode=66 report_signal_unsafe=0"
status=0
for tls in "" "tcp,self"; do
  echo "== threads_test, 2 PEs${tls:+, UCX_TLS=$tls}"
  UCX_TLS=${tls:-all} build-tsan/bin/rdsmrun -n 2 --timeout 300 build-tsan/tests/threads/threads_test || status=$?
done
[ $status -eq 0 ] && echo "tsan: no data race reported" || echo "tsan: FAILED (status $status)"
exit $status
