// The C API of rdsm/dsm.h over the DSM space.
#include "core/memory.hpp"
#include "core/runtime.hpp"
#include "core/watch.hpp"
#include "common/log.hpp"
#include "dsm/dsm.hpp"
#include "dsm/lock.hpp"
#include "rdsm/dsm.h"

using rdsm::detail::dsm::queue_lock;
using rdsm::detail::dsm::queue_lock_acquire;
using rdsm::detail::dsm::queue_lock_check_held;
using rdsm::detail::dsm::queue_lock_create;
using rdsm::detail::dsm::queue_lock_destroy;
using rdsm::detail::dsm::queue_lock_release;
using rdsm::detail::dsm::space;
using rdsm::detail::wait_on;
using rdsm::detail::wait_scope;

namespace {

queue_lock* checked_lock(const char* fn, rdsm_dsm_lock_t* lock) {
  if (lock == nullptr) rdsm::detail::fatal("%s: the lock is NULL; pass a lock from rdsm_dsm_lock_create", fn);
  return reinterpret_cast<queue_lock*>(lock);
}

}  // namespace

extern "C" {

void* rdsm_dsm_alloc(size_t bytes) noexcept {
  static const wait_on call{.call = "rdsm_dsm_alloc"};
  wait_scope scope(call);
  return space::ensure("rdsm_dsm_alloc").allocate("rdsm_dsm_alloc", bytes, RDSM_DSM_BLOCK, 0);
}

void* rdsm_dsm_alloc_placed(size_t bytes, rdsm_dsm_placement_t placement, size_t param) noexcept {
  static const wait_on call{.call = "rdsm_dsm_alloc_placed"};  // the reports name it, not its barriers
  wait_scope scope(call);
  return space::ensure("rdsm_dsm_alloc_placed").allocate("rdsm_dsm_alloc_placed", bytes, placement, param);
}

void rdsm_dsm_free(void* p) noexcept {
  static const wait_on call{.call = "rdsm_dsm_free"};
  wait_scope scope(call);
  space::ensure("rdsm_dsm_free").release_block("rdsm_dsm_free", p);
}

void rdsm_dsm_barrier(void) noexcept {
  static const wait_on call{.call = "rdsm_dsm_barrier"};
  wait_scope scope(call);
  space::ensure("rdsm_dsm_barrier").barrier();
}

// A lock is a queue lock in the symmetric heap (lock.hpp) plus the DSM's acquire and release.
rdsm_dsm_lock_t* rdsm_dsm_lock_create(void) noexcept {
  space::ensure("rdsm_dsm_lock_create");
  return reinterpret_cast<rdsm_dsm_lock_t*>(queue_lock_create("rdsm_dsm_lock_create"));
}

void rdsm_dsm_lock(rdsm_dsm_lock_t* lock) noexcept {
  space& s = space::ensure("rdsm_dsm_lock");
  queue_lock_acquire("rdsm_dsm_lock", checked_lock("rdsm_dsm_lock", lock));
  s.lock_taken();
}

void rdsm_dsm_unlock(rdsm_dsm_lock_t* lock) noexcept {
  space& s = space::ensure("rdsm_dsm_unlock");
  queue_lock* q = checked_lock("rdsm_dsm_unlock", lock);
  queue_lock_check_held("rdsm_dsm_unlock", q);
  s.release();
  queue_lock_release("rdsm_dsm_unlock", q, [](int next) { space::get()->lock_passing(next); });
}

void rdsm_dsm_lock_destroy(rdsm_dsm_lock_t* lock) noexcept {
  space::ensure("rdsm_dsm_lock_destroy");
  queue_lock_destroy("rdsm_dsm_lock_destroy", checked_lock("rdsm_dsm_lock_destroy", lock));
}

// The calls below are not collective: before the DSM starts (at its first collective call) they must not
// start it, which waits for every PE. Nothing is cached or written then, and no address is DSM memory.
void rdsm_dsm_acquire(void) noexcept {
  rdsm::detail::runtime::checked("rdsm_dsm_acquire");
  if (space* s = space::get()) s->acquire();
}

void rdsm_dsm_release(void) noexcept {
  rdsm::detail::runtime::checked("rdsm_dsm_release");
  if (space* s = space::get()) s->release();
}

void rdsm_dsm_advise(void* p, size_t bytes, rdsm_dsm_advice_t advice) noexcept {
  space::ensure("rdsm_dsm_advise").advise("rdsm_dsm_advise", p, bytes, advice);
}

void rdsm_dsm_touch(const void* p, size_t bytes, rdsm_dsm_access_t access) noexcept {
  if (access != RDSM_DSM_TOUCH_READ && access != RDSM_DSM_TOUCH_WRITE)
    rdsm::detail::fatal("rdsm_dsm_touch: access %d is not RDSM_DSM_TOUCH_READ or RDSM_DSM_TOUCH_WRITE",
                        static_cast<int>(access));
  rdsm::detail::runtime::checked("rdsm_dsm_touch");
  space* s = space::get();
  if (s == nullptr && bytes != 0)
    rdsm::detail::fatal("rdsm_dsm_touch: %p is not DSM memory (none is allocated yet); pass memory from "
                        "rdsm_dsm_alloc", p);
  if (s != nullptr) s->touch("rdsm_dsm_touch", p, bytes, access == RDSM_DSM_TOUCH_WRITE);
}

void rdsm_dsm_stats(rdsm_dsm_stats_t* out) noexcept {
  if (out == nullptr) return;
  *out = rdsm_dsm_stats_t{};
  rdsm::detail::runtime::checked("rdsm_dsm_stats");
  if (space* s = space::get()) s->stats(out);
}

int rdsm_dsm_home(const void* p) noexcept {
  rdsm::detail::runtime::checked("rdsm_dsm_home");
  const space* s = space::get();
  return s != nullptr ? s->home_of(p) : rdsm::detail::dsm::no_pe;
}

size_t rdsm_dsm_page_size(void) noexcept {
  rdsm::detail::runtime::checked("rdsm_dsm_page_size");
  const space* s = space::get();
  return s != nullptr ? s->page_size() : space::configured_page_size();
}

}  // extern "C"
