// Sized RMA (put/get/iput/iget 8..128 bits, nbi) and putmem/getmem(+nbi): zero sizes and 1-4 MiB transfers.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

constexpr size_t LEN = 64;  // elements per buffer

struct sized_ops {
  size_t bytes;  // element size
  void (*put)(void*, const void*, size_t, int);
  void (*get)(void*, const void*, size_t, int);
  void (*put_nbi)(void*, const void*, size_t, int);
  void (*get_nbi)(void*, const void*, size_t, int);
  void (*iput)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*iget)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
};

#define RDSM_SIZED_OPS(B) \
  sized_ops{B / 8, shmem_put##B, shmem_get##B, shmem_put##B##_nbi, shmem_get##B##_nbi, shmem_iput##B, shmem_iget##B},
const sized_ops k_sized[] = {RDSM_SHMEM_SIZES(RDSM_SIZED_OPS)};
#undef RDSM_SIZED_OPS

// Byte b of element i written by PE pe (never 0).
unsigned char byte_of(int pe, size_t i, size_t b, int salt) {
  return static_cast<unsigned char>(1 + (pe * 53 + i * 11 + b * 5 + salt * 17) % 250);
}

// Fills n elements of `bytes` each with PE pe's pattern.
void pattern(unsigned char* a, size_t n, size_t bytes, int pe, int salt) {
  for (size_t i = 0; i < n; ++i)
    for (size_t b = 0; b < bytes; ++b) a[i * bytes + b] = byte_of(pe, i, b, salt);
}

// Counts elements (of `bytes`) of a that differ from: element i == pattern element src_index(i) of pe,
// or all zero bytes when src_index(i) < 0.
template <class F>
int bad_elements(const unsigned char* a, size_t n, size_t bytes, int pe, int salt, F src_index) {
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    long j = src_index(i);
    bool ok = true;
    for (size_t b = 0; b < bytes; ++b)
      ok = ok && a[i * bytes + b] == (j < 0 ? 0 : byte_of(pe, static_cast<size_t>(j), b, salt));
    bad += !ok;
  }
  return bad;
}

unsigned char g_sized_bss[LEN * 16];               // bss target
unsigned char g_sized_data[LEN * 16] = {1, 2, 3};  // data target
unsigned char g_big_bss[1 << 20];                  // 1 MiB global for a large transfer

void check_sized(const sized_ops& op, unsigned char* dst, unsigned char* src) {
  const size_t B = op.bytes;
  const int r = right(), l = left();
  const size_t K = 40;
  std::vector<unsigned char> mine(LEN * B), local(LEN * B);
  pattern(mine.data(), LEN, B, me(), 0);
  pattern(src, LEN, B, me(), 1);

  std::memset(dst, 0, LEN * B);
  shmem_barrier_all();
  op.put(dst, mine.data(), K, r);
  shmem_barrier_all();
  EXPECT_EQ(bad_elements(dst, LEN, B, l, 0, [&](size_t i) { return i < K ? long(i) : -1L; }), 0) << "put";

  std::fill(local.begin(), local.end(), 0);
  op.get(local.data(), src, K, r);
  EXPECT_EQ(bad_elements(local.data(), LEN, B, r, 1, [&](size_t i) { return i < K ? long(i) : -1L; }), 0) << "get";

  shmem_barrier_all();
  std::memset(dst, 0, LEN * B);
  shmem_barrier_all();
  op.put_nbi(dst, mine.data(), K, r);
  shmem_quiet();
  shmem_barrier_all();
  EXPECT_EQ(bad_elements(dst, LEN, B, l, 0, [&](size_t i) { return i < K ? long(i) : -1L; }), 0) << "put_nbi";

  std::fill(local.begin(), local.end(), 0);
  op.get_nbi(local.data(), src, K, r);
  shmem_quiet();
  EXPECT_EQ(bad_elements(local.data(), LEN, B, r, 1, [&](size_t i) { return i < K ? long(i) : -1L; }), 0)
      << "get_nbi";

  // iput: dst[3i] = mine[2i]; iget: local[2i] = src[3i].
  const size_t n = 20;
  shmem_barrier_all();
  std::memset(dst, 0, LEN * B);
  shmem_barrier_all();
  op.iput(dst, mine.data(), 3, 2, n, r);
  shmem_barrier_all();
  EXPECT_EQ(bad_elements(dst, LEN, B, l, 0, [&](size_t i) { return i % 3 == 0 && i / 3 < n ? long(i / 3 * 2) : -1L; }),
            0)
      << "iput";
  std::fill(local.begin(), local.end(), 0);
  op.iget(local.data(), src, 2, 3, n, r);
  EXPECT_EQ(bad_elements(local.data(), LEN, B, r, 1,
                         [&](size_t i) { return i % 2 == 0 && i / 2 < n ? long(i / 2 * 3) : -1L; }),
            0)
      << "iget";

  // Zero elements change nothing.
  shmem_barrier_all();
  std::memset(dst, 0, LEN * B);
  shmem_barrier_all();
  op.put(dst, mine.data(), 0, r);
  op.put_nbi(dst, mine.data(), 0, r);
  op.iput(dst, mine.data(), 1, 1, 0, r);
  std::fill(local.begin(), local.end(), 0);
  op.get(local.data(), src, 0, r);
  op.get_nbi(local.data(), src, 0, r);
  op.iget(local.data(), src, 1, 1, 0, r);
  shmem_quiet();
  shmem_barrier_all();
  EXPECT_EQ(bad_elements(dst, LEN, B, l, 0, [](size_t) { return -1L; }), 0) << "zero-size puts wrote";
  EXPECT_EQ(bad_elements(local.data(), LEN, B, r, 1, [](size_t) { return -1L; }), 0) << "zero-size gets wrote";
  shmem_barrier_all();
}

}  // namespace

