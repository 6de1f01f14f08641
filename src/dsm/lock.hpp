// DSM locks: queue locks (MCS) in the symmetric heap. A waiting PE spins on a word of its own, which its
// predecessor writes once at hand-off: one remote store per hand-off, no remote polling, FIFO order. Misuse
// (a lock not created or already destroyed, a second lock by its holder, an unlock by another PE) ends the
// job with one line.
#pragma once

#include <cstdint>

namespace rdsm::detail::dsm {

/// One lock, symmetric: the same object in every PE. `tail` is meaningful at the lock's home PE (the
/// last PE queued, plus one; 0 = free); `next` and `waiting` are each PE's own queue node; `live` and
/// `held` are this PE's own bookkeeping, never read by a peer.
struct alignas(64) queue_lock {
  uint64_t tail;
  uint64_t next;     // the PE queued behind this one, plus one; 0 = none yet
  uint64_t waiting;  // 1 while this PE waits for its predecessor's hand-off
  uint64_t home;     // the PE holding `tail` (the same value in every PE)
  uint64_t live;     // queue_lock_live from its creation to its destruction
  uint64_t held;     // 1 while this PE holds the lock or is acquiring it (its queue node is in use)
};
// Symmetric and read by peers, also of other architectures (core/job_record.hpp's wire_layout_version).
static_assert(sizeof(queue_lock) == 64, "queue_lock must have one layout on every architecture");

queue_lock* queue_lock_create(const char* fn);
void queue_lock_destroy(const char* fn, queue_lock* lock);
void queue_lock_acquire(const char* fn, queue_lock* lock);
/// `passing` (may be null) is called once the lock's fate is known, with the PE it goes to next, before that
/// PE can take it, or with no_pe (-1) after it was freed.
void queue_lock_release(const char* fn, queue_lock* lock, void (*passing)(int pe));
/// Ends the job with one line unless this PE holds `lock` (release does it too; an unlock checks first,
/// before the DSM's release).
void queue_lock_check_held(const char* fn, const queue_lock* lock);

}  // namespace rdsm::detail::dsm
