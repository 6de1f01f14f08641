// Queue locks for the DSM (lock.hpp). Every remote word is reached with the runtime's atomics: CPU atomics
// through the mapping for PEs of this host, UCX atomics otherwise. Waiting loops back off (they may drive
// the transport, which applies a predecessor's hand-off over TCP).
#include "dsm/lock.hpp"

#include <atomic>
#include <cstddef>
#include <mutex>
#include <unordered_set>

#include "common/log.hpp"
#include "core/memory.hpp"
#include "core/progress.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/watch.hpp"

namespace rdsm::detail::dsm {

namespace {

uint64_t load_own(const uint64_t* word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

// This PE's view of its locks: those created and not destroyed, and those it holds or is acquiring (its
// queue node is in use: a second acquire by the PE would overwrite it and wait for itself). Misuse the
// API leaves undefined ends the job with one line rather than hanging or corrupting a queue.
std::mutex registry_mu;
std::unordered_set<const queue_lock*> live, held;

void check_live(const char* fn, const queue_lock* lock) {
  if (live.count(lock) == 0)
    fatal("%s: %p is not a live DSM lock (destroyed, or not from rdsm_dsm_lock_create)", fn,
          static_cast<const void*>(lock));
}

}  // namespace

queue_lock* queue_lock_create(const char* fn) {
  auto* lock = static_cast<queue_lock*>(sym_allocate(fn, sizeof(queue_lock), alignof(queue_lock), true));
  if (lock == nullptr)
    fatal("%s: no symmetric heap left for a DSM lock (%zu bytes); raise SHMEM_SYMMETRIC_SIZE", fn, sizeof(queue_lock));
  // Locks are homed round robin over the PEs by where they sit in the heap, so many locks spread.
  runtime& rt = runtime::get();
  const sym_addr at = rt.resolve(lock);
  lock->home = (at.offset / sizeof(queue_lock)) % static_cast<uint64_t>(rt.n_pes());
  std::lock_guard<std::mutex> g(registry_mu);
  live.insert(lock);
  return lock;
}

void queue_lock_destroy(const char* fn, queue_lock* lock) {
  {
    std::lock_guard<std::mutex> g(registry_mu);
    check_live(fn, lock);
    if (held.count(lock) != 0)
      fatal("%s: PE %d still holds lock %p; unlock it before destroying it", fn, runtime::get().my_pe(),
            static_cast<void*>(lock));
    live.erase(lock);
  }
  sym_free(fn, lock);
}

void queue_lock_acquire(const char* fn, queue_lock* lock) {
  const int me = runtime::get().my_pe();
  {
    std::lock_guard<std::mutex> g(registry_mu);
    check_live(fn, lock);
    if (!held.insert(lock).second)
      fatal("%s: PE %d already holds lock %p (or another of its threads is locking it); a second lock would wait "
            "for itself forever: unlock it first",
            fn, me, static_cast<void*>(lock));
  }
  __atomic_store_n(&lock->next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&lock->waiting, 1, __ATOMIC_RELAXED);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the node is ready before anyone can see it
  const uint64_t prev = atomic(fn, amo_op::swap, &lock->tail, 8, static_cast<uint64_t>(me) + 1, 0,
                               static_cast<int>(lock->home));
  if (prev != 0) {
    atomic(fn, amo_op::set, &lock->next, 8, static_cast<uint64_t>(me) + 1, 0, static_cast<int>(prev - 1));
    quiet();  // the link is on its way before this PE waits on it
    const wait_on on{.call = fn, .what = "lock", .addr = lock, .pe = static_cast<int>(prev - 1)};  // PE ahead
    wait_scope scope(on);
    backoff b;
    while (load_own(&lock->waiting) != 0) b.pause();
  }
  std::atomic_thread_fence(std::memory_order_acquire);
}

void queue_lock_check_held(const char* fn, const queue_lock* lock) {
  std::lock_guard<std::mutex> g(registry_mu);
  if (held.count(lock) == 0)
    fatal("%s: lock %p is not held by PE %d; unlock only a lock this PE locked", fn, static_cast<const void*>(lock),
          runtime::get().my_pe());
}

void queue_lock_release(const char* fn, queue_lock* lock) {
  const int me = runtime::get().my_pe();
  queue_lock_check_held(fn, lock);
  {
    std::lock_guard<std::mutex> g(registry_mu);
    held.erase(lock);
  }
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