TEST(SizedRma, EverySizeOnHeap) {
  auto* dst = static_cast<unsigned char*>(shmem_malloc(LEN * 16));
  auto* src = static_cast<unsigned char*>(shmem_malloc(LEN * 16));
  ASSERT_NE(dst, nullptr);
  ASSERT_NE(src, nullptr);
  for (const sized_ops& op : k_sized) {
    SCOPED_TRACE(testing::Message() << "element bytes " << op.bytes);
    check_sized(op, dst, src);
  }
  shmem_free(src);
  shmem_free(dst);
}

TEST(SizedRma, EverySizeOnGlobals) {
  for (const sized_ops& op : k_sized) {
    SCOPED_TRACE(testing::Message() << "element bytes " << op.bytes << ", bss target");
    check_sized(op, g_sized_bss, g_sized_data);
  }
  for (const sized_ops& op : k_sized) {
    SCOPED_TRACE(testing::Message() << "element bytes " << op.bytes << ", data target");
    check_sized(op, g_sized_data, g_sized_bss);
  }
}

TEST(PutMem, PutmemGetmemAndNbiOnHeapAndGlobals) {
  auto* heap = static_cast<unsigned char*>(shmem_malloc(4096));
  ASSERT_NE(heap, nullptr);
  unsigned char* targets[] = {heap, g_sized_bss, g_sized_data};
  for (unsigned char* dst : targets) {
    SCOPED_TRACE(dst == heap ? "heap" : dst == g_sized_bss ? "bss" : "data");
    const size_t n = 777;  // odd size: no alignment assumptions
    unsigned char mine[1024];
    pattern(mine, n, 1, me(), 5);
    std::memset(dst, 0, 1024);
    shmem_barrier_all();
    shmem_putmem(dst + 3, mine, n, right());
    shmem_barrier_all();
    EXPECT_EQ(bad_elements(dst, 1024, 1, left(), 5, [&](size_t i) { return i >= 3 && i < 3 + n ? long(i - 3) : -1L; }),
              0)
        << "putmem";
    unsigned char back[1024] = {};
    shmem_getmem(back, dst + 3, n, right());
    EXPECT_EQ(bad_elements(back, 1024, 1, me(), 5, [&](size_t i) { return i < n ? long(i) : -1L; }), 0) << "getmem";

    shmem_barrier_all();
    std::memset(dst, 0, 1024);
    shmem_barrier_all();
    shmem_putmem_nbi(dst, mine, n, right());
    shmem_putmem_nbi(dst + n, mine, 5, right());
    shmem_quiet();
    shmem_barrier_all();
    EXPECT_EQ(bad_elements(dst, 1024, 1, left(), 5,
                           [&](size_t i) { return i < n ? long(i) : i < n + 5 ? long(i - n) : -1L; }),
              0)
        << "putmem_nbi";
    std::memset(back, 0, sizeof back);
    shmem_getmem_nbi(back, dst, n + 5, right());
    shmem_quiet();
    EXPECT_EQ(bad_elements(back, 1024, 1, me(), 5,
                           [&](size_t i) { return i < n ? long(i) : i < n + 5 ? long(i - n) : -1L; }),
              0)
        << "getmem_nbi";

    // Zero bytes: no change.
    shmem_barrier_all();
    std::memset(dst, 0, 1024);
    shmem_barrier_all();
    shmem_putmem(dst, mine, 0, right());
    shmem_putmem_nbi(dst, mine, 0, right());
    std::memset(back, 0, sizeof back);
    shmem_getmem(back, dst, 0, right());
    shmem_getmem_nbi(back, dst, 0, right());
    shmem_quiet();
    shmem_barrier_all();
    EXPECT_EQ(bad_elements(dst, 1024, 1, 0, 0, [](size_t) { return -1L; }), 0);
    EXPECT_EQ(bad_elements(back, 1024, 1, 0, 0, [](size_t) { return -1L; }), 0);
    shmem_barrier_all();
  }
  shmem_free(heap);
}

