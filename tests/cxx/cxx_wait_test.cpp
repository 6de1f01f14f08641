// Multi-PE tests of the C++ API's waits on several variables (rdsm/waits.hpp) and the non-blocking
// fetching atomics (rdsm/atomic.hpp).
#include <gtest/gtest.h>
#include <rdsm/rdsm.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

int me() { return rdsm::rank_me(); }
int npes() { return rdsm::rank_n(); }
int right() { return (me() + 1) % npes(); }

TEST(CxxWaits, AllAnySomeOverEveryPesFlag) {
  const int n = npes();
  rdsm::symmetric_array<long> flags(static_cast<std::size_t>(n), 0L);
  rdsm::barrier();
  EXPECT_FALSE(rdsm::test_all(flags, rdsm::cmp::gt, 0L)) << "nobody has set a flag yet";
  EXPECT_FALSE(rdsm::test_any(flags, rdsm::cmp::gt, 0L).has_value());
  EXPECT_TRUE(rdsm::test_some(flags, rdsm::cmp::gt, 0L).empty());
  rdsm::barrier();
  // Each PE sets its own flag (1 + its number) on every PE, its right neighbour first.
  for (int k = 1; k <= n; ++k) {
    const int pe = (me() + k) % n;
    rdsm::set(flags.global(pe) + me(), static_cast<long>(me()) + 1);
  }
  rdsm::wait_until_all(flags, rdsm::cmp::gt, 0L);
  std::vector<long> expected(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) expected[static_cast<std::size_t>(i)] = i + 1;
  for (int i = 0; i < n; ++i) EXPECT_EQ(flags[static_cast<std::size_t>(i)], i + 1) << "flag " << i;
  rdsm::wait_until_all(flags, rdsm::cmp::eq, expected);  // one value per variable (the _vector form)
  EXPECT_TRUE(rdsm::test_all(flags, rdsm::cmp::eq, expected));
  EXPECT_TRUE(rdsm::test_all(std::span<long>(flags.span()), rdsm::cmp::ge, 1L));

  EXPECT_EQ(rdsm::wait_until_any(flags, rdsm::cmp::eq, 1L), 0u);
  std::vector<int> status(static_cast<std::size_t>(n), 0);
  status[0] = 1;  // flag 0 excluded: the next satisfied one
  EXPECT_EQ(rdsm::wait_until_any(flags, rdsm::cmp::ge, 1L, status), 1u);
  std::vector<int> none(static_cast<std::size_t>(n), 1);
  EXPECT_EQ(rdsm::wait_until_any(flags, rdsm::cmp::ge, 1L, none), rdsm::no_index) << "every variable excluded";
  EXPECT_TRUE(rdsm::wait_until_some(flags, rdsm::cmp::ge, 1L, none).empty());

  std::vector<std::size_t> above_one;
  for (int i = 1; i < n; ++i) above_one.push_back(static_cast<std::size_t>(i));
  EXPECT_EQ(rdsm::test_some(flags, rdsm::cmp::gt, 1L), above_one);
  EXPECT_EQ(rdsm::wait_until_some(flags, rdsm::cmp::le, 1L), std::vector<std::size_t>{0});
  EXPECT_EQ(rdsm::test_any(flags, rdsm::cmp::eq, static_cast<long>(n)), std::optional<std::size_t>(n - 1));
  EXPECT_FALSE(rdsm::test_any(flags, rdsm::cmp::gt, static_cast<long>(n)).has_value());
  EXPECT_FALSE(rdsm::test_all(flags, rdsm::cmp::eq, 1L));
  std::vector<int> only_first(static_cast<std::size_t>(n), 1);
  only_first[0] = 0;
  EXPECT_TRUE(rdsm::test_all(flags, rdsm::cmp::eq, 1L, only_first));
  rdsm::barrier();
}

TEST(CxxWaits, WaitsForALaterWriteOfAnotherPe) {
  // Two-byte flags (the short carrier): the left neighbour writes flag 1 after a barrier; this PE's
  // wait_until_any on both flags, with flag 0 never written, returns 1 only once it has come.
  rdsm::symmetric_array<short> two(2, static_cast<short>(0));
  rdsm::barrier();
  rdsm::put(static_cast<short>(7), two.global(right()) + 1);
  EXPECT_EQ(rdsm::wait_until_any(two, rdsm::cmp::eq, static_cast<short>(7)), 1u);
  EXPECT_EQ(two[1], 7);
  EXPECT_EQ(two[0], 0);
  rdsm::barrier();
}

TEST(CxxAtomic, NonBlockingFetchingForms) {
  rdsm::symmetric<long> x(0L);
  rdsm::symmetric<double> d(0.0);
  rdsm::barrier();
  long added = -1, fetched = -1, swapped = -1, cswapped = -1, incremented = -1;
  rdsm::future<> f = rdsm::fetch_add_nbi(x.global(right()), 5L, added);  // only this PE adds to its right
  f.wait();
  EXPECT_EQ(added, 0);
  rdsm::barrier();
  rdsm::fetch_nbi(x.global(right()), fetched).wait();
  EXPECT_EQ(fetched, 5);
  rdsm::swap_nbi(x.global(right()), 7L, swapped).wait();
  EXPECT_EQ(swapped, 5);
  rdsm::compare_swap_nbi(x.global(right()), 7L, 12L, cswapped).wait();
  EXPECT_EQ(cswapped, 7);
  rdsm::fetch_inc_nbi(x.global(right()), incremented).wait();
  EXPECT_EQ(incremented, 12);
  long anded = -1, ored = -1, xored = -1;
  rdsm::future<> a = rdsm::fetch_and_nbi(x.global(right()), 0b1100L, anded);  // 13 & 12 = 12
  a.wait();
  rdsm::future<> o = rdsm::fetch_or_nbi(x.global(right()), 0b0001L, ored);  // 13
  rdsm::fence();  // AMOs to one PE are ordered only by a fence
  rdsm::future<> xo = rdsm::fetch_xor_nbi(x.global(right()), 0b0110L, xored);  // 11
  xo.wait();  // one quiet completes both
  o.detach();
  EXPECT_EQ(anded, 13);
  EXPECT_EQ(ored, 12);
  EXPECT_EQ(xored, 13);
  double old_d = -1.0;
  rdsm::swap_nbi(d.global(right()), 2.5, old_d).wait();
  EXPECT_EQ(old_d, 0.0);
  rdsm::barrier();
  EXPECT_EQ(*x, 11);
  EXPECT_EQ(*d, 2.5);
  rdsm::barrier();
}

}  // namespace
