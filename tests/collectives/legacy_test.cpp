// Deprecated active-set collectives (PE_start, logPE_stride, PE_size, pSync): barrier, sync, broadcast,
// collect, fcollect, alltoall(s) in 32 and 64 bits, and the *_to_all reductions of every type family, on the
// whole world, strided sets (logPE_stride 1) and single PEs; PEs outside the set do not call. After every
// call (and a world barrier) pSync must hold SHMEM_SYNC_VALUE again. The 1.4 broadcast leaves the root's
// dest unchanged.
#include <unistd.h>

#include <string>
#include <type_traits>
#include <vector>

#include "coll_test_util.hpp"

using namespace colltest;

namespace {

// One pSync pair per active set; PsyncReusedAcrossDifferentActiveSets checks that sharing one works too.
constexpr int max_sets = 8;
long g_psyncs[max_sets][SHMEM_SYNC_SIZE];
long g_psyncs2[max_sets][SHMEM_BARRIER_SYNC_SIZE];
long* g_psync = g_psyncs[0];   // the current set's pSync for the collective under test
long* g_psync2 = g_psyncs2[0];  // and for the barrier that readies dest

struct active_set {
  int start, log_stride, size;
  std::string name() const {
    return "set(" + std::to_string(start) + "," + std::to_string(log_stride) + "," + std::to_string(size) + ")";
  }
  int pe(int i) const { return start + (i << log_stride); }
  int index_of(int world) const {
    int d = world - start;
    if (d < 0 || d % (1 << log_stride) != 0 || (d >> log_stride) >= size) return -1;
    return d >> log_stride;
  }
};

// The whole world, the even PEs, the odd PEs, stride 4, and the last PE alone.
std::vector<active_set> sets() {
  const int n = npes();
  std::vector<active_set> s = {{0, 0, n}, {0, 1, (n + 1) / 2}, {n - 1, 0, 1}};
  if (n >= 2) s.push_back({1, 1, n / 2});
  if (n >= 3) s.push_back({0, 2, (n + 3) / 4});
  if (n >= 3) s.push_back({1, 0, n - 1});
  return s;
}

void reset_psync() {
  for (auto& a : g_psyncs)
    for (long& w : a) w = SHMEM_SYNC_VALUE;
  for (auto& a : g_psyncs2)
    for (long& w : a) w = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
}

// Every test checks that pSync is back to SHMEM_SYNC_VALUE after each active set's calls.
bool g_check_psync = true;

// pSync must be back to SHMEM_SYNC_VALUE once every member has returned.
void expect_psync_clean(const std::string& what) {
  shmem_barrier_all();
  if (!g_check_psync) return;
  int dirty = 0;
  std::string where;
  for (int k = 0; k < max_sets; ++k)
    for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) {
      if (g_psyncs[k][i] != SHMEM_SYNC_VALUE && dirty++ < 4)
        where += " pSync[" + std::to_string(k) + "][" + std::to_string(i) + "]=" + std::to_string(g_psyncs[k][i]);
      if (g_psyncs2[k][i] != SHMEM_SYNC_VALUE && dirty++ < 4)
        where += " barrier pSync[" + std::to_string(k) + "][" + std::to_string(i) + "]=" + std::to_string(g_psyncs2[k][i]);
    }
  EXPECT_EQ(dirty, 0) << "on PE " << me() << ", pSync words not back to SHMEM_SYNC_VALUE after " << what << ":" << where;
  shmem_barrier_all();  // nobody starts the next set's calls (raising these words) before all checked
}

// Runs body on the members of each active set; others skip (they must not call). World barrier between.
template <class F>
void for_each_set(F&& body) {
  const std::vector<active_set> all = sets();
  for (size_t k = 0; k < all.size(); ++k) {
    const active_set& s = all[k];
    SCOPED_TRACE(s.name());
    g_psync = g_psyncs[k];
    g_psync2 = g_psyncs2[k];
    if (s.index_of(me()) >= 0) body(s);
    expect_psync_clean(s.name());
  }
}

uint64_t g_src64[4096], g_dst64[4096 + 1];
uint32_t g_src32[4096], g_dst32[4096 + 1];