// A large transfer: 4 MiB on the heap (blocking and nbi), 1 MiB into a global bss array.
TEST(PutMem, LargeTransfersArriveIntact) {
  const size_t big = size_t{4} << 20;
  auto* heap = static_cast<uint32_t*>(shmem_malloc(big));
  ASSERT_NE(heap, nullptr);
  const size_t words = big / 4;
  std::vector<uint32_t> mine(words), back(words);
  for (size_t i = 0; i < words; ++i) mine[i] = static_cast<uint32_t>(me() << 28 | i);
  auto count_bad = [&](const uint32_t* a, size_t n, int pe) {
    int bad = 0;
    for (size_t i = 0; i < n; ++i) bad += a[i] != static_cast<uint32_t>(pe << 28 | i);
    return bad;
  };

  std::memset(heap, 0, big);
  shmem_barrier_all();
  shmem_putmem(heap, mine.data(), big, right());
  shmem_barrier_all();
  EXPECT_EQ(count_bad(heap, words, left()), 0) << "4 MiB putmem";
  shmem_getmem(back.data(), heap, big, right());
  EXPECT_EQ(count_bad(back.data(), words, me()), 0) << "4 MiB getmem";

  shmem_barrier_all();
  std::memset(heap, 0, big);
  shmem_barrier_all();
  shmem_uint32_put_nbi(heap, mine.data(), words, right());
  shmem_quiet();
  shmem_barrier_all();
  EXPECT_EQ(count_bad(heap, words, left()), 0) << "4 MiB put_nbi";
  std::fill(back.begin(), back.end(), 0);
  shmem_uint32_get_nbi(back.data(), heap, words, right());
  shmem_quiet();
  EXPECT_EQ(count_bad(back.data(), words, me()), 0) << "4 MiB get_nbi";

  // 1 MiB into a global variable.
  const size_t gw = sizeof g_big_bss / 4;
  std::memset(g_big_bss, 0, sizeof g_big_bss);
  shmem_barrier_all();
  shmem_put32(g_big_bss, mine.data(), gw, right());
  shmem_barrier_all();
  EXPECT_EQ(count_bad(reinterpret_cast<uint32_t*>(g_big_bss), gw, left()), 0) << "1 MiB put32 to a global";
  std::fill(back.begin(), back.end(), 0);
  shmem_get32(back.data(), g_big_bss, gw, right());
  EXPECT_EQ(count_bad(back.data(), gw, me()), 0) << "1 MiB get32 from a global";
  shmem_barrier_all();
  shmem_free(heap);
}

// A blocking put returns when the source may be reused: overwriting it right after must not change
// what arrives (checked for iput too, which must also be blocking).
TEST(PutMem, SourceReusableRightAfterBlockingPutAndIput) {
  static long g_dst[4096];
  const size_t n = 4096;
  std::vector<long> src(n);
  for (int rep = 0; rep < reps(10, 4); ++rep) {
    std::memset(g_dst, 0, sizeof g_dst);
    shmem_barrier_all();
    for (size_t i = 0; i < n; ++i) src[i] = rep * 1000000L + me() * 10000L + static_cast<long>(i);
    if (rep % 2 == 0) {
      shmem_long_put(g_dst, src.data(), n, right());
    } else {
      shmem_long_iput(g_dst, src.data(), 1, 1, n, right());
    }
    for (size_t i = 0; i < n; ++i) src[i] = -7;  // reuse the source at once
    shmem_barrier_all();
    int bad = 0;
    for (size_t i = 0; i < n; ++i) bad += g_dst[i] != rep * 1000000L + left() * 10000L + static_cast<long>(i);
    EXPECT_EQ(bad, 0) << (rep % 2 == 0 ? "put" : "iput") << " rep " << rep;
    shmem_barrier_all();
  }
}
