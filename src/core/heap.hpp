// The symmetric heap allocator: deterministic, so equal call sequences give equal offsets on every PE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace rdsm::detail {

/// Allocates ranges of [base, base+length). Not thread safe (callers serialize: allocation is collective).
/// Blocks are aligned by address; PEs whose copies of a heap have bases equal modulo `max_alignment` get equal
/// offsets from equal call sequences.
class symmetric_heap {
 public:
  /// The alignment every heap's base has (2 MiB).
  static constexpr size_t base_alignment = size_t{2} << 20;
  /// `max_alignment` (a power of two): the largest alignment allocate() honours, the modulus the callers keep
  /// the bases of every PE's copy equal in.
  symmetric_heap(void* base, size_t length, size_t max_alignment = base_alignment);
  /// Returns nullptr when no free range of `bytes` aligned to `alignment` (a power of two, at most
  /// max_alignment()) exists.
  void* allocate(size_t bytes, size_t alignment);
  size_t max_alignment() const { return max_alignment_; }
  /// Releases a block returned by allocate; returns false if `p` is not the start of a live block.
  bool release(void* p);
  /// Size of the live block starting at `p`, or 0.
  size_t block_size(const void* p) const;
  /// Tries to resize in place (shrink, or grow into a free neighbour). Returns false if it cannot.
  bool resize_in_place(void* p, size_t bytes);
  size_t bytes_free() const { return free_bytes_; }
  size_t largest_free() const;
  size_t capacity() const { return length_; }

 private:
  static constexpr size_t granule = 64;  // every block is a multiple of a cache line
  uintptr_t base_;
  size_t length_;
  size_t max_alignment_;
  size_t free_bytes_;
  std::map<uintptr_t, size_t> free_;  // offset -> length, coalesced
  std::map<uintptr_t, size_t> used_;  // offset -> length
};

}  // namespace rdsm::detail
