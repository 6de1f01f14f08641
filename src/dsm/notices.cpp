// Write-notice rings and the copy tracker (notices.hpp).
#include "dsm/notices.hpp"

#include <algorithm>

namespace rdsm::detail::dsm {

notice_rings::notice_rings(remote_memory& mem, int my_pe, int n_pes, ring_layout layout, uint64_t* tail,
                           uint32_t* entries)
    : mem_(mem), my_pe_(my_pe), n_pes_(n_pes), layout_(layout), tail_(tail), entries_(entries),
      seen_(static_cast<size_t>(n_pes), 0) {}

void notice_rings::publish(const std::vector<uint32_t>& pages) {
  if (pages.empty()) return;
  const uint64_t t = __atomic_load_n(tail_, __ATOMIC_RELAXED);
  for (size_t i = 0; i < pages.size(); ++i) __atomic_store_n(&entries_[(t + i) % layout_.capacity], pages[i], __ATOMIC_RELAXED);
  __atomic_store_n(tail_, t + pages.size(), __ATOMIC_RELEASE);
  mem_.written_locally(entries_, layout_.capacity * sizeof(uint32_t));
  mem_.written_locally(tail_, sizeof *tail_);
}

bool notice_rings::collect(std::vector<uint32_t>& out) {
  bool complete = true;
  for (int pe = 0; pe < n_pes_; ++pe) {
    if (pe == my_pe_) continue;
    uint64_t& seen = seen_[static_cast<size_t>(pe)];
    const uint64_t tail = mem_.load(pe, layout_.tail_offset);
    if (tail == seen) continue;
    const uint64_t n = tail - seen;
    if (n > layout_.capacity) {
      complete = false;
      seen = tail;
      continue;
    }
    const size_t at = out.size();
    out.resize(at + n);
    for (uint64_t i = 0; i < n;) {  // at most two pieces: the range may wrap around
      const uint64_t slot = (seen + i) % layout_.capacity;
      const uint64_t m = std::min(n - i, layout_.capacity - slot);
      mem_.read(pe, layout_.entries_offset + slot * sizeof(uint32_t), &out[at + i], m * sizeof(uint32_t));
      i += m;
    }
    // Entries read while the publisher wrapped around onto them are not trustworthy.
    if (mem_.load(pe, layout_.tail_offset) - seen > layout_.capacity) complete = false;
    seen = tail;
  }
  return complete;
}

copy_tracker::copy_tracker(remote_memory& mem, tracker_layout layout, uint64_t* count, uint64_t* bits,
                           uint32_t n_pages, bool far_peers)
    : mem_(mem), layout_(layout), count_(count), bits_(bits), words_((n_pages + 63) / 64), far_peers_(far_peers) {}

void copy_tracker::add_copy(uint32_t page, int home) {
  // The bit before the count: a home that sees the count also sees the bit.
  mem_.atomic_or(home, layout_.bits_offset + (page / 64) * sizeof(uint64_t), uint64_t{1} << (page % 64));
  if (mem_.near(home)) mem_.atomic_add(home, layout_.count_offset, 1);
}

void copy_tracker::take(uint32_t limit, std::vector<uint32_t>& out) {
  const uint64_t count = __atomic_load_n(count_, __ATOMIC_SEQ_CST);
  if (count == count_seen_ && !far_peers_) return;
  count_seen_ = count;
  const uint32_t words = std::min(words_, (limit + 63) / 64);
  for (uint32_t w = 0; w < words; ++w) {
    if (__atomic_load_n(&bits_[w], __ATOMIC_RELAXED) == 0) continue;
    uint64_t bits = __atomic_exchange_n(&bits_[w], 0, __ATOMIC_SEQ_CST);
    while (bits != 0) {
      out.push_back(w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits)));
      bits &= bits - 1;
    }
  }
}

}  // namespace rdsm::detail::dsm
