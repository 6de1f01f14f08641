// Multi-PE tests of the rdsm C++ API: global_ptr, put/get, non-blocking futures, atomics and signals.
#include <gtest/gtest.h>
#include <rdsm/rdsm.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace {

int me() { return rdsm::rank_me(); }
int npes() { return rdsm::rank_n(); }
int right() { return (me() + 1) % npes(); }
int left() { return (me() + npes() - 1) % npes(); }

// A user type with padding-free layout: remote_copyable without being an arithmetic type.
struct particle {
  double x, y;
  std::int32_t id, kind;
  bool operator==(const particle&) const = default;
};

// Compile-time guarantees the API documents.
static_assert(std::is_trivially_copyable_v<rdsm::global_ptr<int>>);
static_assert(std::is_trivially_copyable_v<rdsm::global_ptr<particle>>);
static_assert(rdsm::remote_copyable<particle>);
static_assert(!rdsm::remote_copyable<std::string>);
static_assert(!rdsm::remote_copyable<std::vector<int>>);
static_assert(rdsm::atomic_integral<long> && rdsm::atomic_integral<std::uint32_t>);
static_assert(!rdsm::atomic_integral<double> && !rdsm::atomic_integral<bool> && !rdsm::atomic_integral<short>);
static_assert(rdsm::atomic_value<double> && rdsm::atomic_value<float> && !rdsm::atomic_value<long double>);
static_assert(std::is_convertible_v<rdsm::global_ptr<int>, rdsm::global_ptr<const int>>);
static_assert(!std::is_convertible_v<rdsm::global_ptr<const int>, rdsm::global_ptr<int>>);
static_assert(!std::is_copy_constructible_v<rdsm::future<>> && std::is_move_constructible_v<rdsm::future<>>);

TEST(CxxGlobalPtr, ArithmeticAndComparison) {
  rdsm::symmetric_array<long> a(8);
  auto p = a.global(right());
  EXPECT_EQ(p.where(), right());
  EXPECT_EQ(p.raw(), a.data());
  EXPECT_EQ((p + 3).raw(), a.data() + 3);
  EXPECT_EQ((3 + p) - p, 3);
  EXPECT_EQ((p + 5) - 2, p + 3);
  auto q = p;
  ++q;
  EXPECT_NE(q, p);
  EXPECT_LT(p, q);
  EXPECT_EQ(--q, p);
  EXPECT_LT(a.global(0), a.global(npes() - 1) + 0) << "ordered by PE first";
  rdsm::global_ptr<long> null;
  EXPECT_TRUE(null.is_null());
  EXPECT_FALSE(static_cast<bool>(null));
  EXPECT_EQ(null.where(), -1);
  EXPECT_EQ(null.local(), nullptr);
  rdsm::global_ptr<const long> c = p;  // converts to const
  EXPECT_EQ(c.raw(), p.raw());
}

TEST(CxxGlobalPtr, LocalIsShmemPtr) {
  rdsm::symmetric<long> x(7L);
  EXPECT_EQ(x.global(me()).local(), x.data()) << "a PE's own memory is always load/store reachable";
  for (int pe = 0; pe < npes(); ++pe)
    EXPECT_EQ(x.global(pe).local(), static_cast<long*>(shmem_ptr(x.data(), pe))) << "pe " << pe;
  // Every member of the shared team is reachable, and a load through local() sees its value.
  auto shared = rdsm::team::shared();
  for (int r = 0; r < shared.size(); ++r) {
    long* l = x.global(shared.world_rank(r)).local();
    ASSERT_NE(l, nullptr) << "shared-team member " << r;
    EXPECT_EQ(*l, 7L);
  }
  rdsm::barrier();
}

