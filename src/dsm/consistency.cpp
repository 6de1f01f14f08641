// Synchronization. Release consistency: the protocol's release and acquire (release.cpp) under the
// space's lock. Sequential consistency: both are fences (the protocol keeps every page coherent at every
// instant).
#include "core/sync.hpp"
#include "dsm/dsm.hpp"

namespace rdsm::detail::dsm {

void space::release() {
  if (!release_mode_) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  std::lock_guard<state_mutex> lock(mu_);
  lazy_->release();
}

void space::acquire() {
  if (!release_mode_) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  std::lock_guard<state_mutex> lock(mu_);
  lazy_->acquire();
}

void space::barrier() {
  release();
  barrier_all();
  acquire();
}

}  // namespace rdsm::detail::dsm
