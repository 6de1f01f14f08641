// Multi-PE tests of the rdsm C++ API: teams as values, span collectives, reductions, symmetric objects.
#include <gtest/gtest.h>
#include <rdsm/rdsm.hpp>

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace {

int me() { return rdsm::rank_me(); }
int npes() { return rdsm::rank_n(); }

static_assert(std::is_copy_constructible_v<rdsm::team>);
static_assert(!std::is_copy_constructible_v<rdsm::symmetric<int>> && std::is_move_constructible_v<rdsm::symmetric<int>>);
static_assert(!std::is_copy_constructible_v<rdsm::symmetric_array<int>>);
static_assert(rdsm::reducible<int, rdsm::op::sum> && rdsm::reducible<double, rdsm::op::max>);
static_assert(rdsm::reducible<std::complex<double>, rdsm::op::prod>);
static_assert(!rdsm::reducible<std::complex<double>, rdsm::op::max>);
static_assert(!rdsm::reducible<double, rdsm::op::bit_xor> && rdsm::reducible<std::uint64_t, rdsm::op::bit_xor>);
static_assert(std::is_base_of_v<rdsm::error, rdsm::bad_symmetric_alloc>);
static_assert(std::is_base_of_v<std::runtime_error, rdsm::error>);

TEST(CxxTeam, WorldAndShared) {
  auto world = rdsm::team::world();
  EXPECT_TRUE(world.valid());
  EXPECT_EQ(world.rank(), me());
  EXPECT_EQ(world.size(), npes());
  EXPECT_EQ(world, rdsm::team::world());
  EXPECT_EQ(world.world_rank(npes() - 1), npes() - 1);
  auto shared = rdsm::team::shared();
  EXPECT_GE(shared.size(), 1);
  EXPECT_GE(shared.rank(), 0);
  EXPECT_EQ(shared.translate(shared.rank(), world), me());
  rdsm::team none;
  EXPECT_FALSE(none.valid());
  EXPECT_EQ(none.rank(), -1);
  EXPECT_EQ(none.size(), -1);
  EXPECT_EQ(world.translate(0, none), -1);
  world.sync();
}

TEST(CxxTeam, SplitStridedSharedOwnership) {
  auto world = rdsm::team::world();
  int evens = (npes() + 1) / 2;
  rdsm::team copy;
  {
    rdsm::team even = world.split_strided(0, 2, evens);
    EXPECT_EQ(even.valid(), me() % 2 == 0);
    if (even) {
      EXPECT_EQ(even.size(), evens);
      EXPECT_EQ(even.rank(), me() / 2);
      for (int r = 0; r < evens; ++r) EXPECT_EQ(even.world_rank(r), 2 * r);
      EXPECT_EQ(world.translate(me(), even), me() / 2);
      even.sync();
    } else {
      EXPECT_EQ(world.translate(me(), even), -1);
    }
    copy = even;  // keeps the team alive past `even`
  }
  EXPECT_EQ(copy.valid(), me() % 2 == 0);
  // Allocation is collective over the world, so every PE allocates; only the even PEs reduce.
  rdsm::symmetric_array<int> src(1, me()), dst(1, -1);
  if (copy) {
    // Still usable after the original handle went: a reduction over the even PEs.
    rdsm::reduce(copy, dst.span(), src.span(), rdsm::op::sum{});
    int expect = 0;
    for (int r = 0; r < evens; ++r) expect += 2 * r;
    EXPECT_EQ(dst[0], expect);
  }
  copy = rdsm::team();  // last owner: collective destroy on the even PEs
  rdsm::barrier();
  // A failing split throws: a team larger than its parent.
  EXPECT_THROW((void)world.split_strided(0, 1, npes() + 1), rdsm::error);
  rdsm::barrier();
}

TEST(CxxTeam, Split2d) {
  auto world = rdsm::team::world();
  auto [x, y] = world.split_2d(2);
  ASSERT_TRUE(x.valid());
  ASSERT_TRUE(y.valid());
  EXPECT_EQ(x.rank(), me() % 2);
  EXPECT_EQ(y.rank(), me() / 2);
  EXPECT_EQ(x.size(), std::min(2, npes() - (me() / 2) * 2));
  EXPECT_EQ(y.size(), (npes() - me() % 2 + 1) / 2);
  // Members of my row: world ranks (me/2)*2 + i.
  for (int i = 0; i < x.size(); ++i) EXPECT_EQ(x.world_rank(i), (me() / 2) * 2 + i);
  x.sync();
  y.sync();
}

TEST(CxxCollectives, BroadcastFcollectCollectAlltoall) {
  auto world = rdsm::team::world();
  const int n = npes(), root = 1 % n;
  rdsm::symmetric_array<long> src(8), dst(8 * static_cast<std::size_t>(n) * 2, -1);
  for (std::size_t i = 0; i < 8; ++i) src[i] = me() * 100L + static_cast<long>(i);
  rdsm::barrier();

  rdsm::broadcast(world, dst.span(), std::span<const long>(src.span()), root);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(dst[i], root * 100L + static_cast<long>(i)) << i;
  rdsm::barrier();

  rdsm::fcollect(world, dst.span(), std::span<const long>(src.span()));
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(dst[r * 8 + i], r * 100L + static_cast<long>(i));
  rdsm::barrier();

  // collect: PE r contributes r + 1 elements.
  auto mine = std::span<const long>(src.span()).first(static_cast<std::size_t>(me() % 8 + 1));
  rdsm::collect(world, dst.span(), mine);
  std::size_t at = 0;
  for (int r = 0; r < n; ++r)
    for (int i = 0; i <= r % 8; ++i) EXPECT_EQ(dst[at++], r * 100L + i) << "from PE " << r;
  rdsm::barrier();

  // alltoall: block j of my source (2 elements) goes to PE j.
  rdsm::symmetric_array<int> a_src(2 * static_cast<std::size_t>(n)), a_dst(2 * static_cast<std::size_t>(n), -1);
  for (int j = 0; j < n; ++j) {
    a_src[2 * j] = me() * 10 + j;
    a_src[2 * j + 1] = -(me() * 10 + j);
  }
  rdsm::barrier();
  rdsm::alltoall(world, a_dst.span(), std::span<const int>(a_src.span()));
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(a_dst[2 * r], r * 10 + me());
    EXPECT_EQ(a_dst[2 * r + 1], -(r * 10 + me()));
  }
  rdsm::barrier();
}

