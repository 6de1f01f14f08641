// Arithmetic AMOs for every type (fetch/set/swap, compare_swap, inc/add and their fetching and _nbi forms)
// on heap and global targets, plus the deprecated OpenSHMEM 1.0-1.3 names.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

// A value of PE pe's k-th update: exact in T, with a high bit for integers (catches truncated words)
// and a fraction for floating types (catches integer conversion).
template <class T>
T val(int pe, int k) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(enc<int>(pe, static_cast<size_t>(k))) + static_cast<T>(0.25);
  } else {
    return static_cast<T>(static_cast<T>(enc<int>(pe, static_cast<size_t>(k))) |
                          static_cast<T>(T{1} << (sizeof(T) * 8 - 2)));
  }
}

template <class T>
struct ext_ops {
  T (*fetch)(const T*, int);
  void (*set)(T*, T, int);
  T (*swap)(T*, T, int);
  void (*fetch_nbi)(T*, const T*, int);
  void (*swap_nbi)(T*, T*, T, int);
};

template <class T>
struct std_ops {
  T (*cswap)(T*, T, T, int);
  T (*finc)(T*, int);
  void (*inc)(T*, int);
  T (*fadd)(T*, T, int);
  void (*add)(T*, T, int);
  void (*cswap_nbi)(T*, T*, T, T, int);
  void (*finc_nbi)(T*, T*, int);
  void (*fadd_nbi)(T*, T*, T, int);
};

// fetch, set, swap and their _nbi forms on t[0] of the right neighbour (only this PE updates it).
template <class T>
void check_ext(const ext_ops<T>& op, T* t) {
  const int r = right(), l = left();
  t[0] = T(0);
  shmem_barrier_all();
  op.set(&t[0], val<T>(me(), 1), r);
  shmem_barrier_all();
  EXPECT_EQ(t[0], val<T>(l, 1)) << "set";
  shmem_barrier_all();  // checked before the left neighbour's next update
  EXPECT_EQ(op.fetch(&t[0], r), val<T>(me(), 1)) << "fetch";
  EXPECT_EQ(op.swap(&t[0], val<T>(me(), 2), r), val<T>(me(), 1)) << "swap returns the old value";
  shmem_barrier_all();
  EXPECT_EQ(t[0], val<T>(l, 2)) << "swap stores the new value";
  shmem_barrier_all();
  T f = T(0);
  op.fetch_nbi(&f, &t[0], r);
  shmem_quiet();
  EXPECT_EQ(f, val<T>(me(), 2)) << "fetch_nbi";
  T g = T(0);
  op.swap_nbi(&g, &t[0], val<T>(me(), 3), r);
  shmem_quiet();
  EXPECT_EQ(g, val<T>(me(), 2)) << "swap_nbi returns the old value";
  shmem_barrier_all();
  EXPECT_EQ(t[0], val<T>(l, 3)) << "swap_nbi stores the new value";
  shmem_barrier_all();
}