TEST(CxxRma, PutGetValueAndSpan) {
  rdsm::symmetric_array<long> a(64);
  rdsm::symmetric<particle> part(particle{0, 0, -1, -1});
  std::vector<long> src(64);
  for (size_t i = 0; i < src.size(); ++i) src[i] = me() * 1000L + static_cast<long>(i);
  rdsm::put(src, a.global(right()));
  rdsm::put(particle{1.5, -2.5, me(), 3}, part.global(right()));
  rdsm::put(42L + me(), a.global(right()) + 63);  // overwrites the last element after the span
  rdsm::barrier();
  for (size_t i = 0; i < 63; ++i) EXPECT_EQ(a[i], left() * 1000L + static_cast<long>(i)) << i;
  EXPECT_EQ(a[63], 42L + left());
  EXPECT_EQ(*part, (particle{1.5, -2.5, left(), 3}));
  // get: single values and a span, from the right neighbour (which holds what I put).
  EXPECT_EQ(rdsm::get(a.global(right()) + 5), me() * 1000L + 5);
  EXPECT_EQ(rdsm::get(part.global(right())), (particle{1.5, -2.5, me(), 3}));
  rdsm::global_ptr<const long> ro = a.global(right());
  EXPECT_EQ(rdsm::get(ro), me() * 1000L);
  std::array<long, 10> back{};
  rdsm::get(a.global(right()) + 10, std::span<long>(back));
  for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], me() * 1000L + 10 + static_cast<long>(i));
  rdsm::barrier();
}

TEST(CxxRma, NonBlockingFutures) {
  rdsm::symmetric_array<int> a(256, -1);
  std::vector<int> src(256);
  for (size_t i = 0; i < src.size(); ++i) src[i] = me() * 7 + static_cast<int>(i);
  rdsm::future<> f = rdsm::put_nbi(std::span<const int>(src).first(128), a.global(right()));
  rdsm::future<> g = rdsm::put_nbi(std::span<const int>(src).subspan(128), a.global(right()) + 128);
  EXPECT_TRUE(f.valid());
  f.wait();  // quiet completes g's put as well
  EXPECT_FALSE(f.valid());
  g.wait();
  rdsm::future<> moved = std::move(g);
  EXPECT_FALSE(moved.valid()) << "moving a completed future keeps it completed";
  rdsm::barrier();
  for (size_t i = 0; i < 256; ++i) EXPECT_EQ(a[i], left() * 7 + static_cast<int>(i)) << i;

  std::vector<int> back(256, 0);
  rdsm::future<> h = rdsm::get_nbi(a.global(right()), std::span<int>(back));
  rdsm::future<> h2 = std::move(h);
  EXPECT_FALSE(h.valid());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_TRUE(h2.valid());
  h2.wait();
  for (size_t i = 0; i < 256; ++i) EXPECT_EQ(back[i], me() * 7 + static_cast<int>(i)) << i;
  rdsm::future<> d = rdsm::put_nbi(std::span<const int>(src).first(1), a.global(right()));
  d.detach();  // completes at the next quiet/barrier
  EXPECT_FALSE(d.valid());
  rdsm::barrier();
  EXPECT_EQ(a[0], left() * 7);
}

TEST(CxxRma, StridedPutAndGetOfAnyType) {
  // Every other particle of a local array goes to every third slot of the right neighbour's, and back.
  rdsm::symmetric_array<particle> slots(12, particle{});
  std::vector<particle> local(8);
  for (int i = 0; i < 8; ++i) local[static_cast<size_t>(i)] = particle{1.0 * me(), 0.5 * i, i, me()};
  rdsm::iput(slots.global(right()), 3, std::span<const particle>(local), 2, 4);
  rdsm::barrier();
  for (int k = 0; k < 12; ++k) {
    if (k % 3 != 0) {
      EXPECT_EQ(slots[static_cast<size_t>(k)], particle{}) << "slot " << k << " written";
    }
  }
  for (int j = 0; j < 4; ++j)
    EXPECT_EQ(slots[static_cast<size_t>(3 * j)], (particle{1.0 * left(), 0.5 * (2 * j), 2 * j, left()})) << j;
  std::vector<particle> back(7);
  rdsm::iget(std::span<particle>(back), 2, slots.global(right()), 3, 4);
  for (int j = 0; j < 4; ++j) EXPECT_EQ(back[static_cast<size_t>(2 * j)], local[static_cast<size_t>(2 * j)]) << j;
  EXPECT_EQ(back[1], particle{});
  rdsm::barrier();
}

