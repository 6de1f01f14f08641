// Symmetric heap: malloc/calloc/align/realloc/malloc_with_hints/free, symmetric offsets on every PE,
// calloc zeroing after reuse, alignment, realloc contents, and that allocations are usable by RMA.
#include <cstdint>
#include <vector>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

long g_offsets[64];  // PE 0: slot pe receives PE pe's offset of the allocation under test
char* g_anchor;      // first allocation of the program: offsets are measured from it

// Every PE sends (p - anchor) to PE 0, which checks they are all equal; returns true if they are.
void expect_symmetric(const void* p, const char* what) {
  const long off = static_cast<const char*>(p) - g_anchor;
  shmem_long_p(&g_offsets[me()], off, 0);
  shmem_barrier_all();
  if (me() == 0) {
    int differ = 0;
    for (int pe = 1; pe < npes(); ++pe) differ += g_offsets[pe] != g_offsets[0];
    EXPECT_EQ(differ, 0) << what << ": PEs returned different heap offsets";
  }
  shmem_barrier_all();
}

// Puts a pattern into the right neighbour's copy and checks the left neighbour's arrived intact.
void expect_usable(void* p, size_t bytes, const char* what) {
  std::vector<unsigned char> mine(bytes);
  for (size_t i = 0; i < bytes; ++i) mine[i] = static_cast<unsigned char>(me() * 31 + i);
  shmem_barrier_all();
  shmem_putmem(p, mine.data(), bytes, right());
  shmem_barrier_all();
  int bad = 0;
  for (size_t i = 0; i < bytes; ++i) bad += static_cast<unsigned char*>(p)[i] != static_cast<unsigned char>(left() * 31 + i);
  EXPECT_EQ(bad, 0) << what;
  shmem_barrier_all();
}

}  // namespace

TEST(Heap, MallocReturnsSymmetricUsableBlocks) {
  g_anchor = static_cast<char*>(shmem_malloc(64));
  ASSERT_NE(g_anchor, nullptr);
  expect_symmetric(g_anchor, "anchor");
  const size_t sizes[] = {1, 7, 64, 100, 4096, 65537, 1 << 20};
  std::vector<void*> blocks;
  for (size_t s : sizes) {
    void* p = shmem_malloc(s);
    ASSERT_NE(p, nullptr) << s;
    EXPECT_EQ(shmem_addr_accessible(p, right()), 1);
    expect_symmetric(p, "malloc");
    expect_usable(p, s, "malloc");
    for (void* q : blocks) {
      EXPECT_NE(p, q);
    }
    blocks.push_back(p);
  }
  // Blocks do not overlap: write each fully, then check none was clobbered.
  for (size_t k = 0; k < blocks.size(); ++k) std::memset(blocks[k], static_cast<int>(k + 1), sizes[k]);
  int clobbered = 0;
  for (size_t k = 0; k < blocks.size(); ++k)
    for (size_t i = 0; i < sizes[k]; ++i) clobbered += static_cast<unsigned char*>(blocks[k])[i] != k + 1;
  EXPECT_EQ(clobbered, 0);
  // Free in a different order than allocated; then allocate again (reusing the holes) symmetrically.
  for (size_t k = 0; k < blocks.size(); k += 2) shmem_free(blocks[k]);
  for (size_t k = 1; k < blocks.size(); k += 2) shmem_free(blocks[k]);
  for (size_t s : sizes) {
    void* p = shmem_malloc(s);
    ASSERT_NE(p, nullptr);
    expect_symmetric(p, "malloc after free");
    shmem_free(p);
  }
  shmem_free(nullptr);  // no effect, but still collective
}