// compare_swap (success and failure), then all PEs hammer t[1] on PE 0 with inc/add and fetching forms.
template <class T>
void check_std(const ext_ops<T>& ext, const std_ops<T>& op, T* t) {
  const int r = right(), l = left();
  t[0] = val<T>(me(), 4);  // read by the left neighbour after the barrier
  shmem_barrier_all();
  T cur = val<T>(r, 4);
  EXPECT_EQ(op.cswap(&t[0], static_cast<T>(cur + 1), val<T>(me(), 5), r), cur) << "failing cswap returns old";
  EXPECT_EQ(ext.fetch(&t[0], r), cur) << "failing cswap must not store";
  EXPECT_EQ(op.cswap(&t[0], cur, val<T>(me(), 5), r), cur) << "successful cswap returns old";
  EXPECT_EQ(ext.fetch(&t[0], r), val<T>(me(), 5)) << "successful cswap stores";
  T f = T(0);
  op.cswap_nbi(&f, &t[0], val<T>(me(), 9), val<T>(me(), 6), r);
  shmem_quiet();
  EXPECT_EQ(f, val<T>(me(), 5)) << "failing cswap_nbi fetches old";
  EXPECT_EQ(ext.fetch(&t[0], r), val<T>(me(), 5)) << "failing cswap_nbi must not store";
  op.cswap_nbi(&f, &t[0], val<T>(me(), 5), val<T>(me(), 6), r);
  shmem_quiet();
  EXPECT_EQ(f, val<T>(me(), 5)) << "successful cswap_nbi fetches old";
  shmem_barrier_all();
  EXPECT_EQ(t[0], val<T>(l, 6)) << "successful cswap_nbi stores";

  // Hammer one counter on PE 0. Per iteration each PE adds 1 + (me+1) + 1 + 2 + 1 + 3.
  const int R = reps(150, 25);
  if (me() == 0) t[1] = T(0);
  shmem_barrier_all();
  int not_increasing = 0;
  long long last = -1;
  auto seen = [&](T v) {
    long long x = static_cast<long long>(v);
    not_increasing += x <= last;
    last = std::max(last, x);
  };
  for (int i = 0; i < R; ++i) {
    op.inc(&t[1], 0);
    op.add(&t[1], static_cast<T>(me() + 1), 0);
    seen(op.finc(&t[1], 0));
    seen(op.fadd(&t[1], T(2), 0));
    T a = T(0), b = T(0);
    op.finc_nbi(&a, &t[1], 0);
    op.fadd_nbi(&b, &t[1], T(3), 0);
    shmem_quiet();
    not_increasing += a == b;  // two updates of the same word never fetch the same value
    seen(std::min(a, b));
    seen(std::max(a, b));
  }
  EXPECT_EQ(not_increasing, 0) << "fetched values of one PE's updates must strictly increase";
  shmem_barrier_all();
  const long long n = npes();
  const long long want = R * (8 * n + n * (n + 1) / 2);
  EXPECT_EQ(static_cast<long long>(ext.fetch(&t[1], 0)), want) << "counter total";
  if (me() == 0) {
    EXPECT_EQ(static_cast<long long>(t[1]), want);
  }
  shmem_barrier_all();
}

template <class T>
void on_heap_and_global(T* global, void (*body)(T*)) {
  T* heap = static_cast<T*>(shmem_malloc_with_hints(4 * sizeof(T), SHMEM_MALLOC_ATOMICS_REMOTE));
  ASSERT_NE(heap, nullptr);
  {
    SCOPED_TRACE("heap target");
    body(heap);
  }
  {
    SCOPED_TRACE("global target");
    body(global);
  }
  shmem_free(heap);
}

}  // namespace

// Minimal case: a successful compare_swap on another PE's word must store the new value. Over TCP the heap
// is reached through UCX atomics (globals and the shared-memory heap are mapped and use CPU atomics).
long g_cswap_word;
void check_cswap_stores(long* word) {
  *word = 10 + me();
  shmem_barrier_all();
  long old = shmem_long_atomic_compare_swap(word, 10 + right(), 500 + me(), right());
  EXPECT_EQ(old, 10 + right());
  shmem_barrier_all();
  EXPECT_EQ(*word, 500 + left()) << "cond matched, but the new value was not stored";
  shmem_barrier_all();
}

TEST(Amo, CompareSwapOnRemoteHeapLongStoresNewValue) {
  long* word = static_cast<long*>(shmem_malloc(sizeof(long)));
  ASSERT_NE(word, nullptr);
  check_cswap_stores(word);
  shmem_free(word);
}

TEST(Amo, CompareSwapOnRemoteGlobalLongStoresNewValue) { check_cswap_stores(&g_cswap_word); }

#define RDSM_EXT_OPS(N)                                                                                \
  ext_ops<decltype(shmem_##N##_atomic_fetch(nullptr, 0))> {                                            \
    shmem_##N##_atomic_fetch, shmem_##N##_atomic_set, shmem_##N##_atomic_swap, shmem_##N##_atomic_fetch_nbi, \
        shmem_##N##_atomic_swap_nbi                                                                    \
  }

