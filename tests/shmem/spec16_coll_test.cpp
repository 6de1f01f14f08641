// OpenSHMEM 1.6 additions beyond RMA: shmem_sum_inscan/_exscan (typed, C++ overloads, in place, on a reversed
// team), nested shmem_init/shmem_finalize with shmem_query_initialized, and the 1.6 clarification that
// shmem_test_all(_vector) returns 1 for an empty test set.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

constexpr size_t kN = 37;
alignas(16) unsigned char g_src[kN * 16];
alignas(16) unsigned char g_dst[kN * 16];

// Small integers, exact in every type (char and complex included) for sums over four PEs.
template <class T>
T value(int team_pe, size_t j) {
  const int v = 1 + (team_pe * 7 + static_cast<int>(j) * 3) % 20;
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<T>(v);
  } else {  // double _Complex, float _Complex
    T c;
    __real__ c = v;
    __imag__ c = v % 3;
    return c;
  }
}

// Runs scan(team, dest, source, n) with source written by every team PE and checks dest against the sums.
template <class T, class Scan>
void check_scan(shmem_team_t team, Scan scan, bool inclusive, bool in_place, const char* what) {
  SCOPED_TRACE(what);
  auto* src = reinterpret_cast<T*>(g_src);
  auto* dst = in_place ? src : reinterpret_cast<T*>(g_dst);
  const int tme = shmem_team_my_pe(team);
  for (size_t j = 0; j < kN; ++j) src[j] = value<T>(tme, j);
  if (!in_place) std::memset(g_dst, 0xEE, sizeof g_dst);
  // No barrier: the scan itself waits until every member's source is ready.
  ASSERT_EQ(scan(team, dst, src, kN), 0);
  for (size_t j = 0; j < kN; ++j) {
    T want = T();
    for (int k = 0; k < (inclusive ? tme + 1 : tme); ++k) want += value<T>(k, j);
    ASSERT_TRUE(dst[j] == want) << "element " << j << " on team PE " << tme;
  }
  shmem_barrier_all();  // the next round rewrites sources others may still read
}

template <class T>
void check_both(shmem_team_t team, int (*in)(shmem_team_t, T*, const T*, size_t),
                int (*ex)(shmem_team_t, T*, const T*, size_t), const char* type) {
  for (bool in_place : {false, true}) {
    check_scan<T>(team, in, true, in_place, type);
    check_scan<T>(team, ex, false, in_place, type);
  }
}

#define RDSM_CHECK_SCAN(T, N) check_both<T>(team, shmem_##N##_sum_inscan, shmem_##N##_sum_exscan, #N);

void check_every_type(shmem_team_t team) { RDSM_SHMEM_REDUCE_ARITH_TYPES(RDSM_CHECK_SCAN) }

TEST(Spec16, SumScansOfEveryTypeOnTheWorldTeam) { check_every_type(SHMEM_TEAM_WORLD); }

TEST(Spec16, SumScansFollowTheTeamOrderOfAReversedTeam) {
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes() - 1, -1, npes(), nullptr, 0, &rev), 0);
  check_every_type(rev);
  shmem_team_destroy(rev);
}

TEST(Spec16, SumScanCxxOverloadsAndASubTeam) {
  // The C++ overloads (the C11 generic names' counterparts) pick the routine from dest's type.
  check_scan<double>(SHMEM_TEAM_WORLD, [](shmem_team_t t, double* d, const double* s, size_t n) {
    return shmem_sum_inscan(t, d, s, n);
  }, true, false, "double overload");
  check_scan<unsigned long>(SHMEM_TEAM_WORLD, [](shmem_team_t t, unsigned long* d, const unsigned long* s,
                                                 size_t n) { return shmem_sum_exscan(t, d, s, n); },
                            false, true, "ulong overload");
  // Even PEs only: odd PEs hold SHMEM_TEAM_INVALID, for which the scan does nothing and returns nonzero.
  shmem_team_t even = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes() + 1) / 2, nullptr, 0, &even);
  if (even == SHMEM_TEAM_INVALID) {
    int x = 0;
    EXPECT_NE(shmem_int_sum_inscan(even, &x, &x, 1), 0);
    shmem_barrier_all();
  } else {
    check_scan<int>(even, shmem_int_sum_inscan, true, false, "even team");
    shmem_team_destroy(even);
  }
  // Zero elements on null pointers: nothing to move, still valid.
  EXPECT_EQ(shmem_long_sum_exscan(SHMEM_TEAM_WORLD, nullptr, nullptr, 0), 0);
}

TEST(Spec16, InitAndFinalizeNestAndQueryInitializedFollowsThem) {
  int initialized = 0;
  shmem_query_initialized(&initialized);
  EXPECT_NE(initialized, 0);
  shmem_init();  // a second initialization: counted, not an error
  int provided = -1;
  EXPECT_EQ(shmem_init_thread(SHMEM_THREAD_SINGLE, &provided), 0);
  EXPECT_GE(provided, SHMEM_THREAD_SINGLE);
  shmem_finalize();
  shmem_finalize();  // matches the two extra initializations: the library stays initialized
  shmem_query_initialized(&initialized);
  EXPECT_NE(initialized, 0);
  EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes());
  static long x;
  shmem_long_p(&x, me(), right());
  shmem_barrier_all();
  EXPECT_EQ(x, left());
  int major = 0, minor = 0;
  shmem_info_get_version(&major, &minor);
  EXPECT_EQ(major, 1);
  EXPECT_EQ(minor, 6);
  EXPECT_EQ(SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION, 106);
}

TEST(Spec16, TestAllOfAnEmptySetIsTrue) {
  static int ivars[4] = {0, 0, 0, 0};
  const int all_excluded[4] = {1, 1, 1, 1};
  const int cmp_values[4] = {5, 5, 5, 5};  // const: the 1.6 prototypes take const cmp_values
  EXPECT_EQ(shmem_int_test_all(ivars, 0, nullptr, SHMEM_CMP_EQ, 5), 1);
  EXPECT_EQ(shmem_int_test_all(ivars, 4, all_excluded, SHMEM_CMP_EQ, 5), 1);
  EXPECT_EQ(shmem_int_test_all_vector(ivars, 0, nullptr, SHMEM_CMP_EQ, cmp_values), 1);
  EXPECT_EQ(shmem_int_test_all_vector(ivars, 4, all_excluded, SHMEM_CMP_EQ, cmp_values), 1);
  EXPECT_EQ(shmem_int_test_all_vector(ivars, 4, nullptr, SHMEM_CMP_EQ, cmp_values), 0);
  shmem_int_wait_until_all_vector(ivars, 4, all_excluded, SHMEM_CMP_EQ, cmp_values);  // returns at once
}

}  // namespace
