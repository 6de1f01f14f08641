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
#include "core/watch.hpp"

namespace rdsm::detail::dsm {

namespace {

uint64_t load_own(const uint64_t* word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

// Misuse the API leaves undefined ends the job with one line rather than hanging or corrupting a queue: a
// lock that is not live (never created, or destroyed), a second acquire by the PE that holds it (its queue
// node is in use: it would overwrite it and wait for itself), an unlock by a PE that does not. The marks
// sit in the PE's own copy of the lock, found only at a symmetric address: one load or exchange, no registry
// (a lock and unlock pair on one PE cost 180 ns with a locked registry, 111 ns without).
constexpr uint64_t queue_lock_live = 0x72646c6b6c697665;  // "rdlklive"

void check_live(const char* fn, const queue_lock* lock) {
  if (runtime::get().resolve(lock).region < 0 || __atomic_load_n(&lock->live, __ATOMIC_RELAXED) != queue_lock_live)
    fatal("%s: %p is not a live DSM lock (destroyed, or not from rdsm_dsm_lock_create)", fn,
          static_cast<const void*>(lock));
}

}  // namespace

queue_lock* queue_lock_create(const char* fn) {
  // Zeroed: free, and not held by this PE.
  auto* lock = static_cast<queue_lock*>(sym_allocate(fn, sizeof(queue_lock), alignof(queue_lock), true));
  if (lock == nullptr)
    fatal("%s: no symmetric heap left for a DSM lock (%zu bytes); raise SHMEM_SYMMETRIC_SIZE", fn, sizeof(queue_lock));
  // Locks are homed round robin over the PEs by where they sit in the heap, so many locks spread.
  runtime& rt = runtime::get();
  const sym_addr at = rt.resolve(lock);
  lock->home = (at.offset / sizeof(queue_lock)) % static_cast<uint64_t>(rt.n_pes());
  __atomic_store_n(&lock->live, queue_lock_live, __ATOMIC_RELEASE);
  return lock;
}

void queue_lock_destroy(const char* fn, queue_lock* lock) {
  check_live(fn, lock);
  if (__atomic_load_n(&lock->held, __ATOMIC_ACQUIRE) != 0)
    fatal("%s: PE %d still holds lock %p; unlock it before destroying it", fn, runtime::get().my_pe(),
          static_cast<void*>(lock));
  __atomic_store_n(&lock->live, 0, __ATOMIC_RELEASE);
  sym_free(fn, lock);
}

void queue_lock_acquire(const char* fn, queue_lock* lock) {
  const int me = runtime::get().my_pe();
  check_live(fn, lock);
  if (__atomic_exchange_n(&lock->held, 1, __ATOMIC_ACQ_REL) != 0)
    fatal("%s: PE %d already holds lock %p (or another of its threads is locking it); a second lock would wait "
          "for itself forever: unlock it first",
          fn, me, static_cast<void*>(lock));
  __atomic_store_n(&lock->next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&lock->waiting, 1, __ATOMIC_RELAXED);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the node is ready before anyone can see it
  const uint64_t prev = atomic(fn, amo_op::swap, &lock->tail, 8, static_cast<uint64_t>(me) + 1, 0,
                               static_cast<int>(lock->home));
  if (prev != 0) {
    atomic(fn, amo_op::set, &lock->next, 8, static_cast<uint64_t>(me) + 1, 0, static_cast<int>(prev - 1));
    quiet();  // the link is on its way before this PE waits on it
    const wait_on on{.call = fn, .what = "lock", .addr = lock, .pe = static_cast<int>(prev - 1),  // PE ahead
                     .by_peer = true};
    wait_scope scope(on);
    backoff b;
    while (load_own(&lock->waiting) != 0) b.pause();
  }
  std::atomic_thread_fence(std::memory_order_acquire);
}

void queue_lock_check_held(const char* fn, const queue_lock* lock) {
  check_live(fn, lock);
  if (__atomic_load_n(&lock->held, __ATOMIC_ACQUIRE) == 0)
    fatal("%s: lock %p is not held by PE %d; unlock only a lock this PE locked", fn, static_cast<const void*>(lock),
          runtime::get().my_pe());
}

void queue_lock_release(const char* fn, queue_lock* lock, void (*passing)(int pe)) {
  const int me = runtime::get().my_pe();
  queue_lock_check_held(fn, lock);
  quiet();  // everything done under the lock is complete before the next holder enters
  uint64_t next = load_own(&lock->next);
  if (next == 0) {
    const uint64_t self = static_cast<uint64_t>(me) + 1;
    if (atomic(fn, amo_op::cswap, &lock->tail, 8, 0, self, static_cast<int>(lock->home)) == self) {
      __atomic_store_n(&lock->held, 0, __ATOMIC_RELEASE);  // the node is free again
      if (passing != nullptr) passing(-1);
      return;
    }
    // A PE swapped itself in behind this one and is about to link: wait for it.
    backoff b;
    while ((next = load_own(&lock->next)) == 0) b.pause();
  }
  if (passing != nullptr) passing(static_cast<int>(next - 1));
  atomic(fn, amo_op::set, &lock->waiting, 8, 0, 0, static_cast<int>(next - 1));
  quiet();
  __atomic_store_n(&lock->held, 0, __ATOMIC_RELEASE);
}

}  // namespace rdsm::detail::dsm
