// Synchronization. Release consistency: a release writes this PE's changed copies back to their homes as
// diffs and publishes write notices for them and for the tracked home pages it wrote; an acquire drops the
// copies that other PEs' notices name. Sequential consistency: both are fences (the protocol keeps every
// page coherent at every instant).
#include <algorithm>

#include "common/log.hpp"
#include "core/sync.hpp"
#include "dsm/dsm.hpp"

namespace rdsm::detail::dsm {

namespace {

void sort_unique(std::vector<uint32_t>& pages) {
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
}

}  // namespace

void space::flush_dirty(std::vector<uint32_t>& pages, std::vector<uint32_t>& notices) {
  if (pages.empty()) return;
  sort_unique(pages);
  // Writes stop before the diffs are taken: a store after its page's diff faults and is tracked anew.
  protect_runs(pages, page_state::shared);
  for (uint32_t page : pages) {
    const size_t bytes = write_diff(page);
    if (bytes == 0) continue;
    stats_.diffs.fetch_add(1, std::memory_order_relaxed);
    stats_.diff_bytes.fetch_add(bytes, std::memory_order_relaxed);
    notices.push_back(page);
  }
  mem_->flush();  // every diff is in its home's frame before a notice names it
  pages.clear();
}

void space::track_new_copies() {
  // The fence pairs with the one a reader makes between telling the home and copying the page: either the
  // page is found here, or the reader's copy already holds every write made before this release.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::vector<uint32_t> fresh;
  tracker_->take(fresh);
  for (uint32_t page : fresh) {
    if (page >= n_pages_ || homes_[page] != my_pe_ || tracked_[page] != 0) continue;
    if (advice_[page] == RDSM_DSM_READ_ONLY || advice_[page] == RDSM_DSM_PRIVATE) continue;
    tracked_[page] = 1;
    // Written or not since the copy was taken, nobody knows: noticed once, conservatively.
    if (state(page) == page_state::modified) home_dirty_.push_back(page);
  }
}

void space::release() {
  if (!release_mode_) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint32_t> notices;
  notices.swap(flushed_);
  flush_dirty(dirty_, notices);
  track_new_copies();
  if (!home_dirty_.empty()) {
    sort_unique(home_dirty_);
    protect_runs(home_dirty_, page_state::shared);  // the next write faults and is noticed again
    notices.insert(notices.end(), home_dirty_.begin(), home_dirty_.end());
    home_dirty_.clear();
  }
  if (notices.empty()) return;
  rings_->publish(notices);
  stats_.notices.fetch_add(notices.size(), std::memory_order_relaxed);
}

void space::drop_stale(std::vector<uint32_t>& stale) {
  sort_unique(stale);
  // A home's frame is the page itself, and read-only and private copies never go stale.
  std::erase_if(stale, [&](uint32_t page) {
    return page >= n_pages_ || homes_[page] < 0 || homes_[page] == my_pe_ || state(page) == page_state::invalid ||
           !(advice_[page] != RDSM_DSM_READ_ONLY && advice_[page] != RDSM_DSM_PRIVATE);
  });
  // A copy written since this PE's last release holds writes of its own: they go to the home first, and
  // their notice goes out with the next release.
  std::vector<uint32_t> written;
  for (uint32_t page : stale)
    if (state(page) == page_state::modified) written.push_back(page);
  if (!written.empty()) {
    std::erase_if(dirty_, [&](uint32_t page) { return std::binary_search(written.begin(), written.end(), page); });
    flush_dirty(written, flushed_);
  }
  protect_runs(stale, page_state::invalid);
  stats_.invalidations.fetch_add(stale.size(), std::memory_order_relaxed);
}

void space::acquire() {
  if (!release_mode_) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint32_t> stale;
  if (!rings_->collect(stale)) {
    RDSM_LOG_DEBUG("dsm", "a write-notice ring overran: dropping every cached copy");
    stale.clear();
    for (uint32_t page = 0; page < n_pages_; ++page)
      if (state(page) != page_state::invalid) stale.push_back(page);
  }
  drop_stale(stale);
}

void space::barrier() {
  release();
  barrier_all();
  acquire();
}

}  // namespace rdsm::detail::dsm