uint64_t v64(int pe, size_t i, int salt) { return 0x1000000100000000ull * (pe + 1) + i * 77 + salt * 1000003ull + 1; }
uint32_t v32(int pe, size_t i, int salt) { return static_cast<uint32_t>(0x01000001u * (pe + 1) + i * 77 + salt * 10007u + 1); }

}  // namespace

TEST(Legacy, BarrierAndSync) {
  reset_psync();
  static long flag;
  for_each_set([&](const active_set& s) {
    // The last member arrives late after putting a flag to every other member; a barrier completes the
    // puts, so after it every member sees the flag.
    for (int r = 1; r <= 3; ++r) {
      const bool last = s.index_of(me()) == s.size - 1;
      if (last) {
        usleep(20000);
        for (int i = 0; i < s.size - 1; ++i) shmem_long_p(&flag, r, s.pe(i));
      }
      shmem_barrier(s.start, s.log_stride, s.size, g_psync);
      if (!last) {
        EXPECT_EQ(flag, r) << "round " << r;
      }
      shmem_sync(s.start, s.log_stride, s.size, g_psync);
    }
  });
  expect_psync_clean("barrier");
  flag = 0;
  shmem_barrier_all();
}

TEST(Legacy, BroadcastLeavesRootDestUnchanged) {
  reset_psync();
  for_each_set([&](const active_set& s) {
    for (int root = 0; root < s.size; ++root)
      for (size_t n : {size_t{0}, size_t{1}, size_t{33}, size_t{4096}}) {  // 4096*8 = 32 KiB, *2 sets below
        const int wroot = s.pe(root);
        for (size_t i = 0; i < n; ++i) g_src64[i] = v64(me(), i, root);
        for (size_t i = 0; i <= n; ++i) g_dst64[i] = 7;
        for (size_t i = 0; i < 2 * n && i < 4096; ++i) g_src32[i] = v32(me(), i, root);
        for (size_t i = 0; i <= 2 * n && i <= 4096; ++i) g_dst32[i] = 7;
        shmem_barrier(s.start, s.log_stride, s.size, g_psync2);  // dests ready
        shmem_broadcast64(g_dst64, g_src64, n, root, s.start, s.log_stride, s.size, g_psync);
        const size_t n32 = std::min<size_t>(2 * n, 4096);
        shmem_broadcast32(g_dst32, g_src32, n32, root, s.start, s.log_stride, s.size, g_psync);
        int bad = 0;
        for (size_t i = 0; i < n; ++i) bad += g_dst64[i] != (me() == wroot ? 7 : v64(wroot, i, root));
        EXPECT_EQ(bad, 0) << "broadcast64 root " << root << " n " << n;
        EXPECT_EQ(g_dst64[n], 7u);
        bad = 0;
        for (size_t i = 0; i < n32; ++i) bad += g_dst32[i] != (me() == wroot ? 7 : v32(wroot, i, root));
        EXPECT_EQ(bad, 0) << "broadcast32 root " << root << " n " << n32;
        EXPECT_EQ(g_dst32[n32], 7u);
      }
  });
}

TEST(Legacy, BigBroadcastScatterPathLeavesRootDestUnchanged) {
  // Above 64 KiB members copy from the root on one host, or (TCP: the heap not mapped, more than two members)
  // the data travels by scatter and exchange.
  reset_psync();
  const size_t n = 300000 / 8;
  auto* src = static_cast<uint64_t*>(shmem_malloc(n * 8));
  auto* dst = static_cast<uint64_t*>(shmem_malloc((n + 1) * 8));
  ASSERT_NE(src, nullptr);
  ASSERT_NE(dst, nullptr);
  for_each_set([&](const active_set& s) {
    const int root = s.size / 2, wroot = s.pe(root);
    for (size_t i = 0; i < n; ++i) src[i] = v64(me(), i, 5);
    for (size_t i = 0; i <= n; ++i) dst[i] = 3;
    shmem_barrier(s.start, s.log_stride, s.size, g_psync2);
    shmem_broadcast64(dst, src, n, root, s.start, s.log_stride, s.size, g_psync);
    int bad = 0;
    for (size_t i = 0; i < n; ++i) bad += dst[i] != (me() == wroot ? 3 : v64(wroot, i, 5));
    EXPECT_EQ(bad, 0) << "root " << root;
    EXPECT_EQ(dst[n], 3u);
  });
  shmem_free(dst);
  shmem_free(src);
}