#define RDSM_TEST_EXT_AMO(T, N)                                                                        \
  T g_ext_##N[4];                                                                                       \
  TEST(Amo, FetchSetSwapAndNbi_##N) {                                                                   \
    on_heap_and_global<T>(g_ext_##N, [](T* t) { check_ext<T>(RDSM_EXT_OPS(N), t); });                    \
  }
RDSM_SHMEM_EXT_AMO_TYPES(RDSM_TEST_EXT_AMO)
#undef RDSM_TEST_EXT_AMO

#define RDSM_TEST_STD_AMO(T, N)                                                                        \
  T g_std_##N[4] = {static_cast<T>(1)};                                                                 \
  TEST(Amo, CompareSwapIncAddFetchingAndNbiAllPesOneCounter_##N) {                                      \
    on_heap_and_global<T>(g_std_##N, [](T* t) {                                                          \
      check_std<T>(RDSM_EXT_OPS(N),                                                                      \
                   std_ops<T>{shmem_##N##_atomic_compare_swap, shmem_##N##_atomic_fetch_inc,             \
                              shmem_##N##_atomic_inc, shmem_##N##_atomic_fetch_add, shmem_##N##_atomic_add, \
                              shmem_##N##_atomic_compare_swap_nbi, shmem_##N##_atomic_fetch_inc_nbi,     \
                              shmem_##N##_atomic_fetch_add_nbi},                                         \
                   t);                                                                                   \
    });                                                                                                  \
  }
RDSM_SHMEM_AMO_TYPES(RDSM_TEST_STD_AMO)
#undef RDSM_TEST_STD_AMO

// Deprecated names: the same checks through shmem_<T>_fetch/set/swap and cswap/finc/inc/fadd/add. The _nbi
// slots have no deprecated names, so they reuse the current ones.
#define RDSM_TEST_OLD_EXT(T, N)                                                                         \
  T g_old_ext_##N[4];                                                                                   \
  TEST(DeprecatedAmo, FetchSetSwap_##N) {                                                               \
    on_heap_and_global<T>(g_old_ext_##N, [](T* t) {                                                     \
      check_ext<T>(ext_ops<T>{shmem_##N##_fetch, shmem_##N##_set, shmem_##N##_swap,                      \
                              shmem_##N##_atomic_fetch_nbi, shmem_##N##_atomic_swap_nbi},                \
                   t);                                                                                   \
    });                                                                                                  \
  }
RDSM_SHMEM_OLD_EXT_AMO_TYPES(RDSM_TEST_OLD_EXT)
#undef RDSM_TEST_OLD_EXT

#define RDSM_TEST_OLD_STD(T, N)                                                                         \
  T g_old_std_##N[4];                                                                                   \
  TEST(DeprecatedAmo, CswapFincIncFaddAdd_##N) {                                                         \
    on_heap_and_global<T>(g_old_std_##N, [](T* t) {                                                     \
      check_std<T>(ext_ops<T>{shmem_##N##_fetch, shmem_##N##_set, shmem_##N##_swap,                      \
                              shmem_##N##_atomic_fetch_nbi, shmem_##N##_atomic_swap_nbi},                \
                   std_ops<T>{shmem_##N##_cswap, shmem_##N##_finc, shmem_##N##_inc, shmem_##N##_fadd,     \
                              shmem_##N##_add, shmem_##N##_atomic_compare_swap_nbi,                      \
                              shmem_##N##_atomic_fetch_inc_nbi, shmem_##N##_atomic_fetch_add_nbi},       \
                   t);                                                                                   \
    });                                                                                                  \
  }
RDSM_SHMEM_OLD_AMO_TYPES(RDSM_TEST_OLD_STD)
#undef RDSM_TEST_OLD_STD

// The named deprecated calls of the brief, one by one, on a global int/long/double.
TEST(DeprecatedAmo, NamedCallsOnGlobals) {
  static int gi;
  static long gl;
  static double gd;
  if (me() == 0) {
    gi = 0;
    gl = 0;
    gd = 0.0;
  }
  shmem_barrier_all();
  int fi = shmem_int_finc(&gi, 0);
  long fl = shmem_long_fadd(&gl, 10, 0);
  EXPECT_GE(fi, 0);
  EXPECT_LT(fi, npes());
  EXPECT_EQ(fl % 10, 0);
  EXPECT_LT(fl, 10L * npes());
  shmem_barrier_all();
  if (me() == 0) {
    EXPECT_EQ(gi, npes());
    EXPECT_EQ(gl, 10L * npes());
  }
  shmem_barrier_all();
  if (me() == npes() - 1) {
    EXPECT_EQ(shmem_int_cswap(&gi, npes() + 1, 77, 0), npes()) << "failing";
    EXPECT_EQ(shmem_int_cswap(&gi, npes(), 77, 0), npes()) << "succeeding";
    EXPECT_EQ(shmem_int_g(&gi, 0), 77);
    EXPECT_EQ(shmem_double_swap(&gd, 2.5, 0), 0.0);
    EXPECT_EQ(shmem_double_fetch(&gd, 0), 2.5);
  }
  shmem_barrier_all();
  if (me() == 0) {
    EXPECT_EQ(gi, 77);
    EXPECT_EQ(gd, 2.5);
  }
  shmem_barrier_all();
}
