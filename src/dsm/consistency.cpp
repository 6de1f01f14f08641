// Synchronization: release (publish this PE's writes), acquire (drop copies others changed), barrier,
// and the write-notice ring through which releases reach acquires.
//
// The ring lives in PE 0's symmetric heap: a tail word, then `notice_ring` entries of two words (stamp =
// index + 1, publisher << 32 | page). A release reserves entries with one fetch-add, writes the values,
// then the stamps; an acquire reads from where it stopped up to the tail. An acquire that fell a whole
// ring behind drops every cached copy instead (correct, only slower).
#include <algorithm>
#include <cstring>

#include "common/log.hpp"
#include "core/progress.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/sync.hpp"
#include "dsm/dsm.hpp"

namespace rdsm::detail::dsm {
namespace {

constexpr const char* fn_release = "rdsm_dsm_release";
constexpr const char* fn_acquire = "rdsm_dsm_acquire";
constexpr int ring_pe = 0;
constexpr uint64_t header_words = 8;

}  // namespace

std::vector<uint8_t> space::make_diff(uint32_t page) const {
  // Byte-exact runs: a word holding another writer's bytes must not be overwritten with the twin's.
  std::vector<uint8_t> runs;
  const char* now = frame(page);
  const char* twin = twins_.at(page).get();
  for (size_t i = 0; i < page_size_;) {
    if (now[i] == twin[i]) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < page_size_ && now[j] != twin[j]) ++j;
    const auto off = static_cast<uint32_t>(i), len = static_cast<uint32_t>(j - i);
    const size_t at = runs.size();
    runs.resize(at + 8 + len);
    std::memcpy(runs.data() + at, &off, 4);
    std::memcpy(runs.data() + at + 4, &len, 4);
    std::memcpy(runs.data() + at + 8, now + i, len);
    i = j;
  }
  return runs;
}

void space::release() {
  if (!release_mode_) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  std::vector<uint32_t> notices;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint32_t page : notify_list_) {
      if (notify_[page] == 0) continue;
      notify_[page] = 0;
      notices.push_back(page);
    }
    notify_list_.clear();
    for (uint32_t page : ws_dirty_) {
      if (state(page) != page_state::modified) continue;
      if (home(page) == my_pe_) {
        protect(page, 1, page_state::shared);  // the next write faults and is noticed again
        notices.push_back(page);
        continue;
      }
      protect(page, 1, page_state::invalid);  // others' merged writes are at the home, not here
      std::vector<uint8_t> runs = make_diff(page);
      twins_.erase(page);
      if (runs.empty()) continue;
      diffs_in_flight_.fetch_add(1, std::memory_order_relaxed);
      stats_.diffs.fetch_add(1, std::memory_order_relaxed);
      stats_.diff_bytes.fetch_add(runs.size(), std::memory_order_relaxed);
      send(home(page), message{.kind = msg_kind::diff, .page = page}, runs.data(), runs.size());
      notices.push_back(page);
    }
    ws_dirty_.clear();
    for (uint32_t page : pc_dirty_) {
      if (state(page) != page_state::modified) continue;  // recalled meanwhile: the home has the data
      protect(page, 1, page_state::shared);
      write_back(page);
      send(home(page), message{.kind = msg_kind::write_back, .page = page});
    }
    pc_dirty_.clear();
  }
  backoff b;
  while (diffs_in_flight_.load(std::memory_order_acquire) != 0) b.pause();
  publish(notices);
}

