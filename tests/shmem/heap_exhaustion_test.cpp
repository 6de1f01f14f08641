// Heap exhaustion with SHMEM_SYMMETRIC_SIZE=8M: oversized requests return NULL on every PE, the heap stays
// usable, it can be filled exactly and, after freeing, coalesces back into one block.
#include <cstdint>
#include <vector>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

constexpr size_t kHeap = size_t{8} << 20;  // must match SHMEM_SYMMETRIC_SIZE in CMakeLists.txt
long g_null_count;                          // PE 0: number of PEs whose allocation returned NULL

// Every PE reports whether p is NULL to PE 0; returns how many PEs got NULL (on every PE).
long count_null(const void* p) {
  if (me() == 0) g_null_count = 0;
  shmem_barrier_all();
  if (p == nullptr) shmem_long_atomic_inc(&g_null_count, 0);
  shmem_barrier_all();
  long n = shmem_long_atomic_fetch(&g_null_count, 0);
  shmem_barrier_all();
  return n;
}

void expect_usable(void* p, size_t bytes) {
  std::vector<unsigned char> mine(bytes, static_cast<unsigned char>(0x40 + me()));
  shmem_barrier_all();
  shmem_putmem(p, mine.data(), bytes, right());
  shmem_barrier_all();
  int bad = 0;
  for (size_t i = 0; i < bytes; ++i) bad += static_cast<unsigned char*>(p)[i] != 0x40 + left();
  EXPECT_EQ(bad, 0);
  shmem_barrier_all();
}

}  // namespace

TEST(HeapExhaustion, OversizedMallocReturnsNullOnEveryPe) {
  void* p = shmem_malloc(kHeap + 1);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(count_null(p), npes());
  void* q = shmem_malloc(size_t{64} << 20);
  EXPECT_EQ(q, nullptr);
  EXPECT_EQ(count_null(q), npes());
  void* r = shmem_align(4096, kHeap * 2);
  EXPECT_EQ(r, nullptr);
  void* c = shmem_calloc(kHeap, 2);
  EXPECT_EQ(c, nullptr);
  void* h = shmem_malloc_with_hints(kHeap + 64, SHMEM_MALLOC_ATOMICS_REMOTE);
  EXPECT_EQ(h, nullptr);
  EXPECT_EQ(shmem_calloc(SIZE_MAX / 2, 4), nullptr) << "count * size overflows";
  EXPECT_EQ(shmem_malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(count_null(nullptr), npes());
}

TEST(HeapExhaustion, SmallMallocAfterFailureWorks) {
  EXPECT_EQ(shmem_malloc(kHeap * 4), nullptr);
  auto* p = static_cast<long*>(shmem_malloc(4096));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(count_null(p), 0);
  expect_usable(p, 4096);
  shmem_free(p);
}

TEST(HeapExhaustion, HeapFillsExactlyAndCoalescesAfterFree) {
  std::vector<void*> blocks;
  const size_t mib = size_t{1} << 20;
  for (int i = 0; i < 20; ++i) {
    void* p = shmem_malloc(mib);
    if (count_null(p) == npes()) break;  // same decision on every PE
    ASSERT_NE(p, nullptr);
    blocks.push_back(p);
  }
  EXPECT_EQ(blocks.size(), kHeap / mib) << "an 8 MiB heap holds exactly 8 blocks of 1 MiB";
  // Full: even one more byte fails; a failed realloc leaves the old block valid and intact.
  EXPECT_EQ(count_null(shmem_malloc(1)), npes());
  ASSERT_FALSE(blocks.empty());
  std::memset(blocks[0], 0x5A, mib);
  void* grown = shmem_realloc(blocks[0], 2 * mib);
  EXPECT_EQ(grown, nullptr);
  EXPECT_EQ(count_null(grown), npes());
  int changed = 0;
  for (size_t i = 0; i < mib; ++i) changed += static_cast<unsigned char*>(blocks[0])[i] != 0x5A;
  EXPECT_EQ(changed, 0) << "failed realloc must keep the old block";
  expect_usable(blocks.back(), mib);
  // Free all (out of order): the free ranges coalesce, so the whole heap is one block again.
  for (size_t k = 1; k < blocks.size(); k += 2) shmem_free(blocks[k]);
  for (size_t k = 0; k < blocks.size(); k += 2) shmem_free(blocks[k]);
  void* all = shmem_malloc(kHeap);
  EXPECT_NE(all, nullptr);
  EXPECT_EQ(count_null(all), 0);
  if (all != nullptr) expect_usable(all, kHeap);
  shmem_free(all);
}