TEST(Heap, LargeBlocksStartHalfwayThroughAPage) {
  // The heap's colour (docs/design/heap.md): blocks of 4 KiB or more from malloc, calloc and realloc start
  // 2048 bytes into a page, so that copies between them and page-aligned or malloc'd buffers do not alias;
  // shmem_align places as asked. Copies into and out of such a block from buffers at every page offset arrive
  // intact.
  auto page_offset = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 4096; };
  void* a = shmem_malloc(64 << 10);
  void* b = shmem_calloc(4096, 1);
  void* c = shmem_align(4096, 8192);
  ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
  EXPECT_EQ(page_offset(a), 2048u);
  EXPECT_EQ(page_offset(b), 2048u);
  EXPECT_EQ(page_offset(c), 0u);
  expect_symmetric(a, "coloured malloc");
  void* wall = shmem_malloc(4096);       // after c (the gaps before it are smaller): c cannot grow in place
  void* r = shmem_realloc(c, 1 << 20);  // moves, coloured
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r, c);
  EXPECT_EQ(page_offset(r), 2048u);
  expect_symmetric(r, "coloured realloc");
  auto* priv = static_cast<unsigned char*>(std::aligned_alloc(4096, (64 << 10) + 4096));
  ASSERT_NE(priv, nullptr);
  for (size_t off : {size_t{0}, size_t{16}, size_t{64}, size_t{2048}, size_t{2064}}) {
    for (size_t i = 0; i < (64 << 10); ++i) priv[off + i] = static_cast<unsigned char>(me() * 7 + i * 13 + off);
    shmem_barrier_all();
    shmem_putmem(a, priv + off, 64 << 10, right());
    shmem_barrier_all();
    std::memset(priv, 0, (64 << 10) + 4096);
    shmem_getmem(priv + off, a, 64 << 10, left());  // left's copy holds what left's left put: me - 2
    const int from = (me() - 2 + 2 * npes()) % npes();
    int bad = 0;
    for (size_t i = 0; i < (64 << 10); ++i) bad += priv[off + i] != static_cast<unsigned char>(from * 7 + i * 13 + off);
    EXPECT_EQ(bad, 0) << "page offset " << off;
    shmem_barrier_all();
  }
  std::free(priv);
  shmem_free(wall);
  shmem_free(r);
  shmem_free(b);
  shmem_free(a);
}

TEST(Heap, MallocOfZeroBytesReturnsNull) {
  EXPECT_EQ(shmem_malloc(0), nullptr);
  EXPECT_EQ(shmem_calloc(0, 8), nullptr);
  EXPECT_EQ(shmem_calloc(8, 0), nullptr);
  shmem_barrier_all();
}

TEST(Heap, CallocIsZeroedEvenWhenReusingFreedMemory) {
  for (size_t s : {size_t{64}, size_t{1000}, size_t{1} << 16}) {
    auto* dirty = static_cast<unsigned char*>(shmem_malloc(s));
    ASSERT_NE(dirty, nullptr);
    std::memset(dirty, 0xA5, s);
    shmem_free(dirty);
    auto* z = static_cast<unsigned char*>(shmem_calloc(s / 8, 8));
    ASSERT_NE(z, nullptr);
    EXPECT_EQ(z, dirty) << "first fit should reuse the freed block (the zeroing check below needs it)";
    expect_symmetric(z, "calloc");
    int nonzero = 0;
    for (size_t i = 0; i < s; ++i) nonzero += z[i] != 0;
    EXPECT_EQ(nonzero, 0) << "calloc of " << s << " bytes";
    expect_usable(z, s, "calloc");
    shmem_free(z);
  }
  // Remote view: the right neighbour's calloc'd block is zero too.
  auto* dirty = static_cast<long*>(shmem_malloc(256 * sizeof(long)));
  for (int i = 0; i < 256; ++i) dirty[i] = -1;
  shmem_free(dirty);
  auto* z = static_cast<long*>(shmem_calloc(256, sizeof(long)));
  ASSERT_NE(z, nullptr);
  long back[256];
  shmem_long_get(back, z, 256, right());
  int nonzero = 0;
  for (long v : back) nonzero += v != 0;
  EXPECT_EQ(nonzero, 0);
  shmem_free(z);
}

TEST(Heap, AlignHonoursAlignmentAndStaysSymmetric) {
  void* pad = shmem_malloc(8);  // disturb the alignment of the next free block
  for (size_t a : {size_t{8}, size_t{64}, size_t{128}, size_t{4096}, size_t{65536}, size_t{1} << 20}) {
    void* p = shmem_align(a, 100);
    ASSERT_NE(p, nullptr) << a;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % a, 0u) << "alignment " << a;
    expect_symmetric(p, "align");
    expect_usable(p, 100, "align");
    void* q = shmemalign(a, 24);  // deprecated name
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % a, 0u) << "shmemalign " << a;
    expect_symmetric(q, "shmemalign");
    shmem_free(q);
    shmem_free(p);
  }
  shmem_free(pad);
}

TEST(Heap, AlignBeyondTwoMibIsHonouredAndSymmetric) {
  // Any power of two the heap can hold (the default heap is 512 MiB), not only up to 2 MiB.
  void* pad = shmem_malloc(8);
  for (size_t a : {size_t{4} << 20, size_t{8} << 20, size_t{64} << 20, size_t{256} << 20}) {
    void* p = shmem_align(a, 100);
    ASSERT_NE(p, nullptr) << a;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % a, 0u) << "alignment " << a;
    expect_symmetric(p, "align beyond 2 MiB");
    expect_usable(p, 100, "align beyond 2 MiB");
    shmem_free(p);
  }
  shmem_free(pad);
}