template <class T, class Op>
void check_reduce(Op op, T (*value)(int pe, int i), T (*combine)(T, T)) {
  constexpr int len = 5;
  rdsm::symmetric_array<T> src(len), dst(len);
  for (int i = 0; i < len; ++i) src[i] = value(me(), i);
  rdsm::barrier();
  rdsm::reduce(rdsm::team::world(), dst.span(), std::span<const T>(src.span()), op);
  for (int i = 0; i < len; ++i) {
    T expect = value(0, i);
    for (int pe = 1; pe < npes(); ++pe) expect = combine(expect, value(pe, i));
    EXPECT_EQ(dst[i], expect) << "element " << i;
  }
  rdsm::barrier();
}

TEST(CxxCollectives, ReduceArithmetic) {
  check_reduce<int>(rdsm::op::sum{}, [](int pe, int i) { return pe * 3 + i; }, [](int a, int b) { return a + b; });
  check_reduce<long>(rdsm::op::prod{}, [](int pe, int i) { return long{pe + i + 1}; },
                     [](long a, long b) { return a * b; });
  check_reduce<double>(rdsm::op::sum{}, [](int pe, int i) { return pe * 0.5 + i; },
                       [](double a, double b) { return a + b; });
  check_reduce<std::complex<double>>(
      rdsm::op::sum{}, [](int pe, int i) { return std::complex<double>(pe, -i); },
      [](std::complex<double> a, std::complex<double> b) { return a + b; });
}

