// First-fit allocator over offsets with coalescing; identical on every PE for identical call sequences.
#include "core/heap.hpp"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <mutex>

namespace rdsm::detail {
namespace {
size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
}  // namespace

symmetric_heap::symmetric_heap(void* base, size_t length, size_t max_alignment, size_t colour)
    : base_(reinterpret_cast<uintptr_t>(base)),
      capacity_(round_up(length, granule)),
      length_(span_for(length, colour)),
      max_alignment_(max_alignment),
      colour_(colour),
      free_bytes_(capacity_) {
  assert(colour == 0 || (colour % granule == 0 && colour < aliasing_period && aliasing_period <= max_alignment));
  if (length_ > 0) free_[0] = length_;
}

void* symmetric_heap::allocate(size_t bytes, size_t alignment) {
  std::unique_lock<std::shared_mutex> lock(blocks_mutex_);
  if (alignment == 0 && colour_ != 0 && bytes >= coloured_min)
    if (void* p = place(bytes, aliasing_period, colour_, std::max(bytes / 8, colour_))) return p;
  if (alignment < granule) alignment = granule;
  if (alignment > max_alignment_) return nullptr;
  return place(bytes, alignment, 0, SIZE_MAX);
}

void* symmetric_heap::place(size_t bytes, size_t alignment, size_t offset, size_t max_gap) {
  size_t need = round_up(bytes == 0 ? 1 : bytes, granule);
  if (need < bytes || need > free_bytes_) return nullptr;  // overflow, or more than capacity() leaves
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uintptr_t start = it->first;
    size_t len = it->second;
    // Align the address: the bases of all PEs' copies are equal modulo max_alignment_, so every PE picks the
    // same offset. (offset is below 4096, base_ a mapped address: base_ + start - offset does not wrap.)
    uintptr_t aligned = round_up(base_ + start - offset, alignment) + offset - base_;
    size_t pad = aligned - start;
    if (pad > len || len - pad < need || pad > max_gap) continue;
    free_.erase(it);
    if (pad > 0) free_[start] = pad;
    size_t rest = len - pad - need;
    if (rest > 0) free_[aligned + need] = rest;
    used_[aligned] = need;
    free_bytes_ -= need;
    return reinterpret_cast<void*>(base_ + aligned);
  }
  return nullptr;
}

bool symmetric_heap::release(void* p) {
  std::unique_lock<std::shared_mutex> lock(blocks_mutex_);
  uintptr_t off = reinterpret_cast<uintptr_t>(p) - base_;
  auto u = used_.find(off);
  if (u == used_.end()) return false;
  size_t len = u->second;
  used_.erase(u);
  free_bytes_ += len;
  auto next = free_.lower_bound(off);
  if (next != free_.end() && off + len == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      prev->second += len;
      return true;
    }
  }
  free_[off] = len;
  return true;
}

size_t symmetric_heap::block_size(const void* p) const {
  auto u = used_.find(reinterpret_cast<uintptr_t>(p) - base_);
  return u == used_.end() ? 0 : u->second;
}

bool symmetric_heap::resize_in_place(void* p, size_t bytes) {
  std::unique_lock<std::shared_mutex> lock(blocks_mutex_);
  uintptr_t off = reinterpret_cast<uintptr_t>(p) - base_;
  auto u = used_.find(off);
  if (u == used_.end()) return false;
  size_t need = round_up(bytes == 0 ? 1 : bytes, granule);
  size_t have = u->second;
  if (need == have) return true;
  if (need < have) {
    u->second = need;
    free_bytes_ += have - need;
    // Return the tail, merging with a following free range.
    uintptr_t tail = off + need;
    size_t tail_len = have - need;
    auto next = free_.find(off + have);
    if (next != free_.end()) {
      tail_len += next->second;
      free_.erase(next);
    }
    free_[tail] = tail_len;
    return true;
  }
  auto next = free_.find(off + have);
  if (next == free_.end() || have + next->second < need || need - have > free_bytes_) return false;
  size_t extra = need - have;
  size_t left = next->second - extra;
  free_.erase(next);
  if (left > 0) free_[off + need] = left;
  u->second = need;
  free_bytes_ -= extra;
  return true;
}

std::pair<uintptr_t, size_t> symmetric_heap::block_holding(const void* p) const {
  std::shared_lock<std::shared_mutex> lock(blocks_mutex_);
  const uintptr_t off = reinterpret_cast<uintptr_t>(p) - base_;
  auto it = used_.upper_bound(off);
  if (it == used_.begin()) return {0, 0};
  --it;
  if (off - it->first >= it->second) return {0, 0};
  return {base_ + it->first, it->second};
}

size_t symmetric_heap::largest_free() const {
  size_t m = 0;
  for (const auto& f : free_) m = f.second > m ? f.second : m;
  return std::min(m, free_bytes_);
}

}  // namespace rdsm::detail