TEST(CxxRma, FenceOrdersPutBeforeFlag) {
  rdsm::symmetric_array<long> data(16, 0);
  rdsm::symmetric<long> flag(0L);
  std::vector<long> v(16, me() + 100);
  rdsm::put(v, data.global(right()));
  rdsm::fence();
  rdsm::put(1L, flag.global(right()));
  rdsm::wait_until(flag.data(), rdsm::cmp::eq, 1L);
  for (long x : data) EXPECT_EQ(x, left() + 100);
  rdsm::quiet();
  rdsm::barrier();
}

template <class T>
void check_integral_atomics() {
  rdsm::symmetric<T> counter(T{0});
  rdsm::symmetric<T> bits(T{0});
  auto target = counter.global(0);
  const int reps = 50;
  T previous = 0;
  for (int k = 0; k < reps; ++k) {
    T old = rdsm::fetch_add(target, static_cast<T>(me() + 1));
    EXPECT_TRUE(k == 0 || old > previous) << "the counter only grows";
    previous = old;
  }
  rdsm::add(target, T{2});
  rdsm::inc(target);
  (void)rdsm::fetch_inc(target);
  rdsm::atomic_or(bits.global(0), static_cast<T>(T{1} << me()));
  rdsm::barrier();
  T expect = 0;
  for (int pe = 0; pe < npes(); ++pe) expect += static_cast<T>(reps * (pe + 1) + 4);
  EXPECT_EQ(rdsm::fetch(target), expect);
  EXPECT_EQ(rdsm::fetch(bits.global(0)), static_cast<T>((T{1} << npes()) - 1));
  rdsm::barrier();
  // Exactly one PE wins a compare_swap from the known value.
  T won = rdsm::compare_swap(target, expect, static_cast<T>(1000 + me())) == expect ? T{1} : T{0};
  rdsm::symmetric<T> winners(T{0});
  rdsm::add(winners.global(0), won);
  rdsm::barrier();
  EXPECT_EQ(rdsm::fetch(winners.global(0)), T{1});
  T now = rdsm::fetch(target);
  EXPECT_GE(now, static_cast<T>(1000));
  EXPECT_TRUE(now - static_cast<T>(1000) < static_cast<T>(npes())) << "the winner's value is stored";
  rdsm::barrier();
  // Bitwise: each PE clears its bit with fetch_and and flips bit 8+me with xor.
  T before = rdsm::fetch_and(bits.global(0), static_cast<T>(~(T{1} << me())));
  EXPECT_TRUE((before & (T{1} << me())) != 0);
  rdsm::atomic_xor(bits.global(0), static_cast<T>(T{1} << (8 + me())));
  (void)rdsm::fetch_xor(bits.global(0), T{0});
  (void)rdsm::fetch_or(bits.global(0), T{0});
  rdsm::atomic_and(bits.global(0), static_cast<T>(~T{0}));
  rdsm::barrier();
  EXPECT_EQ(rdsm::fetch(bits.global(0)), static_cast<T>(((T{1} << npes()) - 1) << 8));
  rdsm::barrier();
}

TEST(CxxAtomic, Int) { check_integral_atomics<int>(); }
TEST(CxxAtomic, Long) { check_integral_atomics<long>(); }
TEST(CxxAtomic, LongLong) { check_integral_atomics<long long>(); }
TEST(CxxAtomic, Unsigned) { check_integral_atomics<unsigned>(); }
TEST(CxxAtomic, Uint64) { check_integral_atomics<std::uint64_t>(); }
TEST(CxxAtomic, Int32) { check_integral_atomics<std::int32_t>(); }

