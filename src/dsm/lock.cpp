// Queue locks for the DSM (lock.hpp). Every remote word is reached with the runtime's atomics: CPU atomics
// through the mapping for PEs of this host, UCX atomics otherwise. Waiting loops back off (they may drive
// the transport, which applies a predecessor's hand-off over TCP).
#include "dsm/lock.hpp"

#include <atomic>
#include <cstddef>

#include "common/log.hpp"
#include "core/memory.hpp"
#include "core/progress.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"

namespace rdsm::detail::dsm {

namespace {

uint64_t load_own(const uint64_t* word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

}  // namespace

queue_lock* queue_lock_create(const char* fn) {
  auto* lock = static_cast<queue_lock*>(sym_allocate(fn, sizeof(queue_lock), alignof(queue_lock), true));
  if (lock == nullptr)
    fatal("%s: no symmetric heap left for a DSM lock (%zu bytes); raise SHMEM_SYMMETRIC_SIZE", fn, sizeof(queue_lock));
  // Locks are homed round robin over the PEs by where they sit in the heap, so many locks spread.
  runtime& rt = runtime::get();
  const sym_addr at = rt.resolve(lock);
  lock->home = (at.offset / sizeof(queue_lock)) % static_cast<uint64_t>(rt.n_pes());
  return lock;
}

void queue_lock_destroy(const char* fn, queue_lock* lock) { sym_free(fn, lock); }

void queue_lock_acquire(const char* fn, queue_lock* lock) {
  const int me = runtime::get().my_pe();
  __atomic_store_n(&lock->next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&lock->waiting, 1, __ATOMIC_RELAXED);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the node is ready before anyone can see it
  const uint64_t prev = atomic(fn, amo_op::swap, &lock->tail, 8, static_cast<uint64_t>(me) + 1, 0,
                               static_cast<int>(lock->home));
  if (prev != 0) {
    atomic(fn, amo_op::set, &lock->next, 8, static_cast<uint64_t>(me) + 1, 0, static_cast<int>(prev - 1));
    quiet();  // the link is on its way before this PE waits on it
    backoff b;
    while (load_own(&lock->waiting) != 0) b.pause();
  }
  std::atomic_thread_fence(std::memory_order_acquire);
}

void queue_lock_release(const char* fn, queue_lock* lock) {
  const int me = runtime::get().my_pe();
  quiet();  // everything done under the lock is complete before the next holder enters
  uint64_t next = load_own(&lock->next);
  if (next == 0) {
    const uint64_t self = static_cast<uint64_t>(me) + 1;
    if (atomic(fn, amo_op::cswap, &lock->tail, 8, 0, self, static_cast<int>(lock->home)) == self) return;
    // A PE swapped itself in behind this one and is about to link: wait for it.
    backoff b;
    while ((next = load_own(&lock->next)) == 0) b.pause();
  }
  atomic(fn, amo_op::set, &lock->waiting, 8, 0, 0, static_cast<int>(next - 1));
  quiet();
}

}  // namespace rdsm::detail::dsm
