// Page protection (page_table.hpp).
#include "dsm/page_table.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <unordered_set>

#include "common/log.hpp"
#include "rdsm/dsm.h"

namespace rdsm::detail::dsm {

namespace {
uint32_t max_map_count() {
  unsigned long n = 65530;  // the kernel's default
  if (FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
    if (std::fscanf(f, "%lu", &n) != 1) n = 65530;
    std::fclose(f);
  }
  return static_cast<uint32_t>(std::min<unsigned long>(n, UINT32_MAX));
}
}  // namespace

page_table::page_table(char* view, int view_fd, char* frames, char* twins, uint32_t n_pages, unsigned shift)
    : view_(view), view_fd_(view_fd), frames_(frames), twins_(twins), n_pages_(n_pages), shift_(shift),
      states_(std::make_unique<std::atomic<page_state>[]>(n_pages)), homes_(n_pages, no_pe),
      advice_(n_pages, RDSM_DSM_DEFAULT), shared_(n_pages, 0), copied_(n_pages, 0),
      max_runs_(max_map_count() / 4), share_budget_(max_runs_), churn_(n_pages, churn_none),
      isolate_budget_(max_runs_ / 2) {
  if (twins_ != nullptr) twin_slots_.assign(n_pages, 0);
}

char* page_table::take_twin(uint32_t page) {
  if (twin_slots_[page] != 0) return twin(page);
  uint32_t slot = 0;
  if (free_slot_ != 0) {
    slot = free_slot_ - 1;
    std::memcpy(&free_slot_, slot_at(slot), sizeof free_slot_);
  } else {
    // At most one slot per page: the reservation holds as many. Fresh slots are backed a group at a time
    // (one call instead of a page fault each); a failure only leaves them to be backed on first touch.
    slot = fresh_slots_++;
    if (slot % populate_group == 0)
      (void)madvise(slot_at(slot), static_cast<size_t>(std::min(populate_group, n_pages_ - slot)) << shift_,
                    MADV_POPULATE_WRITE);
  }
  twin_slots_[page] = slot + 1;
  return slot_at(slot);
}

void page_table::drop_twin(uint32_t page) {
  if (twin_slots_.empty() || twin_slots_[page] == 0) return;
  const uint32_t slot = twin_slots_[page] - 1;
  std::memcpy(slot_at(slot), &free_slot_, sizeof free_slot_);
  free_slot_ = slot + 1;
  twin_slots_[page] = 0;
}

void page_table::protect(uint32_t page, uint32_t n, page_state s) {
  if (n == 0) return;
  if (!gathering_) {
    apply(page, n, s);
    return;
  }
  if (gathered_.n != 0 && (gathered_.s != s || page != gathered_.page + gathered_.n)) flush();
  if (gathered_.n == 0) gathered_ = {page, 0, s};
  gathered_.n += n;
  set_states(page, n, s);
}

void page_table::gather(bool on) {
  if (!on) flush();
  gathering_ = on;
}

bool page_table::flush() {
  if (gathered_.n == 0) return false;
  const run r = gathered_;
  gathered_.n = 0;
  apply(r.page, r.n, r.s);
  return true;
}

bool page_table::gathered(uint32_t page, uint32_t n) const {
  if (gathered_.n == 0) return false;
  return n == 0 || (page < gathered_.page + gathered_.n && gathered_.page < page + n);
}

void page_table::apply(uint32_t page, uint32_t n, page_state s) {
  const int prot = s == page_state::modified ? PROT_READ | PROT_WRITE
                   : s == page_state::shared ? PROT_READ
                                              : PROT_NONE;
  const size_t bytes = static_cast<size_t>(n) << shift_;
  if (!keep_home_maps_ &&
      std::find(shared_.begin() + page, shared_.begin() + page + n, uint8_t{1}) != shared_.begin() + page + n)
    map_own(page, n);
  isolate_churning(page, n);
  // mprotect, also for pages never opened: their first access then takes a minor fault (2-4 us here), which
  // costs less than mapping them again with their entries filled (a read fault's page opened by mmap with
  // MAP_POPULATE: 9-36 us in a traced run, 11 us alone against 4-7 us for mprotect and the first access).
  if (mprotect(view(page), bytes, prot) != 0)
    fatal("dsm: protecting %u pages at %p failed: %s; raise vm.max_map_count or use a larger RDSM_DSM_PAGE_SIZE", n,
          static_cast<void*>(view(page)), std::strerror(errno));
  set_states(page, n, s);
}

void page_table::isolate_churning(uint32_t page, uint32_t n) {
  constexpr uint32_t longest = 16;  // longer runs change together (a whole row): rarely split
  if (n > longest || churn_[page] == churn_isolated) return;
  if (churn_[page] == churn_none || isolate_budget_ == 0 ||
      std::find(churn_.begin() + page, churn_.begin() + page + n, uint8_t{churn_isolated}) != churn_.begin() + page + n) {
    std::fill_n(churn_.begin() + page, n, uint8_t{churn_once});
    return;
  }
  // A failure (a kernel without the advice) only leaves the pages as they were.
  if (madvise(view(page), static_cast<size_t>(n) << shift_, MADV_NOHUGEPAGE) != 0) return;
  --isolate_budget_;
  std::fill_n(churn_.begin() + page, n, uint8_t{churn_isolated});
}

bool page_table::map_view(uint32_t page, uint32_t n, int prot, int file, bool fill) {
  std::fill_n(churn_.begin() + page, n, uint8_t{churn_none});  // a new mapping: the advice is gone
  void* at = mmap(view(page), static_cast<size_t>(n) << shift_, prot, MAP_SHARED | MAP_FIXED | (fill ? MAP_POPULATE : 0),
                  file, static_cast<off_t>(frame_offset(page)));
  return at != MAP_FAILED;
}

void page_table::set_states(uint32_t page, uint32_t n, page_state s) {
  for (uint32_t i = 0; i < n; ++i) states_[page + i].store(s, std::memory_order_release);
}

void page_table::protect_runs(const std::vector<uint32_t>& pages, page_state s) {
  for (size_t i = 0; i < pages.size();) {
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1) ++j;
    protect(pages[i], static_cast<uint32_t>(j - i), s);
    i = j;
  }
}

