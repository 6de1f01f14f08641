// The symmetric heap allocator: deterministic, so equal call sequences give equal offsets on every PE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <shared_mutex>
#include <utility>

namespace rdsm::detail {

/// Allocates ranges of [base, base+length). Not thread safe (callers serialize: allocation is collective).
/// Blocks are aligned by address; PEs whose copies of a heap have bases equal modulo `max_alignment` get equal
/// offsets from equal call sequences.
class symmetric_heap {
 public:
  /// The alignment every heap's base has (2 MiB).
  static constexpr size_t base_alignment = size_t{2} << 20;
  /// Copies run slowest between buffers a few bytes apart modulo this (4K aliasing of loads on earlier stores).
  static constexpr size_t aliasing_period = 4096;
  /// Blocks of at least this many bytes, allocated with the default alignment, are coloured (below).
  static constexpr size_t coloured_min = 4096;
  /// `max_alignment` (a power of two): the largest alignment allocate() honours, the modulus the callers keep
  /// the bases of every PE's copy equal in. `colour` (a multiple of 64 below aliasing_period; 0: none): the
  /// offset modulo aliasing_period of blocks of coloured_min bytes or more allocated with alignment 0, where
  /// a free range has room for one there leaving at most `colour` bytes or an eighth of its size (the larger)
  /// free before it (elsewhere they go where the default alignment puts them). Halfway through the period,
  /// such a block is far from buffers at page offset 0 (aligned_alloc, mmap) and 16 (glibc's malloc of large
  /// blocks), so copies between them do not alias. Blocks of a multiple of the period then follow each other
  /// with no gap. With a colour the heap spans span_for(length, colour) bytes from `base` (span()), one period
  /// more than the `length` blocks may take (capacity()): the first coloured block's gap costs no block.
  symmetric_heap(void* base, size_t length, size_t max_alignment = base_alignment, size_t colour = 0);
  /// The bytes from its base a heap of `length` with `colour` lies in: the memory its caller provides.
  /// The blocks may take `length` rounded up to a whole granule: every size up to `length` fits.
  static constexpr size_t span_for(size_t length, size_t colour) {
    return (length + granule - 1) / granule * granule + (colour != 0 ? aliasing_period : 0);
  }
  /// Returns nullptr when no free range of `bytes` aligned to `alignment` (a power of two, at most
  /// max_alignment(); 0: the default, a cache line) exists.
  void* allocate(size_t bytes, size_t alignment);
  size_t max_alignment() const { return max_alignment_; }
  /// Releases a block returned by allocate; returns false if `p` is not the start of a live block.
  bool release(void* p);
  /// Size of the live block starting at `p`, or 0.
  size_t block_size(const void* p) const;
  /// The live block that holds `p`: its address and size (size 0: none). Any thread may ask while another
  /// allocates (SHMEM_DEBUG's check of every RMA's target).
  std::pair<uintptr_t, size_t> block_holding(const void* p) const;
  /// Tries to resize in place (shrink, or grow into a free neighbour). Returns false if it cannot.
  bool resize_in_place(void* p, size_t bytes);
  /// Bytes more that blocks may take.
  size_t bytes_free() const { return free_bytes_; }
  /// The largest block that could be allocated now (with the default alignment, ignoring the colour).
  size_t largest_free() const;
  /// Bytes blocks may take in all.
  size_t capacity() const { return capacity_; }
  /// Bytes from the base in which blocks lie: capacity(), plus aliasing_period with a colour.
  size_t span() const { return length_; }
  /// Where the heap starts: a block's offset from it is the same on every PE that allocated alike.
  uintptr_t base() const { return base_; }

 private:
  static constexpr size_t granule = 64;  // every block is a multiple of a cache line
  /// First fit of `bytes` at an address equal to `offset` modulo `alignment`, leaving at most `max_gap` bytes
  /// of its free range before it.
  void* place(size_t bytes, size_t alignment, size_t offset, size_t max_gap);
  uintptr_t base_;
  size_t capacity_;
  size_t length_;
  size_t max_alignment_;
  size_t colour_;
  size_t free_bytes_;
  std::map<uintptr_t, size_t> free_;  // offset -> length, coalesced
  std::map<uintptr_t, size_t> used_;  // offset -> length
  mutable std::shared_mutex blocks_mutex_;  // changes of used_ against block_holding's look
};

}  // namespace rdsm::detail
