// Release consistency's fault path, run by the faulting thread itself: no message, no other thread, and
// nothing runs at the home. A read fault tells the home (once per page) that a copy exists, copies the
// page and the next few of the same home from the home's frame, and maps them read-only. A write fault
// keeps a twin of the copy and maps it read-write; its changes go back as a diff at release
// (consistency.cpp). A home never fetches its own pages: it faults only on writes to pages that others
// copy, to know which of them to notice at its release.
#include <cstring>

#include "common/log.hpp"
#include "dsm/diff.hpp"
#include "dsm/dsm.hpp"

namespace rdsm::detail::dsm {

namespace {

bool needs_notices(uint8_t advice) { return advice != RDSM_DSM_READ_ONLY && advice != RDSM_DSM_PRIVATE; }

}  // namespace

void space::resolve_fault(uint32_t page, bool write) {
  // The faulting thread may have interrupted any code but the DSM's own (which never touches the view),
  // so this lock is never held by the thread itself.
  std::lock_guard<std::mutex> lock(mu_);
  if (homes_[page] == home_undecided) resolve_home(page);
  const page_state s = state(page);
  if (write ? s == page_state::modified : s != page_state::invalid) return;  // another thread got it first
  if (homes_[page] == my_pe_) {
    // The frame is the page. A write to a tracked page is noticed at the next release; the first touch of
    // a page this PE just won is an untracked page like any other of its home pages.
    if (advice_[page] == RDSM_DSM_READ_ONLY) {
      protect(page, 1, page_state::shared);
      return;
    }
    if (tracked_[page] != 0) home_dirty_.push_back(page);
    protect(page, 1, page_state::modified);
    return;
  }
  const bool writes = write || advice_[page] == RDSM_DSM_MIGRATORY;
  if (!writes) {
    fetch_copies(page, prefetch_run(page), page_state::shared);
    return;
  }
  // A write: the copy (fetched now, or the one held) becomes the twin, and the page opens read-write with
  // a single mprotect.
  if (s == page_state::invalid) fetch_copies(page, 1, page_state::modified);
  make_twin(page);
  dirty_.push_back(page);
  if (s != page_state::invalid) protect(page, 1, page_state::modified);
}

uint32_t space::prefetch_run(uint32_t page) const {
  // Following pages of the same home and advice that this PE does not hold: one copy, one mprotect.
  uint32_t n = 1;
  while (n < prefetch_ && page + n < n_pages_ && homes_[page + n] == homes_[page] &&
         advice_[page + n] == advice_[page] && state(page + n) == page_state::invalid)
    ++n;
  return n;
}

void space::fetch_copies(uint32_t page, uint32_t n, page_state opened) {
  const int h = homes_[page];
  bool told = false;
  for (uint32_t p = page; p < page + n; ++p) {
    if (copied_[p] != 0 || !needs_notices(advice_[p])) continue;
    tracker_->add_copy(p, h);
    copied_[p] = 1;
    told = true;
  }
  // The home sees the copy (and tracks its writes from its next release on), or this copy sees the home's
  // writes: a full fence between telling and copying (the home fences between writing and looking).
  if (told) std::atomic_thread_fence(std::memory_order_seq_cst);
  mem_->read(h, frame_offset(page), frame(page), static_cast<size_t>(n) << shift_);
  stats_.fetches.fetch_add(n, std::memory_order_relaxed);
  protect(page, n, opened);
}

void space::make_twin(uint32_t page) { std::memcpy(twin(page), frame(page), page_size_); }

size_t space::write_diff(uint32_t page) {
  // Each changed run goes into the twin first and to the home from there: the twin holds exactly what was
  // sent, so a store racing with the diff (another thread's) differs from it and goes at the next release.
  const int h = homes_[page];
  const char* now = frame(page);
  char* was = twin(page);
  return for_each_changed_run(now, was, page_size_, [&](size_t at, size_t n) {
    std::memcpy(was + at, now + at, n);
    mem_->write_nbi(h, frame_offset(page) + at, was + at, n);
  });
}

bool space::twin_matches(uint32_t page) {
  // A home page's twin: updated to the frame as it is compared (the same race argument as write_diff).
  const char* now = frame(page);
  char* was = twin(page);
  return for_each_changed_run(now, was, page_size_, [&](size_t at, size_t n) { std::memcpy(was + at, now + at, n); }) == 0;
}

}  // namespace rdsm::detail::dsm
