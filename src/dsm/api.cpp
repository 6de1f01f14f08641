// The C API of rdsm/dsm.h over the DSM space.
#include "core/memory.hpp"
#include "core/runtime.hpp"
#include "core/sync.hpp"
#include "dsm/dsm.hpp"
#include "rdsm/dsm.h"

using rdsm::detail::dsm::space;

extern "C" {

void* rdsm_dsm_alloc(size_t bytes) {
  return space::ensure("rdsm_dsm_alloc").allocate("rdsm_dsm_alloc", bytes, RDSM_DSM_BLOCK, 0);
}

void* rdsm_dsm_alloc_placed(size_t bytes, rdsm_dsm_placement_t placement, size_t param) {
  return space::ensure("rdsm_dsm_alloc_placed").allocate("rdsm_dsm_alloc_placed", bytes, placement, param);
}

void rdsm_dsm_free(void* p) { space::ensure("rdsm_dsm_free").release_block("rdsm_dsm_free", p); }

void rdsm_dsm_barrier(void) { space::ensure("rdsm_dsm_barrier").barrier(); }

// A lock is a word of the symmetric heap (a fair ticket lock served by PE 0) plus the DSM's fences.
rdsm_dsm_lock_t* rdsm_dsm_lock_create(void) {
  space::ensure("rdsm_dsm_lock_create");
  return static_cast<rdsm_dsm_lock_t*>(rdsm::detail::sym_allocate("rdsm_dsm_lock_create", sizeof(long), 0, true));
}

void rdsm_dsm_lock(rdsm_dsm_lock_t* lock) {
  space& s = space::ensure("rdsm_dsm_lock");
  rdsm::detail::lock_set("rdsm_dsm_lock", reinterpret_cast<long*>(lock));
  s.acquire();
}

void rdsm_dsm_unlock(rdsm_dsm_lock_t* lock) {
  space& s = space::ensure("rdsm_dsm_unlock");
  s.release();
  rdsm::detail::lock_clear("rdsm_dsm_unlock", reinterpret_cast<long*>(lock));
}

void rdsm_dsm_lock_destroy(rdsm_dsm_lock_t* lock) {
  space::ensure("rdsm_dsm_lock_destroy");
  rdsm::detail::sym_free("rdsm_dsm_lock_destroy", lock);
}

void rdsm_dsm_acquire(void) { space::ensure("rdsm_dsm_acquire").acquire(); }

void rdsm_dsm_release(void) { space::ensure("rdsm_dsm_release").release(); }

void rdsm_dsm_advise(void* p, size_t bytes, rdsm_dsm_advice_t advice) {
  space::ensure("rdsm_dsm_advise").advise("rdsm_dsm_advise", p, bytes, advice);
}

void rdsm_dsm_stats(rdsm_dsm_stats_t* out) {
  if (out == nullptr) return;
  *out = rdsm_dsm_stats_t{};
  rdsm::detail::runtime::checked("rdsm_dsm_stats");
  if (space* s = space::get()) s->stats(out);
}

int rdsm_dsm_home(const void* p) { return space::ensure("rdsm_dsm_home").home_of(p); }

size_t rdsm_dsm_page_size(void) { return space::ensure("rdsm_dsm_page_size").page_size(); }

}  // extern "C"