TEST(Heap, AlignOfZeroNonPowerOfTwoOrBeyondTheHeapReturnsNull) {
  // NULL on every PE (PE 0 warns once) rather than the end of the job; the heap stays usable.
  EXPECT_EQ(shmem_align(0, 64), nullptr);
  EXPECT_EQ(shmem_align(48, 64), nullptr);
  EXPECT_EQ(shmem_align(3, 8), nullptr);
  EXPECT_EQ(shmemalign(24, 8), nullptr);
  EXPECT_EQ(shmem_align(size_t{1} << 40, 8), nullptr);  // more than the heap holds
  void* p = shmem_align(64, 64);
  ASSERT_NE(p, nullptr);
  expect_symmetric(p, "align after refusals");
  shmem_free(p);
}

TEST(Heap, ReallocKeepsContentsWhenGrowingAndShrinking) {
  const size_t n0 = 100;
  auto* a = static_cast<int*>(shmem_malloc(n0 * sizeof(int)));
  ASSERT_NE(a, nullptr);
  for (size_t i = 0; i < n0; ++i) a[i] = me() * 1000 + static_cast<int>(i);
  auto count_bad = [&](const int* p, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; ++i) bad += p[i] != me() * 1000 + static_cast<int>(i);
    return bad;
  };
  // Grow in place (nothing after the block yet) and across a blocker (must move).
  a = static_cast<int*>(shmem_realloc(a, 400 * sizeof(int)));
  ASSERT_NE(a, nullptr);
  expect_symmetric(a, "realloc grow");
  EXPECT_EQ(count_bad(a, n0), 0) << "grow";
  void* blocker = shmem_malloc(64);
  ASSERT_NE(blocker, nullptr);
  int* before_move = a;
  a = static_cast<int*>(shmem_realloc(a, 100000 * sizeof(int)));
  ASSERT_NE(a, nullptr);
  if (static_cast<char*>(blocker) == reinterpret_cast<char*>(before_move) + 400 * sizeof(int)) {
    EXPECT_NE(a, before_move) << "a blocker follows the block: growing must move it";
  }
  expect_symmetric(a, "realloc grow (moved)");
  EXPECT_EQ(count_bad(a, n0), 0) << "grow (moved)";
  // The new tail is usable remotely.
  a[99999] = -1;
  shmem_barrier_all();
  shmem_int_p(&a[99999], 4242 + me(), right());
  shmem_barrier_all();
  EXPECT_EQ(a[99999], 4242 + left());
  // Shrink keeps the prefix.
  a = static_cast<int*>(shmem_realloc(a, 50 * sizeof(int)));
  ASSERT_NE(a, nullptr);
  expect_symmetric(a, "realloc shrink");
  EXPECT_EQ(count_bad(a, 50), 0) << "shrink";
  // The deprecated name too.
  a = static_cast<int*>(shrealloc(a, 60 * sizeof(int)));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(count_bad(a, 50), 0) << "shrealloc";
  expect_usable(a, 60 * sizeof(int), "after realloc");
  shmem_free(blocker);
  // realloc(NULL) allocates, realloc(p, 0) frees and returns NULL.
  void* r = shmem_realloc(nullptr, 128);
  ASSERT_NE(r, nullptr);
  expect_symmetric(r, "realloc(NULL)");
  EXPECT_EQ(shmem_realloc(r, 0), nullptr);
  shmem_free(a);
}

TEST(Heap, MallocWithHintsAndDeprecatedShmallocAreUsable) {
  const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                        SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
  for (long h : hints) {
    auto* p = static_cast<long*>(shmem_malloc_with_hints(8 * sizeof(long), h));
    ASSERT_NE(p, nullptr) << h;
    expect_symmetric(p, "malloc_with_hints");
    p[0] = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(p, me() + 1, 0);
    shmem_barrier_all();
    if (me() == 0) {
      EXPECT_EQ(p[0], static_cast<long>(npes()) * (npes() + 1) / 2) << "hints " << h;
    }
    shmem_barrier_all();
    shmem_free(p);
  }
  void* s = shmalloc(333);
  ASSERT_NE(s, nullptr);
  expect_symmetric(s, "shmalloc");
  expect_usable(s, 333, "shmalloc");
  shfree(s);
}

TEST(Heap, ManySmallAllocationsAndFreesStaySymmetric) {
  std::vector<void*> live;
  for (int i = 0; i < reps(300, 100); ++i) {
    // A deterministic mix of sizes and frees: the allocator state is the same on every PE.
    size_t s = 1 + static_cast<size_t>((i * 7919) % 5000);
    void* p = (i % 3 == 0) ? shmem_calloc(1, s) : shmem_malloc(s);
    ASSERT_NE(p, nullptr);
    live.push_back(p);
    if (i % 4 == 3) {
      shmem_free(live[live.size() / 2]);
      live.erase(live.begin() + static_cast<long>(live.size() / 2));
    }
  }
  for (void* p : live) expect_symmetric(p, "mixed allocations");
  for (void* p : live) shmem_free(p);
}
