// Unit tests of the symmetric heap allocator: determinism, alignment, coalescing, exhaustion, resize.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/heap.hpp"

using rdsm::detail::symmetric_heap;

namespace {
alignas(4096) char arena[1 << 20];
}

TEST(SymmetricHeap, SameSequenceSameOffsets) {
  // Two allocators fed the same calls (as two PEs are) hand out the same offsets.
  alignas(4096) static char other[1 << 20];
  symmetric_heap a(arena, sizeof arena), b(other, sizeof other);
  std::mt19937 rng(7);
  std::vector<void*> la, lb;
  for (int i = 0; i < 2000; ++i) {
    if (!la.empty() && rng() % 3 == 0) {
      size_t k = rng() % la.size();
      ASSERT_TRUE(a.release(la[k]));
      ASSERT_TRUE(b.release(lb[k]));
      la.erase(la.begin() + static_cast<long>(k));
      lb.erase(lb.begin() + static_cast<long>(k));
    } else {
      size_t bytes = rng() % 5000 + 1;
      size_t align = size_t{1} << (rng() % 13);  // up to 4096, the arenas' alignment
      void* pa = a.allocate(bytes, align);
      void* pb = b.allocate(bytes, align);
      ASSERT_EQ(pa == nullptr, pb == nullptr);
      if (pa == nullptr) continue;
      EXPECT_EQ(static_cast<char*>(pa) - arena, static_cast<char*>(pb) - other);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(pa) % align, 0u);
      la.push_back(pa);
      lb.push_back(pb);
    }
  }
}

TEST(SymmetricHeap, AlignsAddressesOfBasesEqualModuloTheMaximum) {
  // Bases 64 bytes past a 4096 boundary on both "PEs", maximum 4096: blocks are aligned by address and sit at
  // equal offsets; a larger alignment is refused.
  alignas(4096) static char other[1 << 20];
  symmetric_heap a(arena + 64, sizeof arena - 64, 4096), b(other + 64, sizeof other - 64, 4096);
  EXPECT_EQ(a.max_alignment(), 4096u);
  for (size_t align : {size_t{128}, size_t{1024}, size_t{4096}}) {
    void* pa = a.allocate(100, align);
    void* pb = b.allocate(100, align);
    ASSERT_NE(pa, nullptr);
    ASSERT_NE(pb, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pa) % align, 0u) << align;
    EXPECT_EQ(static_cast<char*>(pa) - arena, static_cast<char*>(pb) - other) << align;
  }
  EXPECT_EQ(a.allocate(100, 8192), nullptr);
}

TEST(SymmetricHeap, FreeingEverythingCoalesces) {
  symmetric_heap h(arena, sizeof arena);
  std::vector<void*> blocks;
  while (void* p = h.allocate(1000, 0)) blocks.push_back(p);
  EXPECT_GT(blocks.size(), 900u);
  EXPECT_EQ(h.allocate(1000, 0), nullptr);  // exhausted
  for (size_t i = 0; i < blocks.size(); i += 2) ASSERT_TRUE(h.release(blocks[i]));
  for (size_t i = 1; i < blocks.size(); i += 2) ASSERT_TRUE(h.release(blocks[i]));
  EXPECT_EQ(h.bytes_free(), h.capacity());
  EXPECT_EQ(h.largest_free(), h.capacity());
  EXPECT_NE(h.allocate(sizeof arena, 0), nullptr);  // one block of the whole heap fits again
}

TEST(SymmetricHeap, RejectsUnknownPointers) {
  symmetric_heap h(arena, sizeof arena);
  void* p = h.allocate(100, 0);
  EXPECT_FALSE(h.release(static_cast<char*>(p) + 64));
  EXPECT_TRUE(h.release(p));
  EXPECT_FALSE(h.release(p));  // double free
}

TEST(SymmetricHeap, ResizeInPlace) {
  symmetric_heap h(arena, sizeof arena);
  void* p = h.allocate(1000, 0);
  EXPECT_TRUE(h.resize_in_place(p, 5000));  // grows into the free space after it
  EXPECT_GE(h.block_size(p), 5000u);
  void* q = h.allocate(100, 0);
  EXPECT_FALSE(h.resize_in_place(p, 100000));  // q is in the way
  EXPECT_TRUE(h.resize_in_place(p, 64));       // shrink returns the tail
  void* r = h.allocate(1000, 0);
  EXPECT_LT(r, q);  // the freed tail is reused first
}

TEST(SymmetricHeap, HugeRequestFails) {
  symmetric_heap h(arena, sizeof arena);
  EXPECT_EQ(h.allocate(SIZE_MAX - 10, 0), nullptr);
  EXPECT_EQ(h.allocate(sizeof arena + 1, 0), nullptr);
  EXPECT_NE(h.allocate(64, 0), nullptr);
}