void space::publish(const std::vector<uint32_t>& pages) {
  if (pages.empty()) return;
  const auto k = static_cast<uint64_t>(pages.size());
  const uint64_t first = detail::atomic(fn_release, amo_op::fetch_add, notice_log_, 8, k, 0, ring_pe, stream_);
  for (uint64_t j = 0; j < k; ++j) {
    const uint64_t value = static_cast<uint64_t>(my_pe_) << 32 | pages[j];
    uint64_t* entry = notice_log_ + header_words + 2 * ((first + j) % notice_ring);
    detail::put(fn_release, entry + 1, &value, 8, ring_pe, false, stream_);
  }
  std::atomic_thread_fence(std::memory_order_release);
  detail::fence(stream_);
  for (uint64_t j = 0; j < k; ++j) {
    const uint64_t stamp = first + j + 1;
    uint64_t* entry = notice_log_ + header_words + 2 * ((first + j) % notice_ring);
    detail::put(fn_release, entry, &stamp, 8, ring_pe, false, stream_);
  }
  detail::quiet(stream_);
  stats_.notices.fetch_add(k, std::memory_order_relaxed);
}

void space::apply_notices() {
  const uint64_t tail = detail::atomic(fn_acquire, amo_op::fetch, notice_log_, 8, 0, 0, ring_pe, stream_);
  if (tail == notices_read_) return;
  std::vector<uint32_t> stale;
  bool overflow = tail - notices_read_ > notice_ring;
  if (!overflow) {
    const uint64_t n = tail - notices_read_;
    std::vector<uint64_t> entries(2 * n);
    auto read = [&] {
      for (uint64_t i = 0; i < n;) {  // at most two pieces: the range may wrap around the ring
        const uint64_t slot = (notices_read_ + i) % notice_ring;
        const uint64_t m = std::min(n - i, notice_ring - slot);
        detail::get(fn_acquire, &entries[2 * i], notice_log_ + header_words + 2 * slot, 16 * m, ring_pe, false,
                    stream_);
        i += m;
      }
    };
    auto ready = [&] {
      for (uint64_t i = 0; i < n; ++i)
        if (entries[2 * i] != notices_read_ + i + 1) return false;
      return true;
    };
    backoff b;
    for (read(); !ready(); read()) b.pause();  // entries reserved but not yet written: their release is under way
    read();  // again, now that every stamp is set: values written before their stamps are all visible
    overflow = !ready() || detail::atomic(fn_acquire, amo_op::fetch, notice_log_, 8, 0, 0, ring_pe, stream_) -
                                   notices_read_ > notice_ring;
    if (!overflow)
      for (uint64_t i = 0; i < n; ++i)
        if (static_cast<int>(entries[2 * i + 1] >> 32) != my_pe_)
          stale.push_back(static_cast<uint32_t>(entries[2 * i + 1]));
  }
  notices_read_ = tail;

  std::lock_guard<std::mutex> lock(mu_);
  if (overflow) {
    RDSM_LOG_DEBUG("dsm", "write-notice ring overrun: dropping every cached copy");
    stale.clear();
    for (uint32_t page = 0; page < n_pages_; ++page)
      if (state(page) == page_state::shared) stale.push_back(page);
  }
  std::sort(stale.begin(), stale.end());
  stale.erase(std::unique(stale.begin(), stale.end()), stale.end());
  // A home's copy is the authoritative one, read-only and private copies never go stale; a PE's own
  // modified page is current (it was fetched at its write grant). Protection changes go in runs.
  auto droppable = [&](uint32_t page) {
    return page < n_pages_ && state(page) == page_state::shared && homes_[page] >= 0 && homes_[page] != my_pe_ &&
           advice_[page] != RDSM_DSM_READ_ONLY && advice_[page] != RDSM_DSM_PRIVATE;
  };
  for (size_t i = 0; i < stale.size();) {
    if (!droppable(stale[i])) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < stale.size() && stale[j] == stale[j - 1] + 1 && droppable(stale[j])) ++j;
    protect(stale[i], static_cast<uint32_t>(j - i), page_state::invalid);
    stats_.invalidations.fetch_add(j - i, std::memory_order_relaxed);
    i = j;
  }
}

void space::acquire() {
  if (!release_mode_) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  apply_notices();
}

void space::barrier() {
  release();
  barrier_all();
  acquire();
}

}  // namespace rdsm::detail::dsm
