// Synchronization. Release consistency: a release writes this PE's changed copies back to their homes as
// diffs and publishes write notices for them and for the tracked home pages it wrote; an acquire refreshes
// or drops the copies that other PEs' notices name. Sequential consistency: both are fences (the protocol keeps every
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

bool space::stays_open(uint32_t page) {
  // Pages written every other interval (two grids used in turn) stay open too: a page closes only after
  // `close_after` releases in a row found it unchanged.
  constexpr uint8_t close_after = 3;
  if (++idle_[page] < close_after) return true;
  idle_[page] = 0;
  return false;
}

void space::release_copies(std::vector<uint32_t>& notices) {
  if (dirty_.empty()) return;
  sort_unique(dirty_);
  // A copy whose diff is not empty stays writable (its twin now equals what the home has); one that was
  // not written in this interval closes, and is compared once more after closing: a store that raced with
  // the first comparison is in the frame by then.
  std::vector<uint32_t> open, quiet;
  auto send = [&](uint32_t page) {
    const size_t bytes = write_diff(page);
    if (bytes == 0) return false;
    idle_[page] = 0;
    stats_.diffs.fetch_add(1, std::memory_order_relaxed);
    stats_.diff_bytes.fetch_add(bytes, std::memory_order_relaxed);
    notices.push_back(page);
    return true;
  };
  for (uint32_t page : dirty_) (send(page) || stays_open(page) ? open : quiet).push_back(page);
  if (!quiet.empty()) {
    protect_runs(quiet, page_state::shared);
    for (uint32_t page : quiet) send(page);
  }
  mem_->flush();  // every diff is in its home's frame before a notice names it
  dirty_.swap(open);
}

void space::release_home_pages(std::vector<uint32_t>& notices) {
  // Pages kept writable since an earlier release: noticed when they differ from their twins, closed when
  // they do not (and compared once more after closing, as above).
  std::vector<uint32_t> open, quiet;
  for (uint32_t page : home_hot_) {
    if (twin_matches(page)) {
      (stays_open(page) ? open : quiet).push_back(page);
      continue;
    }
    idle_[page] = 0;
    notices.push_back(page);
    open.push_back(page);
  }
  if (!quiet.empty()) {
    protect_runs(quiet, page_state::shared);
    for (uint32_t page : quiet)
      if (!twin_matches(page)) notices.push_back(page);
  }
  // Pages that faulted on a write (or may have been written before a copy was taken): noticed, and kept
  // writable with a twin.
  for (uint32_t page : home_dirty_) {
    make_twin(page);
    idle_[page] = 0;
    notices.push_back(page);
    open.push_back(page);
  }
  home_dirty_.clear();
  sort_unique(open);
  home_hot_.swap(open);
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
  release_copies(notices);
  track_new_copies();
  release_home_pages(notices);
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
  if (stale.empty()) return;
  stats_.invalidations.fetch_add(stale.size(), std::memory_order_relaxed);
  // A writable copy holds writes of this PE: they go to the home first (their notice goes out with the
  // next release), with the page closed so that none is missed.
  std::vector<uint32_t> written;
  for (uint32_t page : stale)
    if (state(page) == page_state::modified) written.push_back(page);
  if (!written.empty()) {
    protect_runs(written, page_state::shared);
    for (uint32_t page : written) {
      const size_t bytes = write_diff(page);
      if (bytes == 0) continue;
      stats_.diffs.fetch_add(1, std::memory_order_relaxed);
      stats_.diff_bytes.fetch_add(bytes, std::memory_order_relaxed);
      flushed_.push_back(page);
    }
    mem_->flush();
  }
  // Copies whose home is on this host are refreshed in place: copying the home's frame costs less than
  // the fault that would fetch it. The others are dropped and fetched when next touched. A refreshed
  // copy that was writable opens again with a new twin.
  std::vector<uint32_t> dropped, reopened;
  uint64_t refreshed = 0;
  for (uint32_t page : stale) {
    const int h = homes_[page];
    if (!mem_->near(h)) {
      dropped.push_back(page);
      continue;
    }
    mem_->read(h, frame_offset(page), frame(page), page_size_);
    ++refreshed;
    if (std::binary_search(written.begin(), written.end(), page)) {
      make_twin(page);
      reopened.push_back(page);
    }
  }
  stats_.fetches.fetch_add(refreshed, std::memory_order_relaxed);
  protect_runs(dropped, page_state::invalid);
  protect_runs(reopened, page_state::modified);
  std::erase_if(dirty_, [&](uint32_t page) { return std::binary_search(dropped.begin(), dropped.end(), page); });
}

void space::forget_written(uint32_t first, uint32_t n) {
  auto in_range = [&](uint32_t page) { return page - first < n; };
  std::erase_if(flushed_, in_range);
  std::erase_if(dirty_, in_range);
  std::erase_if(home_dirty_, in_range);
  std::erase_if(home_hot_, in_range);
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
