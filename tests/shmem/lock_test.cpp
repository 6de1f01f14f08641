// Distributed locks: set_lock/clear_lock protect a non-atomic read-modify-write from all PEs (exact count),
// test_lock returns 0 on a free lock and 1 while another PE holds it; locks on globals and on the heap.
#include <chrono>
#include <cstdint>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

long g_lock;           // a global lock (symmetric long, initially 0)
long g_test_lock;      // lock used by the test_lock checks
long g_counter;        // protected counter on PE 0
long g_held_flag;      // PE 0: set by the holder while inside the critical section

// Every PE increments the counter on PE 0 `iters` times with get, +1, put, quiet under the lock.
void hammer(long* lock, long* counter, int iters, bool use_test_lock) {
  if (me() == 0) *counter = 0;
  shmem_barrier_all();
  int overlaps = 0;
  for (int i = 0; i < iters; ++i) {
    if (use_test_lock) {
      // Bounded spin: a broken test_lock must fail the test, not hang the job.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(reps(3, 6));
      bool got = false;
      while (!(got = shmem_test_lock(lock) == 0) && std::chrono::steady_clock::now() < deadline) {
      }
      if (!got) {
        ADD_FAILURE() << "shmem_test_lock never acquired the lock (iteration " << i << ")";
        break;
      }
    } else {
      shmem_set_lock(lock);
    }
    // Nobody else may be inside: the flag on PE 0 is ours alone while we hold the lock.
    overlaps += shmem_long_atomic_swap(&g_held_flag, 1, 0) != 0;
    long v = shmem_long_g(counter, 0);
    shmem_long_p(counter, v + 1, 0);
    shmem_quiet();
    overlaps += shmem_long_atomic_swap(&g_held_flag, 0, 0) != 1;
    shmem_clear_lock(lock);
  }
  EXPECT_EQ(overlaps, 0) << "two PEs were inside the critical section together";
  shmem_barrier_all();
  EXPECT_EQ(shmem_long_g(counter, 0), static_cast<long>(iters) * npes()) << "increments were lost";
  shmem_barrier_all();
}

}  // namespace

TEST(Lock, SetClearProtectsReadModifyWriteOnGlobalLock) { hammer(&g_lock, &g_counter, reps(200, 40), false); }

TEST(Lock, SetClearProtectsReadModifyWriteOnHeapLock) {
  long* lock = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  long* counter = static_cast<long*>(shmem_malloc(sizeof(long)));
  ASSERT_NE(lock, nullptr);
  ASSERT_NE(counter, nullptr);
  hammer(lock, counter, reps(200, 40), false);
  shmem_free(counter);
  shmem_free(lock);
}

TEST(Lock, TestLockSpinProtectsReadModifyWriteOnGlobalLock) { hammer(&g_lock, &g_counter, reps(100, 20), true); }

TEST(Lock, TestLockSpinProtectsReadModifyWriteOnHeapLock) {
  long* lock = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  long* counter = static_cast<long*>(shmem_malloc(sizeof(long)));
  ASSERT_NE(lock, nullptr);
  ASSERT_NE(counter, nullptr);
  hammer(lock, counter, reps(100, 20), true);
  shmem_free(counter);
  shmem_free(lock);
}

long g_failures;  // PE 0: failures reported by any PE in the current check

// True on every PE when no PE saw a failure since the check began (collective). A broken test_lock leaves
// the lock word inconsistent and a later set_lock would then wait forever: the check stops instead.
bool all_pes_ok(bool ok) {
  if (!ok) shmem_long_atomic_inc(&g_failures, 0);
  shmem_barrier_all();
  bool all = shmem_long_atomic_fetch(&g_failures, 0) == 0;
  shmem_barrier_all();
  return all;
}

// The PE `holder` takes the lock; every other PE's test_lock must report it held (1); after the holder
// releases it, test_lock on a free lock returns 0 (acquired) and then another PE sees it held.
void check_test_lock(long* lock) {
  const int n = npes();
  if (me() == 0) g_failures = 0;
  shmem_barrier_all();
  for (int holder = 0; holder < n; ++holder) {
    SCOPED_TRACE(testing::Message() << "holder PE " << holder);
    bool ok = true;
    if (me() == holder) {
      ok = shmem_test_lock(lock) == 0;
      EXPECT_TRUE(ok) << "free lock not acquired";
    }
    shmem_barrier_all();
    if (me() != holder) {
      int r = shmem_test_lock(lock);
      EXPECT_EQ(r, 1) << "lock held by another PE reported free";
      ok = r == 1;
    }
    if (!all_pes_ok(ok)) return;
    if (me() == holder) shmem_clear_lock(lock);
    shmem_barrier_all();
    // Now free: the next PE takes it with set_lock, the others must see it held.
    const int next = (holder + 1) % n;
    if (me() == next) shmem_set_lock(lock);
    shmem_barrier_all();
    ok = true;
    if (me() != next) {
      int r = shmem_test_lock(lock);
      EXPECT_EQ(r, 1) << "lock taken by set_lock reported free";
      ok = r == 1;
    }
    if (!all_pes_ok(ok)) return;
    if (me() == next) shmem_clear_lock(lock);
    shmem_barrier_all();
  }
  // Free again: one PE acquires with test_lock, a second test_lock by the same PE reports it held.
  if (me() == n - 1) {
    EXPECT_EQ(shmem_test_lock(lock), 0);
    EXPECT_EQ(shmem_test_lock(lock), 1);
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
}

TEST(Lock, TestLockReturnsZeroWhenFreeAndOneWhenHeldOnGlobal) { check_test_lock(&g_test_lock); }

TEST(Lock, TestLockReturnsZeroWhenFreeAndOneWhenHeldOnHeap) {
  long* lock = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  ASSERT_NE(lock, nullptr);
  check_test_lock(lock);
  shmem_free(lock);
}

TEST(Lock, ManyLocksAreIndependent) {
  static long locks[3];
  // PE 0 holds locks[0]; lock 1 and 2 remain free for everyone else.
  if (me() == 0) shmem_set_lock(&locks[0]);
  shmem_barrier_all();
  if (me() != 0) {
    EXPECT_EQ(shmem_test_lock(&locks[0]), 1);
  }
  shmem_barrier_all();
  if (me() == npes() - 1) {
    EXPECT_EQ(shmem_test_lock(&locks[1 + (me() % 2)]), 0);
    shmem_clear_lock(&locks[1 + (me() % 2)]);
  }
  shmem_barrier_all();
  if (me() == 0) shmem_clear_lock(&locks[0]);
  shmem_barrier_all();
}