template <class T>
void check_extended_atomics() {
  rdsm::symmetric<T> x(T{0});
  if (me() == 0) rdsm::set(x.global(right()), static_cast<T>(2.5));
  rdsm::barrier();
  EXPECT_EQ(*x, me() == 1 ? static_cast<T>(2.5) : static_cast<T>(0));
  rdsm::barrier();
  // Each PE swaps its own value into its right neighbour's copy and gets back what was there.
  rdsm::barrier();
  T old = rdsm::swap(x.global(right()), static_cast<T>(me() + 0.5));
  EXPECT_EQ(old, right() == 1 ? static_cast<T>(2.5) : static_cast<T>(0));
  rdsm::barrier();
  EXPECT_EQ(*x, static_cast<T>(left() + 0.5));
  EXPECT_EQ(rdsm::fetch(x.global(right())), static_cast<T>(me() + 0.5));
  rdsm::barrier();
}

TEST(CxxAtomic, Float) { check_extended_atomics<float>(); }
TEST(CxxAtomic, Double) { check_extended_atomics<double>(); }

TEST(CxxSignal, PutSignalThenWait) {
  rdsm::symmetric_array<double> data(100, 0.0);
  rdsm::symmetric<std::uint64_t> sig(std::uint64_t{0});
  std::vector<double> src(100);
  for (size_t i = 0; i < src.size(); ++i) src[i] = me() + i / 128.0;
  rdsm::put_signal(std::span<const double>(src).first(50), data.global(right()), sig.global(right()), 1,
                   rdsm::signal_op::add);
  rdsm::future<> f = rdsm::put_signal_nbi(std::span<const double>(src).subspan(50), data.global(right()) + 50,
                                          sig.global(right()), 1, rdsm::signal_op::add);
  std::uint64_t got = rdsm::signal_wait_until(sig.data(), rdsm::cmp::ge, 2);
  EXPECT_EQ(got, 2u);
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(data[i], left() + i / 128.0) << i;
  f.wait();
  EXPECT_EQ(rdsm::signal_fetch(sig.data()), 2u);
  rdsm::barrier();
  // signal_op::set replaces the word.
  rdsm::put_signal(std::span<const double>(src).first(1), data.global(right()), sig.global(right()), 77,
                   rdsm::signal_op::set);
  EXPECT_EQ(rdsm::signal_wait_until(sig.data(), rdsm::cmp::eq, 77), 77u);
  rdsm::barrier();
}

TEST(CxxSignal, WaitUntilAndTest) {
  rdsm::symmetric<int> i32(0);
  rdsm::symmetric<unsigned long> u64(0UL);
  rdsm::symmetric<short> i16(static_cast<short>(0));
  EXPECT_TRUE(rdsm::test(i32.data(), rdsm::cmp::eq, 0)) << "nobody writes before the barrier";
  rdsm::barrier();
  rdsm::set(i32.global(right()), me() + 1);
  rdsm::set(u64.global(right()), static_cast<unsigned long>(me()) + 10);
  rdsm::put(static_cast<short>(-5 - me()), i16.global(right()));
  rdsm::wait_until(i32.data(), rdsm::cmp::eq, left() + 1);
  rdsm::wait_until(u64.data(), rdsm::cmp::ge, 10UL);
  rdsm::wait_until(i16.data(), rdsm::cmp::lt, static_cast<short>(0));
  EXPECT_EQ(*u64, static_cast<unsigned long>(left()) + 10);
  EXPECT_EQ(*i16, static_cast<short>(-5 - left()));
  EXPECT_TRUE(rdsm::test(i32.data(), rdsm::cmp::gt, 0));
  EXPECT_FALSE(rdsm::test(i32.data(), rdsm::cmp::gt, 1000));
  rdsm::barrier();
}

}  // namespace
