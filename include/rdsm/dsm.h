/* rdsm distributed shared memory: plain memory at the same address in every PE, kept coherent page by
 * page (single writer / multiple readers, home-based directory). Usable from C and C++, beside the
 * OpenSHMEM API of the same job; call shmem_init first.
 *
 * Consistency per job: RDSM_DSM_CONSISTENCY=release (default) makes writes visible to other PEs at
 * synchronization (rdsm_dsm_barrier, an unlock followed by a lock, rdsm_dsm_release then
 * rdsm_dsm_acquire); data-race-free programs see sequential consistency. RDSM_DSM_CONSISTENCY=sequential
 * keeps every page coherent at every instant. Sizes: RDSM_DSM_SIZE (reserved address space per job),
 * RDSM_DSM_PAGE_SIZE (coherence unit, a power of two >= 4 KiB). See docs/design/dsm.md. */
#ifndef RDSM_DSM_H
#define RDSM_DSM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RDSM_DSM_API __attribute__((visibility("default")))
/* No routine lets a C++ exception out: C callers have no frames to unwind. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define RDSM_DSM_NOEXCEPT noexcept
#elif defined(__cplusplus)
#define RDSM_DSM_NOEXCEPT throw()
#else
#define RDSM_DSM_NOEXCEPT
#endif

/* Where the home (the authoritative copy and the directory entry) of each page lives. */
typedef enum {
  RDSM_DSM_BLOCK = 0,       /* contiguous share per PE: PE i homes the i-th 1/n of the pages */
  RDSM_DSM_CYCLIC = 1,      /* blocks of `param` bytes (rounded up to pages; 0 = one page) dealt round robin */
  RDSM_DSM_FIRST_TOUCH = 2, /* the first PE to access a page becomes its home */
  RDSM_DSM_ON_PE = 3        /* every page on PE `param` */
} rdsm_dsm_placement_t;

/* Region annotations: each lets the protocol skip work (collective; every PE passes the same range). */
typedef enum {
  RDSM_DSM_DEFAULT = 0,           /* the general protocol */
  RDSM_DSM_READ_ONLY = 1,         /* copies replicate freely and survive synchronization; a write ends the job */
  RDSM_DSM_PRIVATE = 2,           /* each PE keeps its own copy (starting from the current contents); no traffic */
  RDSM_DSM_MIGRATORY = 3,         /* read faults take ownership at once (read-modify-write by one PE at a time) */
  RDSM_DSM_WRITE_SHARED = 4,      /* release mode: several writers per page, merged at the home by diffs */
  RDSM_DSM_PRODUCER_CONSUMER = 5  /* release mode: the writer hands the page back to its home at release */
} rdsm_dsm_advice_t;

typedef struct rdsm_dsm_lock rdsm_dsm_lock_t;

/* Counters of this PE since shmem_init, as read by rdsm_dsm_stats (rdsm::dsm::stats in C++). */
typedef struct {
  uint64_t read_faults;     /* faults on pages without access */
  uint64_t write_faults;    /* faults on pages without write access */
  uint64_t fetches;         /* pages copied from their home (or mapped from it, on one host) */
  uint64_t invalidations;   /* stale copies found: at an acquire (refreshed or dropped) or on request */
  uint64_t write_backs;     /* pages written back to their home by a recall (sequential mode) */
  uint64_t diffs;           /* copies whose changes went to their home as a diff (release mode) */
  uint64_t diff_bytes;      /* bytes carried by those diffs */
  uint64_t notices;         /* write notices published at releases */
  uint64_t requests_served; /* read and write requests this PE handled as a home (sequential mode) */
  /* Cache maintenance (RDSM_CACHE_MAINTENANCE) around pages that cross through the network, counted since the
     process started: cleans before the NIC reads a range, invalidations after it wrote one, cache lines
     covered by both. Zero where maintenance is off (x86 by default). */
  uint64_t cache_cleans;
  uint64_t cache_invalidates;
  uint64_t cache_lines;
  uint64_t wakeups;         /* sleeping protocol threads of same-host peers this PE woke (sequential mode) */
  uint64_t waits_served;    /* protocol rounds this PE's threads did while they waited in a barrier, a lock or
                               a wait on memory, not its protocol thread (sequential mode) */
} rdsm_dsm_stats_t;