void page_table::forget_copies(uint32_t page, uint32_t n) { std::fill_n(copied_.begin() + page, n, uint8_t{0}); }

bool page_table::share(uint32_t page, uint32_t n, int file) { return map_from(page, n, file, page_state::shared); }

bool page_table::map_from(uint32_t page, uint32_t n, int file, page_state s) {
  if (view_fd_ < 0 || file < 0 || share_budget_ == 0) return false;
  if (gathered(page, n)) flush();
  // Opened pages get their entries in the same call; closed ones take them at their first opening.
  if (!map_view(page, n, s == page_state::shared ? PROT_READ : PROT_NONE, file, s != page_state::invalid)) {
    map_own(page, n);  // whatever the failed call left there
    return false;
  }
  mapped_from(page, n, s);
  return true;
}

void page_table::mapped_from(uint32_t page, uint32_t n, page_state s) {
  --share_budget_;
  std::fill_n(shared_.begin() + page, n, uint8_t{1});
  set_states(page, n, s);
}

void page_table::map_home(uint32_t page, uint32_t n, int file, page_state s, uint32_t fill, uint32_t n_fill) {
  flush();  // what it closes, and the pages it maps, take their protections in order
  while (share_budget_ == 0 && !home_runs_.empty()) {
    auto [first, count] = home_runs_.front();
    home_runs_.pop_front();
    uint32_t k = 0;  // the part of the run still mapped so: its pages since mapped otherwise are left alone
    while (k < count && shared_[first + k] != 0 && state(first + k) != page_state::invalid) ++k;
    if (k != 0) protect(first, k, page_state::invalid);
  }
  const int prot = s == page_state::modified ? PROT_READ | PROT_WRITE : PROT_READ;
  if (share_budget_ == 0 || !map_view(page, n, prot, file, false))
    fatal("dsm: mapping %u pages of their home at %p failed: %s; raise vm.max_map_count, use a larger "
          "RDSM_DSM_PAGE_SIZE or RDSM_DSM_SAME_HOST=copy",
          n, static_cast<void*>(view(page)), share_budget_ == 0 ? "no mapping left" : std::strerror(errno));
  mapped_from(page, n, s);
  if (home_runs_.size() >= 2 * static_cast<size_t>(max_runs_)) forget_closed_runs();
  home_runs_.emplace_back(page, n);
  // A failure only leaves the pages to take their entries at their first access.
  if (n_fill != 0)
    (void)madvise(view(fill), static_cast<size_t>(n_fill) << shift_,
                  s == page_state::modified ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
}

void page_table::forget_closed_runs() {
  // Runs closed by a protection since (free, advice) stay listed until here; so do older entries of a run
  // mapped again from the same page. Only the newest entry per first page is kept, if still mapped.
  std::unordered_set<uint32_t> seen;
  std::deque<std::pair<uint32_t, uint32_t>> live;
  for (auto r = home_runs_.rbegin(); r != home_runs_.rend(); ++r)
    if (shared_[r->first] != 0 && seen.insert(r->first).second) live.push_front(*r);
  home_runs_.swap(live);
}

void page_table::map_own(uint32_t page, uint32_t n) {
  if (!map_view(page, n, PROT_NONE, view_fd_, false))
    fatal("dsm: mapping %u pages at %p again failed: %s; raise vm.max_map_count or use a larger RDSM_DSM_PAGE_SIZE",
          n, static_cast<void*>(view(page)), std::strerror(errno));
  // The budget gets back what the mappings from homes' files decrease by: the runs of shared pages around
  // the range, counted before and after (a run cut in two by it takes one more).
  const uint32_t lo = page > 0 ? page - 1 : 0, hi = std::min(n_pages_, page + n + 1);
  const uint32_t before = shared_runs(lo, hi);
  std::fill_n(shared_.begin() + page, n, uint8_t{0});
  share_budget_ = share_budget_ + before - shared_runs(lo, hi);
}

uint32_t page_table::shared_runs(uint32_t lo, uint32_t hi) const {
  uint32_t runs = 0;
  for (uint32_t p = lo; p < hi; ++p) runs += shared_[p] != 0 && (p == lo || shared_[p - 1] == 0) ? 1 : 0;
  return runs;
}

bool page_table::link_home(uint32_t page, uint32_t n, int file) { return map_from(page, n, file, page_state::invalid); }

void page_table::unlink_homes(uint32_t page, uint32_t n) {
  for (uint32_t i = 0; i < n;) {
    if (shared_[page + i] == 0) {
      ++i;
      continue;
    }
    uint32_t j = i + 1;
    while (j < n && shared_[page + j] != 0) ++j;
    map_own(page + i, j - i);
    i = j;
  }
}

uint32_t page_table::read_run(uint32_t page, uint32_t prefetch, bool near) const {
  constexpr uint32_t far_read_only = 32;
  const uint32_t most = advice_[page] == RDSM_DSM_READ_ONLY && !near ? std::max(prefetch, far_read_only) : prefetch;
  uint32_t n = 1;
  while (n < most && page + n < n_pages_ && homes_[page + n] == homes_[page] && advice_[page + n] == advice_[page] &&
         state(page + n) == page_state::invalid)
    ++n;
  return n;
}

}  // namespace rdsm::detail::dsm