TEST(Legacy, TeamBroadcastUpdatesRootDestUnlikeLegacy) {
  // The contrast in one place: same data, the 1.5 team form writes the root's dest.
  static long src[3], dst[3];
  for (int i = 0; i < 3; ++i) {
    src[i] = 100 * me() + i + 1;
    dst[i] = -1;
  }
  shmem_barrier_all();
  ASSERT_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 3, 0), 0);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(dst[i], i + 1);
  shmem_barrier_all();
}

TEST(Legacy, CollectFcollectAlltoallAlltoalls) {
  reset_psync();
  for_each_set([&](const active_set& s) {
    const int idx = s.index_of(me());
    const int n = s.size;
    // collect64: member i gives i+1 elements; collect32: member i gives 2i+1.
    for (int i = 0; i <= idx; ++i) g_src64[i] = v64(me(), i, 1);
    for (int i = 0; i <= 2 * idx; ++i) g_src32[i] = v32(me(), i, 1);
    const size_t t64 = static_cast<size_t>(n) * (n + 1) / 2, t32 = static_cast<size_t>(n) * n;
    for (size_t i = 0; i <= t64; ++i) g_dst64[i] = 9;
    for (size_t i = 0; i <= t32; ++i) g_dst32[i] = 9;
    shmem_barrier(s.start, s.log_stride, s.size, g_psync2);
    shmem_collect64(g_dst64, g_src64, idx + 1, s.start, s.log_stride, s.size, g_psync);
    shmem_collect32(g_dst32, g_src32, 2 * idx + 1, s.start, s.log_stride, s.size, g_psync);
    for (int i = 0, at = 0; i < n; ++i)
      for (int k = 0; k <= i; ++k, ++at) EXPECT_EQ(g_dst64[at], v64(s.pe(i), k, 1)) << "collect64 " << at;
    EXPECT_EQ(g_dst64[t64], 9u);
    for (int i = 0, at = 0; i < n; ++i)
      for (int k = 0; k <= 2 * i; ++k, ++at) EXPECT_EQ(g_dst32[at], v32(s.pe(i), k, 1)) << "collect32 " << at;
    EXPECT_EQ(g_dst32[t32], 9u);

    // fcollect: 5 elements each.
    for (int k = 0; k < 5; ++k) {
      g_src64[k] = v64(me(), k, 2);
      g_src32[k] = v32(me(), k, 2);
    }
    for (int i = 0; i <= 5 * n; ++i) g_dst64[i] = g_dst32[i] = 9;
    shmem_barrier(s.start, s.log_stride, s.size, g_psync2);
    shmem_fcollect64(g_dst64, g_src64, 5, s.start, s.log_stride, s.size, g_psync);
    shmem_fcollect32(g_dst32, g_src32, 5, s.start, s.log_stride, s.size, g_psync);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 5; ++k) {
        EXPECT_EQ(g_dst64[i * 5 + k], v64(s.pe(i), k, 2));
        EXPECT_EQ(g_dst32[i * 5 + k], v32(s.pe(i), k, 2));
      }
    EXPECT_EQ(g_dst64[5 * n], 9u);
    EXPECT_EQ(g_dst32[5 * n], 9u);

    // alltoall: 3 elements per block.
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < 3; ++k) {
        g_src64[j * 3 + k] = v64(me(), k, 10 + j);
        g_src32[j * 3 + k] = v32(me(), k, 10 + j);
      }
    for (int i = 0; i <= 3 * n; ++i) g_dst64[i] = g_dst32[i] = 9;
    shmem_barrier(s.start, s.log_stride, s.size, g_psync2);
    shmem_alltoall64(g_dst64, g_src64, 3, s.start, s.log_stride, s.size, g_psync);
    shmem_alltoall32(g_dst32, g_src32, 3, s.start, s.log_stride, s.size, g_psync);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(g_dst64[i * 3 + k], v64(s.pe(i), k, 10 + idx));
        EXPECT_EQ(g_dst32[i * 3 + k], v32(s.pe(i), k, 10 + idx));
      }
    EXPECT_EQ(g_dst64[3 * n], 9u);
    EXPECT_EQ(g_dst32[3 * n], 9u);

    // alltoalls: 2 elements per block, dst stride 3, src stride 2.
    for (int i = 0; i < 2 * 2 * n; ++i) g_src64[i] = g_src32[i] = 0;
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < 2; ++k) {
        g_src64[(j * 2 + k) * 2] = v64(me(), k, 30 + j);
        g_src32[(j * 2 + k) * 2] = v32(me(), k, 30 + j);
      }
    for (int i = 0; i <= 3 * 2 * n; ++i) g_dst64[i] = g_dst32[i] = 9;
    shmem_barrier(s.start, s.log_stride, s.size, g_psync2);
    shmem_alltoalls64(g_dst64, g_src64, 3, 2, 2, s.start, s.log_stride, s.size, g_psync);
    shmem_alltoalls32(g_dst32, g_src32, 3, 2, 2, s.start, s.log_stride, s.size, g_psync);
    for (int i = 0; i < 3 * 2 * n; ++i) {
      const bool hit = i % 3 == 0;
      const int e = i / 3;
      EXPECT_EQ(g_dst64[i], hit ? v64(s.pe(e / 2), e % 2, 30 + idx) : 9u) << "alltoalls64 " << i;
      EXPECT_EQ(g_dst32[i], hit ? v32(s.pe(e / 2), e % 2, 30 + idx) : 9u) << "alltoalls32 " << i;
    }
  });
}