/* Collective. Returns the same address on every PE, zero-filled memory, or NULL (with one warning naming
 * RDSM_DSM_SIZE) when the DSM space is exhausted. Block placement. */
RDSM_DSM_API void *rdsm_dsm_alloc(size_t bytes) RDSM_DSM_NOEXCEPT;
RDSM_DSM_API void *rdsm_dsm_alloc_placed(size_t bytes, rdsm_dsm_placement_t placement, size_t param) RDSM_DSM_NOEXCEPT;
/* Collective, also for NULL: every PE passes the same pointer (checked; PEs that pass different ones end
 * the job with one line). The memory's contents are lost. */
RDSM_DSM_API void rdsm_dsm_free(void *p) RDSM_DSM_NOEXCEPT;

/* Collective: all writes before it, by any PE, are visible to all reads after it. */
RDSM_DSM_API void rdsm_dsm_barrier(void) RDSM_DSM_NOEXCEPT;

/* Locks with acquire/release semantics for the data they protect (fair: first come, first served). A lock
 * is held by a PE: one thread of a PE at a time may lock it. Locking a lock this PE holds, unlocking one it
 * does not hold, and using a destroyed lock end the job with one line naming the lock. */
RDSM_DSM_API rdsm_dsm_lock_t *rdsm_dsm_lock_create(void) RDSM_DSM_NOEXCEPT; /* collective */
RDSM_DSM_API void rdsm_dsm_lock(rdsm_dsm_lock_t *lock) RDSM_DSM_NOEXCEPT;
RDSM_DSM_API void rdsm_dsm_unlock(rdsm_dsm_lock_t *lock) RDSM_DSM_NOEXCEPT;
RDSM_DSM_API void rdsm_dsm_lock_destroy(rdsm_dsm_lock_t *lock) RDSM_DSM_NOEXCEPT; /* collective */

/* Explicit fences: release publishes this PE's writes; acquire makes writes released before it visible. */
RDSM_DSM_API void rdsm_dsm_acquire(void) RDSM_DSM_NOEXCEPT;
RDSM_DSM_API void rdsm_dsm_release(void) RDSM_DSM_NOEXCEPT;

/* Collective region annotation (whole pages containing [p, p+bytes)). */
RDSM_DSM_API void rdsm_dsm_advise(void *p, size_t bytes, rdsm_dsm_advice_t advice) RDSM_DSM_NOEXCEPT;

/* Makes [p, p+bytes) present in this PE for reading (RDSM_DSM_TOUCH_READ) or writing
 * (RDSM_DSM_TOUCH_WRITE), without changing its contents. DSM memory that is not present faults on access,
 * which the kernel does not do for system calls: write(fd, p, n) from such memory or read(fd, p, n) into
 * it fails with EFAULT. Touch the range just before the call, with no DSM synchronization in between (an
 * acquire may drop the copies again). In sequential consistency a peer's write to the same page can take it
 * back before the call: touch again and retry while the call fails with EFAULT. */
typedef enum { RDSM_DSM_TOUCH_READ = 0, RDSM_DSM_TOUCH_WRITE = 1 } rdsm_dsm_access_t;
RDSM_DSM_API void rdsm_dsm_touch(const void *p, size_t bytes, rdsm_dsm_access_t access) RDSM_DSM_NOEXCEPT;

RDSM_DSM_API void rdsm_dsm_stats(rdsm_dsm_stats_t *out) RDSM_DSM_NOEXCEPT;
/* The home PE of the page holding `p` (-1 when not yet decided: first touch). */
RDSM_DSM_API int rdsm_dsm_home(const void *p) RDSM_DSM_NOEXCEPT;
/* The coherence unit in bytes. */
RDSM_DSM_API size_t rdsm_dsm_page_size(void) RDSM_DSM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* RDSM_DSM_H */
