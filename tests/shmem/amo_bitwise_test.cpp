// Bitwise AMOs (and/or/xor, fetching and _nbi forms) for every bitwise type: each PE owns its own bits
// of one word on PE 0, on heap and global targets.
#include <cstdint>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

template <class T>
struct bit_ops {
  T (*fetch_and)(T*, T, int);
  T (*fetch_or)(T*, T, int);
  T (*fetch_xor)(T*, T, int);
  void (*band)(T*, T, int);
  void (*bor)(T*, T, int);
  void (*bxor)(T*, T, int);
  void (*fetch_and_nbi)(T*, T*, T, int);
  void (*fetch_or_nbi)(T*, T*, T, int);
  void (*fetch_xor_nbi)(T*, T*, T, int);
  T (*fetch)(const T*, int);
};

// Bits owned by PE pe in a word of T: bit pe and the top bit pattern (bits - 1 - pe), so both halves of
// 64-bit words are exercised.
template <class T>
T owned(int pe) {
  return static_cast<T>((T{1} << pe) | (T{1} << (sizeof(T) * 8 - 1 - pe)));
}

template <class T>
T all_owned() {
  T m = 0;
  for (int pe = 0; pe < npes(); ++pe) m = static_cast<T>(m | owned<T>(pe));
  return m;
}

// Runs one round: PE 0 initializes word w, every PE applies its update, the final value must be `want`.
template <class T, class U>
void bit_round(T* w, T init, U update, T want, const char* what) {
  if (me() == 0) *w = init;
  shmem_barrier_all();
  update();
  shmem_barrier_all();
  if (me() == 0) {
    EXPECT_EQ(*w, want) << what << " (PE 0's copy)";
  }
  shmem_barrier_all();
}

template <class T>
void check_bitwise(const bit_ops<T>& op, T* w) {
  const T mine = owned<T>(me());
  const T all = all_owned<T>();
  const T ones = static_cast<T>(~T{0});
  const T noise = static_cast<T>(T{1} << (sizeof(T) * 4));  // a bit nobody owns (npes <= 16)
  int missing = 0;

  // or: each PE sets its bits; the fetched value never contains my bits (nobody else sets them).
  bit_round(w, noise, [&] { op.bor(w, mine, 0); }, static_cast<T>(all | noise), "or");
  bit_round(w, noise, [&] { missing += (op.fetch_or(w, mine, 0) & mine) != 0; }, static_cast<T>(all | noise),
        "fetch_or");
  bit_round(w, noise,
        [&] {
          T f = 0;
          op.fetch_or_nbi(&f, w, mine, 0);
          shmem_quiet();
          missing += (f & mine) != 0 || (f & noise) == 0;
        },
        static_cast<T>(all | noise), "fetch_or_nbi");

  // and: each PE clears its bits from all-ones; the fetched value still has my bits.
  bit_round(w, ones, [&] { op.band(w, static_cast<T>(~mine), 0); }, static_cast<T>(ones & ~all), "and");
  bit_round(w, ones, [&] { missing += (op.fetch_and(w, static_cast<T>(~mine), 0) & mine) != mine; },
        static_cast<T>(ones & ~all), "fetch_and");
  bit_round(w, ones,
        [&] {
          T f = 0;
          op.fetch_and_nbi(&f, w, static_cast<T>(~mine), 0);
          shmem_quiet();
          missing += (f & mine) != mine || (f & noise) == 0;
        },
        static_cast<T>(ones & ~all), "fetch_and_nbi");

  // xor: toggling my bits from a pattern where they are set clears them; noise survives.
  T start = static_cast<T>(all | noise);
  bit_round(w, start, [&] { op.bxor(w, mine, 0); }, noise, "xor");
  bit_round(w, start, [&] { missing += (op.fetch_xor(w, mine, 0) & mine) != mine; }, noise, "fetch_xor");
  bit_round(w, start,
        [&] {
          T f = 0;
          op.fetch_xor_nbi(&f, w, mine, 0);
          shmem_quiet();
          missing += (f & mine) != mine || (f & noise) == 0;
        },
        noise, "fetch_xor_nbi");
  // xor twice restores.
  bit_round(w, start, [&] { op.bxor(w, mine, 0); op.bxor(w, mine, 0); }, start, "xor twice");

  EXPECT_EQ(missing, 0) << "fetched values did not reflect the owned bits";
  // The fetch form of the extended AMOs sees the same word.
  EXPECT_EQ(op.fetch(w, 0), start);
  shmem_barrier_all();

  // Hammer: many rounds of fetch_xor toggling my bits: each fetch must show my bits in the state I left.
  const int R = reps(200, 30);
  if (me() == 0) *w = 0;
  shmem_barrier_all();
  int wrong = 0;
  for (int i = 0; i < R; ++i) {
    T f = op.fetch_xor(w, mine, 0);
    wrong += (f & mine) != (i % 2 == 0 ? T{0} : mine);
  }
  EXPECT_EQ(wrong, 0) << "my bits changed under other PEs' concurrent xors";
  shmem_barrier_all();
  if (me() == 0) {
    EXPECT_EQ(*w, R % 2 == 0 ? T{0} : all);
  }
  shmem_barrier_all();
}

}  // namespace

#define RDSM_TEST_BITWISE(T, N)                                                                         \
  T g_bits_##N[2];                                                                                      \
  TEST(BitwiseAmo, EachPeOwnsBits_##N) {                                                                \
    bit_ops<T> op{shmem_##N##_atomic_fetch_and,     shmem_##N##_atomic_fetch_or,                         \
                  shmem_##N##_atomic_fetch_xor,     shmem_##N##_atomic_and,                              \
                  shmem_##N##_atomic_or,            shmem_##N##_atomic_xor,                              \
                  shmem_##N##_atomic_fetch_and_nbi, shmem_##N##_atomic_fetch_or_nbi,                     \
                  shmem_##N##_atomic_fetch_xor_nbi, shmem_##N##_atomic_fetch};                           \
    T* heap = static_cast<T*>(shmem_malloc(2 * sizeof(T)));                                              \
    ASSERT_NE(heap, nullptr);                                                                            \
    {                                                                                                    \
      SCOPED_TRACE("heap");                                                                              \
      check_bitwise<T>(op, heap);                                                                        \
    }                                                                                                    \
    {                                                                                                    \
      SCOPED_TRACE("global");                                                                            \
      check_bitwise<T>(op, &g_bits_##N[1]);                                                              \
    }                                                                                                    \
    shmem_free(heap);                                                                                    \
  }
RDSM_SHMEM_BITWISE_AMO_TYPES(RDSM_TEST_BITWISE)
#undef RDSM_TEST_BITWISE
