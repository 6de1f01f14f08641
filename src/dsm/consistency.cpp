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

void space::lock_taken() {
  if (release_mode_) {
    acquire();
    return;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // Pages handed over with the lock came (on one host) before the hand-off itself: applied now, they are
  // found open instead of faulting.
  serve_while_waiting();
  std::lock_guard<state_mutex> lock(mu_);
  seq_->begin_hold();
}

void space::lock_passing(int to) {
  if (release_mode_) return;
  std::lock_guard<state_mutex> lock(mu_);
  hand_over_locked(to);
}

void space::barrier() {
  release();
  barrier_all();
  acquire();
}

}  // namespace rdsm::detail::dsm
