// Typed RMA (put, get, p, g, iput, iget, put_nbi, get_nbi) for every RMA type, on heap, data and bss targets.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../support/long_double.hpp"
#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

constexpr size_t K = 24;     // elements moved by contiguous operations
constexpr size_t LEN = 80;   // elements of every symmetric buffer (room for strided accesses)

template <class T>
struct rma_ops {
  void (*put)(T*, const T*, size_t, int);
  void (*get)(T*, const T*, size_t, int);
  void (*put_nbi)(T*, const T*, size_t, int);
  void (*get_nbi)(T*, const T*, size_t, int);
  void (*p)(T*, T, int);
  T (*g)(const T*, int);
  void (*iput)(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*iget)(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
};

template <class T>
void fill(T* a, size_t n, T v) {
  for (size_t i = 0; i < n; ++i) a[i] = v;
}

// Counts elements of a (length n) that differ from want(i).
template <class T, class F>
int mismatches(const T* a, size_t n, F want) {
  int bad = 0;
  for (size_t i = 0; i < n; ++i) bad += !(a[i] == want(i));
  return bad;
}

// Runs every RMA form with `dst` (receives puts) and `src` (read by gets) symmetric buffers of LEN elements.
template <class T>
void check_rma(const rma_ops<T>& op, T* dst, T* src) {
  const int r = right(), l = left();
  T local[LEN];
  T mine[LEN];
  for (size_t i = 0; i < LEN; ++i) mine[i] = enc<T>(me(), i);
  for (size_t i = 0; i < LEN; ++i) src[i] = enc<T>(me(), i, 1);

  // put: my values land in the right neighbour's dst; nothing beyond K is touched.
  fill(dst, LEN, T(0));
  shmem_barrier_all();
  op.put(dst, mine, K, r);
  shmem_barrier_all();
  EXPECT_EQ(mismatches(dst, LEN, [&](size_t i) { return i < K ? enc<T>(l, i) : T(0); }), 0) << "put";

  // get: read the right neighbour's src.
  fill(local, LEN, T(0));
  op.get(local, src, K, r);
  EXPECT_EQ(mismatches(local, LEN, [&](size_t i) { return i < K ? enc<T>(r, i, 1) : T(0); }), 0) << "get";

  // p: element by element, with a different salt so stale put data cannot pass.
  shmem_barrier_all();
  fill(dst, LEN, T(0));
  shmem_barrier_all();
  for (size_t i = 0; i < K; ++i) op.p(&dst[i], enc<T>(me(), i, 2), r);
  shmem_barrier_all();
  EXPECT_EQ(mismatches(dst, LEN, [&](size_t i) { return i < K ? enc<T>(l, i, 2) : T(0); }), 0) << "p";

  // g
  for (size_t i = 0; i < K; ++i) local[i] = op.g(&src[i], r);
  EXPECT_EQ(mismatches(local, K, [&](size_t i) { return enc<T>(r, i, 1); }), 0) << "g";

  // iput: target stride 2, source stride 3 -> dst[2i] = mine[3i]; odd elements untouched.
  shmem_barrier_all();
  fill(dst, LEN, T(0));
  shmem_barrier_all();
  const size_t n_str = 20;
  op.iput(dst, mine, 2, 3, n_str, r);
  shmem_barrier_all();
  EXPECT_EQ(mismatches(dst, LEN,
                       [&](size_t i) { return i % 2 == 0 && i / 2 < n_str ? enc<T>(l, (i / 2) * 3) : T(0); }),
            0)
      << "iput(2,3)";
  // iput: target stride 3, source stride 2.
  shmem_barrier_all();
  fill(dst, LEN, T(0));
  shmem_barrier_all();
  op.iput(dst, mine, 3, 2, n_str, r);
  shmem_barrier_all();
  EXPECT_EQ(mismatches(dst, LEN,
                       [&](size_t i) { return i % 3 == 0 && i / 3 < n_str ? enc<T>(l, (i / 3) * 2) : T(0); }),
            0)
      << "iput(3,2)";

  // iget: local[3i] = src_right[2i], then local[2i] = src_right[3i].
  fill(local, LEN, T(0));
  op.iget(local, src, 3, 2, n_str, r);
  EXPECT_EQ(mismatches(local, LEN,
                       [&](size_t i) { return i % 3 == 0 && i / 3 < n_str ? enc<T>(r, (i / 3) * 2, 1) : T(0); }),
            0)
      << "iget(3,2)";
  fill(local, LEN, T(0));
  op.iget(local, src, 2, 3, n_str, r);
  EXPECT_EQ(mismatches(local, LEN,
                       [&](size_t i) { return i % 2 == 0 && i / 2 < n_str ? enc<T>(r, (i / 2) * 3, 1) : T(0); }),
            0)
      << "iget(2,3)";

  // put_nbi + quiet: the data is at the target after quiet (checked after a barrier).
  shmem_barrier_all();
  fill(dst, LEN, T(0));
  shmem_barrier_all();
  T nbi_src[LEN];
  for (size_t i = 0; i < LEN; ++i) nbi_src[i] = enc<T>(me(), i, 3);
  op.put_nbi(dst, nbi_src, K, r);
  op.put_nbi(dst + K, nbi_src + K, K, r);
  shmem_quiet();
  shmem_barrier_all();
  EXPECT_EQ(mismatches(dst, LEN, [&](size_t i) { return i < 2 * K ? enc<T>(l, i, 3) : T(0); }), 0) << "put_nbi";

  // get_nbi + quiet: local holds the data after quiet.
  fill(local, LEN, T(0));
  op.get_nbi(local, src, K, r);
  op.get_nbi(local + K, src + K, K, r);
  shmem_quiet();
  EXPECT_EQ(mismatches(local, LEN, [&](size_t i) { return i < 2 * K ? enc<T>(r, i, 1) : T(0); }), 0) << "get_nbi";

  // Puts to myself and to every other PE (not only the neighbour): slot pe of dst on PE pe' gets my value.
  shmem_barrier_all();
  fill(dst, LEN, T(0));
  shmem_barrier_all();
  for (int pe = 0; pe < npes(); ++pe) op.p(&dst[me()], enc<T>(me(), pe, 4), pe);
  shmem_barrier_all();
  EXPECT_EQ(mismatches(dst, static_cast<size_t>(npes()), [&](size_t i) { return enc<T>(static_cast<int>(i), me(), 4); }),
            0)
      << "p to every PE";
  shmem_barrier_all();
}

template <class T>
void run_all_targets(const rma_ops<T>& op, T* bss, T* data) {
  T* heap_dst = static_cast<T*>(shmem_malloc(LEN * sizeof(T)));
  T* heap_src = static_cast<T*>(shmem_malloc(LEN * sizeof(T)));
  ASSERT_NE(heap_dst, nullptr);
  ASSERT_NE(heap_src, nullptr);
  {
    SCOPED_TRACE("heap");
    check_rma(op, heap_dst, heap_src);
  }
  {
    SCOPED_TRACE("global bss target, data source");
    check_rma(op, bss, data);
  }
  {
    SCOPED_TRACE("global data target, bss source");
    check_rma(op, data, bss);
  }
  shmem_free(heap_src);
  shmem_free(heap_dst);
}

}  // namespace

// One bss and one data (initialized) global array per type, and one test per type.
#define RDSM_TEST_RMA(T, N)                                                                              \
  T g_bss_##N[LEN];                                                                                       \
  T g_data_##N[LEN] = {static_cast<T>(9)};                                                               \
  TEST(TypedRma, AllFormsOnHeapAndGlobals_##N) {                                                         \
    if (std::is_same_v<T, long double> && !rdsm_test::long_double_alike())                               \
      GTEST_SKIP() << "long double differs between this job's architectures";                          \
    rma_ops<T> op{shmem_##N##_put, shmem_##N##_get,  shmem_##N##_put_nbi, shmem_##N##_get_nbi,           \
                  shmem_##N##_p,   shmem_##N##_g,    shmem_##N##_iput,    shmem_##N##_iget};              \
    run_all_targets(op, g_bss_##N, g_data_##N);                                                          \
  }
RDSM_SHMEM_RMA_TYPES(RDSM_TEST_RMA)
#undef RDSM_TEST_RMA
