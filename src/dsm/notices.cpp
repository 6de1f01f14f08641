// Write-notice rings and the copy tracker (notices.hpp).
#include "dsm/notices.hpp"

#include <algorithm>

namespace rdsm::detail::dsm {

namespace {

uint64_t entry(uint64_t index, uint32_t page) { return (index + 1) << 32 | page; }

}  // namespace

notice_rings::notice_rings(remote_memory& mem, int my_pe, int n_pes, ring_layout layout, uint64_t* tail,
                           uint64_t* entries)
    : mem_(mem), my_pe_(my_pe), n_pes_(n_pes), layout_(layout), tail_(tail), entries_(entries),
      seen_(static_cast<size_t>(n_pes), 0), windows_(static_cast<size_t>(n_pes) * window) {}

void notice_rings::publish(const std::vector<uint32_t>& pages) {
  if (pages.empty()) return;
  const uint64_t t = __atomic_load_n(tail_, __ATOMIC_RELAXED);
  for (size_t i = 0; i < pages.size(); ++i)
    __atomic_store_n(&entries_[(t + i) % layout_.capacity], entry(t + i, pages[i]), __ATOMIC_RELAXED);
  __atomic_store_n(tail_, t + pages.size(), __ATOMIC_RELEASE);
  mem_.written_locally(entries_, layout_.capacity * sizeof(uint64_t));
  mem_.written_locally(tail_, sizeof *tail_);
}

void notice_rings::read_entries(int pe, uint64_t first, uint64_t n, uint64_t* dst, bool nbi) {
  for (uint64_t i = 0; i < n;) {  // at most two pieces: the range may wrap around
    const uint64_t slot = (first + i) % layout_.capacity;
    const uint64_t m = std::min(n - i, layout_.capacity - slot);
    const uint64_t offset = layout_.entries_offset + slot * sizeof(uint64_t);
    if (nbi) mem_.read_nbi(pe, offset, dst + i, m * sizeof(uint64_t));
    else mem_.read(pe, offset, dst + i, m * sizeof(uint64_t));
    i += m;
  }
}

notice_rings::taken notice_rings::take(int pe, const uint64_t* entries, uint64_t n, std::vector<uint32_t>& out) {
  // Aligned 8-byte entries are read whole (by load/store, and by the transports' DMA or copies): the tag
  // and the page of one entry belong together.
  uint64_t& seen = seen_[static_cast<size_t>(pe)];
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t e = entries[i];
    const auto ahead = static_cast<int32_t>(static_cast<uint32_t>(e >> 32) - static_cast<uint32_t>(seen + 1));
    if (ahead < 0) return taken::ended;  // the slot still holds an older notice
    if (ahead > 0) return taken::overrun;
    out.push_back(static_cast<uint32_t>(e));
    ++seen;
  }
  return taken::all;
}

bool notice_rings::overrun(int pe) {
  // Notices were overwritten before this PE read them: start again from the publisher's tail.
  seen_[static_cast<size_t>(pe)] = mem_.load(pe, layout_.tail_offset);
  return false;
}

bool notice_rings::collect(std::vector<uint32_t>& out) {
  bool complete = true;
  far_.clear();
  for (int pe = 0; pe < n_pes_; ++pe) {
    if (pe == my_pe_) continue;
    if (!mem_.near(pe)) {
      far_.push_back(pe);
      continue;
    }
    // On this host the tail costs a load, and says how many entries to copy.
    uint64_t& seen = seen_[static_cast<size_t>(pe)];
    const uint64_t tail = mem_.load(pe, layout_.tail_offset);
    if (tail - seen > layout_.capacity) {
      complete = overrun(pe);
      continue;
    }
    uint64_t* w = &windows_[static_cast<size_t>(pe) * window];
    while (seen != tail) {
      const uint64_t m = std::min(window, tail - seen);
      read_entries(pe, seen, m, w, false);
      if (take(pe, w, m, out) != taken::all) {  // the publisher wrapped onto entries being read
        complete = overrun(pe);
        break;
      }
    }
  }
  // Elsewhere, a window of entries from each far peer, all in flight at once; again for those whose
  // window was full.
  while (!far_.empty()) {
    const uint64_t n = std::min(window, layout_.capacity);
    for (int pe : far_)
      read_entries(pe, seen_[static_cast<size_t>(pe)], n, &windows_[static_cast<size_t>(pe) * window], true);
    mem_.flush();
    more_.clear();
    for (int pe : far_) {
      const taken t = take(pe, &windows_[static_cast<size_t>(pe) * window], n, out);
      if (t == taken::overrun) complete = overrun(pe);
      if (t == taken::all) more_.push_back(pe);
    }
    far_.swap(more_);
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