// The spec lets one pSync serve calls over different active sets, as long as every member of the earlier
// call has finished (here: a world barrier in between). Each PE here has used g_psync a different number
// of times before the world-wide fcollect.
TEST(Legacy, PsyncReusedAcrossDifferentActiveSets) {
  const int n = npes();
  if (n < 3) GTEST_SKIP() << "needs 3 PEs";
  reset_psync();
  g_psync = g_psyncs[0];
  // PEs 0 and 1 alone, once.
  if (me() < 2) {
    g_src64[0] = v64(me(), 0, 0);
    shmem_fcollect64(g_dst64, g_src64, 1, 0, 0, 2, g_psync);
  }
  expect_psync_clean("fcollect64 on PEs 0, 1");
  // Then the whole world with the same pSync.
  g_src64[0] = v64(me(), 0, 1);
  for (int i = 0; i <= n; ++i) g_dst64[i] = 9;
  shmem_barrier_all();
  shmem_fcollect64(g_dst64, g_src64, 1, 0, 0, n, g_psync);
  for (int i = 0; i < n; ++i) EXPECT_EQ(g_dst64[i], v64(i, 0, 1));
  expect_psync_clean("fcollect64 on the world");
}

// ---- *_to_all reductions --------------------------------------------------------------------------------
namespace {

template <class T>
T tval(const std::string& op, int pe, int i) {
  if constexpr (std::is_arithmetic_v<T>) {
    if (op == "and" || op == "or" || op == "xor") {
      if constexpr (std::is_integral_v<T>) return static_cast<T>((0x5A5A5A5Bll * (pe + 3) + 0x3131ll * i) ^ (pe << 3));
    }
    if (op == "max" || op == "min") return static_cast<T>((pe * 37 + i * 11) % 101 - 50);
    if (op == "sum") return static_cast<T>((pe * 5 + i * 3) % 31);
    return static_cast<T>(1 + (pe + i) % 3);
  } else {
    T v;
    __real__ v = op == "sum" ? (pe * 3 + i) % 20 : 1 + (pe + i) % 2;
    __imag__ v = op == "sum" ? (pe + 2 * i) % 7 : (pe + i) % 2;
    return v;
  }
}

template <class T>
T tapply(const std::string& op, T a, T b) {
  if (op == "sum") return a + b;
  if (op == "prod") return a * b;
  if constexpr (std::is_arithmetic_v<T>) {
    if (op == "max") return a > b ? a : b;
    if (op == "min") return a < b ? a : b;
    if constexpr (std::is_integral_v<T>) {
      if (op == "and") return a & b;
      if (op == "or") return a | b;
      if (op == "xor") return a ^ b;
    }
  }
  return a;
}

template <class T>
bool tsame(T a, T b) {
  if constexpr (std::is_arithmetic_v<T>)
    return a == b;
  else
    return __real__ a == __real__ b && __imag__ a == __imag__ b;
}

template <class T>
using to_all_fn = void (*)(T*, const T*, int, int, int, int, T*, long*);

template <class T>
void check_to_all(const char* type, const char* op, to_all_fn<T> fn) {
  SCOPED_TRACE(std::string(type) + " " + op);
  if (std::is_same_v<T, long double> && !long_double_alike())
    GTEST_SKIP() << "long double differs between this job's architectures";
  constexpr int N = 37;
  static_assert(sizeof(T) * (N + 1) <= sizeof(g_dst64));
  T* src = reinterpret_cast<T*>(g_src64);
  T* dst = reinterpret_cast<T*>(g_dst64);
  static T wrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];  // symmetric
  for_each_set([&](const active_set& s) {
    for (int nreduce : {1, N}) {
      for (bool in_place : {false, true}) {
        T* out = in_place ? src : dst;
        for (int i = 0; i < nreduce; ++i) src[i] = tval<T>(op, me(), i);
        if (!in_place)
          for (int i = 0; i < nreduce; ++i) dst[i] = tval<T>(op, 50, i + 3);
        out[nreduce] = tval<T>(op, 60, 1);
        shmem_barrier(s.start, s.log_stride, s.size, g_psync2);
        fn(out, src, nreduce, s.start, s.log_stride, s.size, wrk, g_psync);
        int bad = 0;
        for (int i = 0; i < nreduce; ++i) {
          T want = tval<T>(op, s.pe(0), i);
          for (int j = 1; j < s.size; ++j) want = tapply<T>(op, want, tval<T>(op, s.pe(j), i));
          bad += !tsame(out[i], want);
        }
        EXPECT_EQ(bad, 0) << nreduce << " elements" << (in_place ? " in place" : "");
        EXPECT_TRUE(tsame(out[nreduce], tval<T>(op, 60, 1))) << "wrote past the end";
      }
    }
  });
}

}  // namespace

