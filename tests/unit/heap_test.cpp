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

TEST(SymmetricHeap, ColoursLargeBlocksOfTheDefaultAlignment) {
  // Colour 2048: blocks of a page or more with alignment 0 start halfway through a page, the same on every
  // "PE"; explicit alignments and small blocks are placed as without colour.
  alignas(4096) static char other[1 << 20];
  symmetric_heap a(arena, sizeof arena, 4096, 2048), b(other, sizeof other, 4096, 2048);
  auto page_offset = [](void* p) { return reinterpret_cast<uintptr_t>(p) % 4096; };
  void* small = a.allocate(100, 0);
  EXPECT_EQ(small, static_cast<void*>(arena));  // not coloured: first fit
  for (size_t bytes : {size_t{4096}, size_t{5000}, size_t{65536}, size_t{4096}}) {
    void* pa = a.allocate(bytes, 0);
    ASSERT_NE(pa, nullptr);
    EXPECT_EQ(page_offset(pa), 2048u) << bytes;
  }
  void* aligned = a.allocate(8192, 4096);
  EXPECT_EQ(page_offset(aligned), 0u);
  void* line = a.allocate(8192, 64);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(line) % 64, 0u);
  // The padding before a coloured block stays free for small blocks: the next small one goes right after the
  // first.
  void* small2 = a.allocate(100, 0);
  EXPECT_EQ(static_cast<char*>(small2), arena + 128);
  // The same sequence on the other heap gives the same offsets.
  EXPECT_EQ(b.allocate(100, 0), static_cast<void*>(other));
  for (size_t bytes : {size_t{4096}, size_t{5000}, size_t{65536}, size_t{4096}}) (void)b.allocate(bytes, 0);
  (void)b.allocate(8192, 4096);
  EXPECT_EQ(static_cast<char*>(b.allocate(8192, 64)) - other, static_cast<char*>(line) - arena);
}

TEST(SymmetricHeap, ColouredBlocksFillTheCapacityExactly) {
  // Eight pages of capacity (nine of span): eight coloured blocks of a page fit, the first 2048 bytes in, and
  // then not one byte more: the colour's gap costs no block.
  symmetric_heap h(arena, 8 * 4096, 4096, 2048);
  EXPECT_EQ(h.capacity(), 8u * 4096);
  EXPECT_EQ(h.span(), 9u * 4096);
  for (int i = 0; i < 8; ++i) {
    void* p = h.allocate(4096, 0);
    ASSERT_NE(p, nullptr) << i;
    EXPECT_EQ(p, static_cast<void*>(arena + 2048 + i * 4096));
  }
  EXPECT_EQ(h.bytes_free(), 0u);
  EXPECT_EQ(h.largest_free(), 0u);
  EXPECT_EQ(h.allocate(1, 0), nullptr);
  EXPECT_EQ(h.allocate(64, 64), nullptr);
}

TEST(SymmetricHeap, ColourGivesWayToALargeGap) {
  // A block of 4160 bytes ends 2112 bytes into a page; the next coloured place is 4032 bytes further, more
  // than the colour (2048) and an eighth of the next such block, which therefore follows at once, uncoloured.
  symmetric_heap h(arena, 64 * 4096, 4096, 2048);
  void* a = h.allocate(4160, 0);
  void* b = h.allocate(4160, 0);
  EXPECT_EQ(a, static_cast<void*>(arena + 2048));
  EXPECT_EQ(b, static_cast<void*>(arena + 2048 + 4160));
  // The gap before the first block is free for small blocks.
  EXPECT_EQ(h.allocate(2048, 0), static_cast<void*>(arena));
  ASSERT_TRUE(h.release(a));
  ASSERT_TRUE(h.release(b));
  // Without a colour the same block is page-aligned here.
  symmetric_heap plain(arena, sizeof arena);
  EXPECT_EQ(plain.allocate(65536, 0), static_cast<void*>(arena));
  EXPECT_EQ(plain.span(), plain.capacity());
}
