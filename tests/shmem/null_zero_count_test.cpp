// A null pointer with a zero count is valid (OpenSHMEM 1.5 Annex C): RMA, put-with-signal and collectives on
// NULL with nothing to move are no-ops (the signal of a zero-length put-with-signal still arrives).
#include <cstdint>

#include "../support/every_collective.hpp"
#include "shmem_test_util.hpp"

using namespace shtest;

TEST(NullZeroCount, RmaOnNullWithZeroCountIsANoop) {
  for (int k = 0; k < npes(); ++k) {
    const int pe = (me() + k) % npes();
    shmem_putmem(nullptr, nullptr, 0, pe);
    shmem_getmem(nullptr, nullptr, 0, pe);
    shmem_putmem_nbi(nullptr, nullptr, 0, pe);
    shmem_getmem_nbi(nullptr, nullptr, 0, pe);
    shmem_long_put(nullptr, nullptr, 0, pe);
    shmem_double_get(nullptr, nullptr, 0, pe);
    shmem_int_put_nbi(nullptr, nullptr, 0, pe);
    shmem_char_get_nbi(nullptr, nullptr, 0, pe);
    shmem_put64(nullptr, nullptr, 0, pe);
    shmem_get32_nbi(nullptr, nullptr, 0, pe);
    shmem_long_iput(nullptr, nullptr, 1, 1, 0, pe);
    shmem_iget128(nullptr, nullptr, 1, 1, 0, pe);
    shmem_ctx_putmem(SHMEM_CTX_DEFAULT, nullptr, nullptr, 0, pe);
    shmem_ctx_long_get(SHMEM_CTX_DEFAULT, nullptr, nullptr, 0, pe);
  }
  shmem_quiet();
  shmem_barrier_all();
}

TEST(NullZeroCount, ZeroLengthPutSignalOnNullStillSignals) {
  static uint64_t sig;
  sig = 0;
  shmem_barrier_all();
  shmem_putmem_signal(nullptr, nullptr, 0, &sig, 1, SHMEM_SIGNAL_ADD, right());
  shmem_long_put_signal(nullptr, nullptr, 0, &sig, 1, SHMEM_SIGNAL_ADD, right());
  shmem_put8_signal_nbi(nullptr, nullptr, 0, &sig, 1, SHMEM_SIGNAL_ADD, right());
  shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, nullptr, nullptr, 0, &sig, 1, SHMEM_SIGNAL_ADD, right());
  EXPECT_EQ(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 4), 4u);
  shmem_barrier_all();
}

TEST(NullZeroCount, CollectivesOnNullWithZeroCountSucceed) {
  const shmem_team_t w = SHMEM_TEAM_WORLD;
  EXPECT_EQ(every_team_collective(w, nullptr, nullptr, 0), 0);
  // The deprecated active-set forms too.
  static long psync[SHMEM_SYNC_SIZE];
  shmem_barrier_all();
  shmem_broadcast64(nullptr, nullptr, 0, 0, 0, 0, npes(), psync);
  shmem_collect32(nullptr, nullptr, 0, 0, 0, npes(), psync);
  shmem_fcollect64(nullptr, nullptr, 0, 0, 0, npes(), psync);
  shmem_alltoall32(nullptr, nullptr, 0, 0, 0, npes(), psync);
  shmem_alltoalls64(nullptr, nullptr, 1, 1, 0, 0, 0, npes(), psync);
  shmem_long_sum_to_all(nullptr, nullptr, 0, 0, 0, npes(), nullptr, psync);
  // The world still works after them.
  static long word, total;
  word = me() + 1;
  ASSERT_EQ(shmem_long_sum_reduce(w, &total, &word, 1), 0);
  EXPECT_EQ(total, static_cast<long>(npes()) * (npes() + 1) / 2);
  shmem_barrier_all();
}