#define RDSM_TA(T, N, OP) check_to_all<T>(#N, #OP, shmem_##N##_##OP##_to_all);
#define RDSM_TA_BITWISE(T, N) \
  TEST(ToAllBitwise, N) { reset_psync(); RDSM_TA(T, N, and) RDSM_TA(T, N, or) RDSM_TA(T, N, xor) }
#define RDSM_TA_MINMAX(T, N) \
  TEST(ToAllMinMax, N) { reset_psync(); RDSM_TA(T, N, max) RDSM_TA(T, N, min) }
#define RDSM_TA_ARITH(T, N) \
  TEST(ToAllArith, N) { reset_psync(); RDSM_TA(T, N, sum) RDSM_TA(T, N, prod) }

// After active-set barriers, collectives and reductions (each set with its own pSync), every pSync word
// is back to SHMEM_SYNC_VALUE.
TEST(ToAll, PsyncBackToSyncValueAfterEveryCall) {
  reset_psync();
  for (int round = 0; round < 20; ++round)
    for_each_set([&](const active_set& s) {
      g_src64[0] = v64(me(), 0, round);
      shmem_barrier(s.start, s.log_stride, s.size, g_psync2);
      shmem_fcollect64(g_dst64, g_src64, 1, s.start, s.log_stride, s.size, g_psync);
      for (int i = 0; i < s.size; ++i) EXPECT_EQ(g_dst64[i], v64(s.pe(i), 0, round));
      shmem_long_sum_to_all(reinterpret_cast<long*>(g_dst32), reinterpret_cast<long*>(g_src64), 1, s.start,
                            s.log_stride, s.size, reinterpret_cast<long*>(g_dst32) + 8, g_psync);
    });
}

RDSM_SHMEM_TO_ALL_BITWISE_TYPES(RDSM_TA_BITWISE)
RDSM_SHMEM_TO_ALL_MINMAX_TYPES(RDSM_TA_MINMAX)
RDSM_SHMEM_TO_ALL_ARITH_TYPES(RDSM_TA_ARITH)
