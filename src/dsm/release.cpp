// Release consistency without messages (release.hpp; docs/design/dsm.md has the protocol's table).
//
// Faults run on the faulting thread itself: no message, no other thread, and nothing runs at the home. A
// read fault tells the home (once per page) that a copy exists, copies the page and the next few of the
// same home from the home's frame, and maps them read-only. A write fault keeps a twin of the copy and
// maps it read-write. A home never fetches its own pages: it faults only on writes to pages that others
// copy, to know which of them to notice at its release.
#include "dsm/release.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "cachectl/cachectl.hpp"
#include "common/log.hpp"
#include "dsm/diff.hpp"
#include "rdsm/dsm.h"

namespace rdsm::detail::dsm {

namespace {

bool needs_notices(uint8_t advice) { return advice != RDSM_DSM_READ_ONLY && advice != RDSM_DSM_PRIVATE; }

void sort_unique(std::vector<uint32_t>& pages) {
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
}

}  // namespace

release_protocol::release_protocol(page_table& pages, remote_memory& mem, notice_rings& rings, copy_tracker& tracker,
                                   int my_pe, uint32_t prefetch, counters& stats)
    : pages_(pages), mem_(mem), rings_(rings), tracker_(tracker), my_pe_(my_pe), prefetch_(prefetch), stats_(stats),
      mappable_(pages.pages(), 0), copied_(pages.pages(), 0), tracked_(pages.pages(), 0), idle_(pages.pages(), 0),
      dropped_(pages.pages(), 0), streak_(pages.pages(), 0), refreshes_(pages.pages(), 0),
      frames_ready_(pages.pages() / populate_group + 1, 0) {}

void release_protocol::fault(uint32_t page, bool write) {
  const page_state s = pages_.state(page);
  if (write ? s == page_state::modified : s != page_state::invalid) return;  // another thread got it first
  if (pages_.home(page) == my_pe_) {
    // The frame is the page. A write to a tracked page is noticed at the next release; the first touch of
    // a page this PE just won is an untracked page like any other of its home pages.
    if (pages_.advice(page) == RDSM_DSM_READ_ONLY) {
      pages_.protect(page, 1, page_state::shared);
      return;
    }
    if (tracked_[page] != 0) home_dirty_.push_back(page);
    pages_.protect(page, 1, page_state::modified);
    return;
  }
  if (mapped_from_home(page)) {
    map_home_run(page);
    return;
  }
  const bool writes = write || pages_.advice(page) == RDSM_DSM_MIGRATORY;
  if (!writes) {
    const int h = pages_.home(page);
    uint32_t n = pages_.read_run(page, prefetch_, mem_.near(h));
    for (uint32_t i = 1; i < n; ++i)
      if (mapped_from_home(page + i)) n = i;  // the next allocation's pages, mapped by the other PEs
    // Read-only pages of a home on this host are mapped from its frames: they do not change while so advised.
    if (pages_.advice(page) == RDSM_DSM_READ_ONLY && pages_.share(page, n, mem_.file(h))) {
      stats_.fetches.fetch_add(n, std::memory_order_relaxed);
      return;
    }
    fetch_copies(page, n, page_state::shared);
    return;
  }
  // A write: the copy (fetched now into the frame, still unmapped, or the one held) becomes the twin, and
  // only then does the page open read-write. Mapped any earlier, another thread's store could land before
  // the twin is taken and be in both: never sent (model/release.pml, BUG_TWIN_AFTER_MAP).
  if (s == page_state::invalid) fetch_copies(page, 1, page_state::invalid);
  make_twin(page);
  dirty_.push_back(page);
  pages_.protect(page, 1, page_state::modified);
}

void release_protocol::map_home_run(uint32_t page) {
  // Every PE is on this host: the view maps the home's memory itself, the run of pages around this one
  // that share its home and advice, within mappable allocations (one mapping, however many faults it
  // saves; a page copied by another PE must never be mapped here). Nothing is copied, so
  // nothing goes stale: no twin, diff or notice, and no home tracks the page. Read-only pages stay
  // read-only (a write to them ends the job).
  const int32_t h = pages_.home(page);
  const uint8_t advice = pages_.advice(page);
  auto joins = [&](uint32_t p) {
    return pages_.home(p) == h && pages_.advice(p) == advice && mapped_from_home(p) &&
           pages_.state(p) == page_state::invalid;
  };
  uint32_t first = page, end = page + 1;
  while (first > 0 && joins(first - 1)) --first;
  while (end < pages_.pages() && joins(end)) ++end;
  const page_state s = advice == RDSM_DSM_READ_ONLY ? page_state::shared : page_state::modified;
  pages_.map_home(first, end - first, mem_.file(h), s, page, std::min(prefetch_, end - page));
  stats_.fetches.fetch_add(end - first, std::memory_order_relaxed);
}

void release_protocol::fetch_copies(uint32_t page, uint32_t n, page_state opened) {
  const int h = pages_.home(page);
  bool told = false;
  for (uint32_t p = page; p < page + n; ++p) {
    if (copied_[p] != 0 || !needs_notices(pages_.advice(p))) continue;
    tracker_.add_copy(p, h);
    copied_[p] = 1;
    told = true;
  }
  // The home sees the copy (and tracks its writes from its next release on), or this copy sees the home's
  // writes: a full fence between telling and copying (the home fences between writing and looking).
  if (told) std::atomic_thread_fence(std::memory_order_seq_cst);
  for (uint32_t p = page; p < page + n; ++p) {
    if (dropped_[p] == 0) continue;
    dropped_[p] = 0;  // dropped at an acquire, and used again: refreshed at the next acquires (refresh_far)
    streak_[p] = static_cast<uint8_t>(std::min(2 * streak_[p] + 1, 31));
    refreshes_[p] = streak_[p];
  }
  populate_frames(page, n);
  const size_t bytes = static_cast<size_t>(n) * pages_.page_size();
  // A fault's fetch is most often the page's first here (stale copies of a home on this host are refreshed
  // in place at acquires, not fetched again): read_first, which uses neither side's mapping.
  mem_.read_first(h, pages_.frame_offset(page), pages_.frame(page), bytes);
  stats_.fetches.fetch_add(n, std::memory_order_relaxed);
  if (opened != page_state::invalid) pages_.protect(page, n, opened);  // invalid: the caller maps them
}

void release_protocol::populate_frames(uint32_t page, uint32_t n) {
  // Frames are backed on first use. Taking that page fault for each page costs as much as the
  // rest of a read fault here; backing a group of pages with one call costs a fraction of it, for at most
  // a group's worth of memory not used.
  for (uint32_t g = page / populate_group; g <= (page + n - 1) / populate_group; ++g) {
    if (frames_ready_[g] != 0) continue;
    frames_ready_[g] = 1;
    const uint32_t first = g * populate_group;
    const uint32_t count = std::min(populate_group, pages_.pages() - first);
    (void)madvise(pages_.frame(first), static_cast<size_t>(count) * pages_.page_size(),
                  MADV_POPULATE_WRITE);  // a failure only leaves the pages to be backed on first touch
  }
}

void release_protocol::make_twin(uint32_t page) {
  // Through the view where it is readable: the same memory, and used just now (the frame's mapping may
  // never have been, after read_first).
  const char* now = pages_.state(page) == page_state::invalid ? pages_.frame(page) : pages_.view(page);
  std::memcpy(pages_.take_twin(page), now, pages_.page_size());
}

size_t release_protocol::write_diff(uint32_t page) {
  // Each changed run goes into the twin first and to the home from there: the twin holds exactly what was
  // sent, so a store racing with the diff (another thread's) differs from it and goes at the next release.
  const char* now = pages_.frame(page);
  char* was = pages_.twin(page);
  runs_.clear();
  const size_t bytes = for_each_changed_run(now, was, pages_.page_size(), [&](size_t at, size_t n) {
    std::memcpy(was + at, now + at, n);
    runs_.emplace_back(static_cast<uint32_t>(at), static_cast<uint32_t>(n));
  });
  if (!runs_.empty()) mem_.write_runs(pages_.home(page), pages_.frame_offset(page), was, runs_);
  return bytes;
}

bool release_protocol::send_diff(uint32_t page, std::vector<uint32_t>& notices) {
  const size_t bytes = write_diff(page);
  if (bytes == 0) return false;
  idle_[page] = 0;
  stats_.diffs.fetch_add(1, std::memory_order_relaxed);
  stats_.diff_bytes.fetch_add(bytes, std::memory_order_relaxed);
  notices.push_back(page);
  return true;
}

bool release_protocol::twin_matches(uint32_t page) {
  // A home page's twin: updated to the frame as it is compared (the same race argument as write_diff).
  const char* now = pages_.frame(page);
  char* was = pages_.twin(page);
  auto update = [&](size_t at, size_t n) { std::memcpy(was + at, now + at, n); };
  return for_each_changed_run(now, was, pages_.page_size(), update) == 0;
}

bool release_protocol::stays_open(uint32_t page) {
  // Pages written every other interval (two grids used in turn) stay open too: a page closes only after
  // `close_after` releases in a row found it unchanged.
  constexpr uint8_t close_after = 3;
  if (++idle_[page] < close_after) return true;
  idle_[page] = 0;
  return false;
}

void release_protocol::release_copies(std::vector<uint32_t>& notices) {
  if (dirty_.empty()) return;
  sort_unique(dirty_);
  // A copy whose diff is not empty stays writable (its twin now equals what the home has); one that was
  // not written in this interval closes, and is compared once more after closing: a store that raced with
  // the first comparison is in the frame by then.
  std::vector<uint32_t> open, quiet;
  for (uint32_t page : dirty_) (send_diff(page, notices) || stays_open(page) ? open : quiet).push_back(page);
  if (!quiet.empty()) {
    pages_.protect_runs(quiet, page_state::shared);
    for (uint32_t page : quiet) {
      send_diff(page, notices);
      pages_.drop_twin(page);  // closed: its next write fault takes a twin again
    }
  }
  mem_.flush();  // every diff is in its home's frame before a notice names it
  dirty_.swap(open);
}

void release_protocol::release_home_pages(std::vector<uint32_t>& notices) {
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
    pages_.protect_runs(quiet, page_state::shared);
    for (uint32_t page : quiet) {
      if (!twin_matches(page)) notices.push_back(page);
      pages_.drop_twin(page);
    }
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

void release_protocol::track_new_copies() {
  // The fence pairs with the one a reader makes between telling the home and copying the page: either the
  // page is found here, or the reader's copy already holds every write made before this release.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::vector<uint32_t> fresh;
  tracker_.take(limit_, fresh);
  for (uint32_t page : fresh) {
    if (page >= pages_.pages() || pages_.home(page) != my_pe_ || tracked_[page] != 0) continue;
    if (!needs_notices(pages_.advice(page))) continue;
    tracked_[page] = 1;
    // Written or not since the copy was taken, nobody knows: noticed once, conservatively.
    if (pages_.state(page) == page_state::modified) home_dirty_.push_back(page);
  }
}

void release_protocol::clean_home_frames() {
  // Where the NIC does not snoop the CPU caches, a peer's read of a home frame through the network sees
  // memory, not this CPU's caches. A home writes its untracked pages without faulting, so every frame it can
  // write is cleaned, in runs, before its writes are published (maintenance only: never on x86 by default).
  if (!cache_maintenance_enabled()) return;
  const uint32_t n = pages_.pages();
  auto writable = [&](uint32_t p) { return pages_.home(p) == my_pe_ && pages_.state(p) == page_state::modified; };
  for (uint32_t page = 0; page < n;) {
    if (!writable(page)) {
      ++page;
      continue;
    }
    uint32_t end = page + 1;
    while (end < n && writable(end)) ++end;
    mem_.written_locally(pages_.frame(page), static_cast<size_t>(end - page) * pages_.page_size());
    page = end;
  }
}

void release_protocol::release() {
  // Writes made through mapped homes' memory are ordered before whatever synchronization follows.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::vector<uint32_t> notices;
  notices.swap(flushed_);
  release_copies(notices);
  track_new_copies();
  release_home_pages(notices);
  clean_home_frames();
  if (notices.empty()) return;
  rings_.publish(notices);
  stats_.notices.fetch_add(notices.size(), std::memory_order_relaxed);
}

void release_protocol::drop_stale(std::vector<uint32_t>& stale) {
  sort_unique(stale);
  // A home's frame is the page itself, so is a page mapped from its home, and read-only and private copies
  // never go stale.
  std::erase_if(stale, [&](uint32_t page) {
    return page >= pages_.pages() || pages_.home(page) < 0 || pages_.home(page) == my_pe_ ||
           pages_.state(page) == page_state::invalid || !needs_notices(pages_.advice(page)) || mapped_from_home(page);
  });
  if (stale.empty()) return;
  stats_.invalidations.fetch_add(stale.size(), std::memory_order_relaxed);
  // A writable copy holds writes of this PE: they go to the home first (their notice goes out with the
  // next release), with the page closed so that none is missed.
  std::vector<uint32_t> written;
  for (uint32_t page : stale)
    if (pages_.state(page) == page_state::modified) written.push_back(page);
  if (!written.empty()) {
    pages_.protect_runs(written, page_state::shared);
    for (uint32_t page : written) send_diff(page, flushed_);
    mem_.flush();
  }
  // Copies whose home is on this host are refreshed in place: copying the home's frame costs less than
  // the fault that would fetch it. Those of far homes are refreshed too while they earn it (refresh_far),
  // with every read in flight at once; the others are dropped and fetched when next touched. A refreshed
  // copy that was writable opens again with a new twin.
  std::vector<uint32_t> dropped, reopened;
  uint64_t refreshed = 0;
  for (size_t i = 0; i < stale.size();) {
    const uint32_t page = stale[i];
    const int h = pages_.home(page);
    const bool near = mem_.near(h);
    if (!near && !refresh_far(page)) {
      dropped.push_back(page);
      ++i;
      continue;
    }
    // A run of consecutive stale pages of one home goes as one read.
    size_t j = i + 1;
    while (j < stale.size() && stale[j] == stale[j - 1] + 1 && pages_.home(stale[j]) == h && (near || refresh_far(stale[j])))
      ++j;
    const auto n = static_cast<uint32_t>(j - i);
    const size_t bytes = static_cast<size_t>(n) * pages_.page_size();
    if (near) mem_.read(h, pages_.frame_offset(page), pages_.frame(page), bytes);
    else mem_.read_nbi(h, pages_.frame_offset(page), pages_.frame(page), bytes);
    refreshed += n;
    for (; i < j; ++i)
      if (std::binary_search(written.begin(), written.end(), stale[i])) reopened.push_back(stale[i]);
  }
  mem_.flush();  // the far refreshes have landed
  for (uint32_t page : reopened) make_twin(page);
  stats_.fetches.fetch_add(refreshed, std::memory_order_relaxed);
  pages_.protect_runs(dropped, page_state::invalid);
  pages_.protect_runs(reopened, page_state::modified);
  std::erase_if(dirty_, [&](uint32_t page) { return std::binary_search(dropped.begin(), dropped.end(), page); });
  for (uint32_t page : dropped) pages_.drop_twin(page);
}

bool release_protocol::refresh_far(uint32_t page) {
  // A stale copy of a far home costs a round trip either way, and a fault besides when it is dropped and
  // used again. A page fetched again after a drop is refreshed at its next 1, 3, 7, ... 31 acquires (the
  // streak doubles with each drop it comes back from); then it is dropped once more, to see if it is
  // still used.
  if (refreshes_[page] == 0) {
    dropped_[page] = 1;
    return false;
  }
  --refreshes_[page];
  return true;
}

void release_protocol::acquire() {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // and reads through them after it
  std::vector<uint32_t> stale;
  if (!rings_.collect(stale)) {
    RDSM_LOG_DEBUG("dsm", "a write-notice ring overran: dropping every cached copy");
    stale.clear();
    for (uint32_t page = 0; page < pages_.pages(); ++page)
      if (pages_.state(page) != page_state::invalid) stale.push_back(page);
  }
  drop_stale(stale);
}

void release_protocol::forget(uint32_t first, uint32_t n) {
  if (n == 0) return;
  limit_ = std::max(limit_, first + n);  // the copy tracker's bits are looked at below the highest page used
  for (uint32_t page = first; page < first + n; ++page) {
    copied_[page] = tracked_[page] = idle_[page] = dropped_[page] = streak_[page] = refreshes_[page] = 0;
    pages_.drop_twin(page);
  }
  // A freed block's frames were given back to the system: back them again at their next use.
  for (uint32_t g = first / populate_group; g <= (first + n - 1) / populate_group; ++g) frames_ready_[g] = 0;
  auto in_range = [&](uint32_t page) { return page - first < n; };
  std::erase_if(flushed_, in_range);
  std::erase_if(dirty_, in_range);
  std::erase_if(home_dirty_, in_range);
  std::erase_if(home_hot_, in_range);
}

}  // namespace rdsm::detail::dsm