TEST(CxxCollectives, ReduceMinMax) {
  check_reduce<double>(rdsm::op::max{}, [](int pe, int i) { return (pe * 7 % 5) - i * 0.25; },
                       [](double a, double b) { return a > b ? a : b; });
  check_reduce<int>(rdsm::op::min{}, [](int pe, int i) { return (pe * 7 % 5) * (i - 2); },
                    [](int a, int b) { return a < b ? a : b; });
  check_reduce<unsigned long>(rdsm::op::max{}, [](int pe, int i) { return static_cast<unsigned long>(pe * 11 + i); },
                              [](unsigned long a, unsigned long b) { return a > b ? a : b; });
}

TEST(CxxCollectives, ReduceBitwise) {
  using u64 = std::uint64_t;
  check_reduce<u64>(rdsm::op::bit_or{}, [](int pe, int i) { return u64{1} << (pe + i); },
                    [](u64 a, u64 b) { return a | b; });
  check_reduce<u64>(rdsm::op::bit_and{}, [](int pe, int i) { return ~(u64{1} << (pe + i)); },
                    [](u64 a, u64 b) { return a & b; });
  check_reduce<std::uint32_t>(rdsm::op::bit_xor{}, [](int pe, int i) { return static_cast<std::uint32_t>(pe * 5 + i); },
                              [](std::uint32_t a, std::uint32_t b) { return a ^ b; });
}

struct alignas(64) cache_line {
  long value[8];
};

TEST(CxxSymmetric, ObjectsArraysAndMoves) {
  rdsm::symmetric<long> x(41L);
  EXPECT_EQ(*x, 41L);
  rdsm::symmetric<cache_line> line;
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(line.data()) % 64, 0u);
  EXPECT_EQ(line->value[0], 0L) << "value-initialized";
  rdsm::symmetric_array<int> arr(10, 3);
  EXPECT_EQ(arr.size(), 10u);
  EXPECT_EQ(arr.span().size(), 10u);
  for (int v : arr) EXPECT_EQ(v, 3);
  EXPECT_EQ(arr.global(npes() - 1).where(), npes() - 1);
  EXPECT_EQ(arr.global(npes() - 1).raw(), arr.data());
  // Moves transfer ownership; the moved-from object frees nothing.
  rdsm::symmetric<long> y = std::move(x);
  EXPECT_EQ(x.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(*y, 41L);
  rdsm::symmetric_array<int> arr2;
  EXPECT_TRUE(arr2.empty());
  arr2 = std::move(arr);
  EXPECT_EQ(arr2.size(), 10u);
  EXPECT_EQ(arr.size(), 0u);  // NOLINT(bugprone-use-after-move)
  // Every PE sees the constructor's value on every other PE once construction returned.
  rdsm::symmetric<int> z(me() + 1000);
  EXPECT_EQ(rdsm::get(z.global((me() + 1) % npes())), (me() + 1) % npes() + 1000);
  rdsm::barrier();
}

TEST(CxxSymmetric, ExhaustionThrowsBadSymmetricAlloc) {
  try {
    rdsm::symmetric_array<char> huge(std::size_t{1} << 40);
    ADD_FAILURE() << "1 TiB allocation succeeded";
  } catch (const rdsm::bad_symmetric_alloc& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("SHMEM_SYMMETRIC_SIZE"), std::string::npos) << what;
    EXPECT_NE(what.find("1099511627776 bytes"), std::string::npos) << what;
  }
  // A count whose bytes overflow a size_t (2^61 + 512 longs: 4096 bytes once wrapped) throws too.
  EXPECT_THROW(rdsm::symmetric_array<long>((std::size_t{1} << 61) + 512), rdsm::bad_symmetric_alloc);
  // The heap stays usable.
  rdsm::symmetric_array<long> after(16, 5);
  EXPECT_EQ(after[15], 5L);
}

}  // namespace
