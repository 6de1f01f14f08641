// Setup/query routines (my_pe, n_pes, accessibility, shmem_ptr, info, thread level) and barrier/sync_all.
#include <cstdint>
#include <string>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

int g_ids[64];            // bss: slot i receives PE i's number
long g_npes_seen[64];     // bss: slot i receives PE i's n_pes
long g_data_word = 42;    // data section
long g_round_slot;        // written by the left neighbour each barrier round
long g_sync_counter;      // on PE 0, incremented by every PE between sync_all calls

}  // namespace

TEST(Query, MyPeAndNPesAgreeOnEveryPe) {
  const int n = npes();
  ASSERT_GE(n, 1);
  ASSERT_LE(n, 64);
  EXPECT_GE(me(), 0);
  EXPECT_LT(me(), n);
  EXPECT_EQ(_my_pe(), me());
  EXPECT_EQ(_num_pes(), n);
  for (int i = 0; i < n; ++i) g_ids[i] = -1;
  shmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    shmem_int_p(&g_ids[me()], me(), pe);
    shmem_long_p(&g_npes_seen[me()], n, pe);
  }
  shmem_barrier_all();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(g_ids[i], i) << "slot of PE " << i;  // every PE number 0..n-1 appears exactly once
    EXPECT_EQ(g_npes_seen[i], n) << "PE " << i << " reports a different shmem_n_pes";
  }
  shmem_barrier_all();
}

TEST(Query, PeAccessibleIsOneForJobPesAndZeroOutside) {
  for (int pe = 0; pe < npes(); ++pe) {
    EXPECT_EQ(shmem_pe_accessible(pe), 1) << pe;
  }
  EXPECT_EQ(shmem_pe_accessible(-1), 0);
  EXPECT_EQ(shmem_pe_accessible(npes()), 0);
  EXPECT_EQ(shmem_pe_accessible(npes() + 100), 0);
}

TEST(Query, AddrAccessibleForHeapAndGlobalsButNotStackOrMalloc) {
  long* heap = static_cast<long*>(shmem_malloc(16 * sizeof(long)));
  ASSERT_NE(heap, nullptr);
  long stack_word = 0;
  long* private_heap = new long[4];
  for (int pe = 0; pe < npes(); ++pe) {
    EXPECT_EQ(shmem_addr_accessible(heap, pe), 1) << pe;
    EXPECT_EQ(shmem_addr_accessible(heap + 15, pe), 1) << pe;
    EXPECT_EQ(shmem_addr_accessible(&g_data_word, pe), 1) << pe;
    EXPECT_EQ(shmem_addr_accessible(&g_ids[3], pe), 1) << pe;
    EXPECT_EQ(shmem_addr_accessible(&stack_word, pe), 0) << pe;
    EXPECT_EQ(shmem_addr_accessible(private_heap, pe), 0) << pe;
  }
  EXPECT_EQ(shmem_addr_accessible(heap, -1), 0);
  EXPECT_EQ(shmem_addr_accessible(heap, npes()), 0);
  delete[] private_heap;
  shmem_free(heap);
}

TEST(Query, ShmemPtrToSelfIsTheSameAddress) {
  long* heap = static_cast<long*>(shmem_malloc(8 * sizeof(long)));
  ASSERT_NE(heap, nullptr);
  EXPECT_EQ(shmem_ptr(heap, me()), heap);
  EXPECT_EQ(shmem_ptr(heap + 5, me()), heap + 5);
  EXPECT_EQ(shmem_ptr(&g_data_word, me()), &g_data_word);
  long stack_word = 0;
  EXPECT_EQ(shmem_ptr(&stack_word, me()), nullptr);  // not symmetric
  EXPECT_EQ(shmem_ptr(heap, npes()), nullptr);       // not a PE
  shmem_free(heap);
}

TEST(Query, ShmemPtrToRemoteHeapStoresAreSeenByThatPe) {
  long* heap = static_cast<long*>(shmem_malloc(8 * sizeof(long)));
  ASSERT_NE(heap, nullptr);
  for (int i = 0; i < 8; ++i) heap[i] = -1;
  shmem_barrier_all();
  auto* remote = static_cast<long*>(shmem_ptr(heap + 2, right()));
  if (remote != nullptr) {
    *remote = 1000 + me();  // a plain store into the right neighbour's copy
  } else {
    shmem_long_p(heap + 2, 1000 + me(), right());  // not mappable (e.g. TCP): same effect by RMA
  }
  // Globals may not be mappable; if they are, a store through the pointer must land on that PE too.
  auto* remote_global = static_cast<long*>(shmem_ptr(&g_data_word, right()));
  shmem_barrier_all();
  EXPECT_EQ(heap[2], 1000 + left());
  EXPECT_EQ(heap[1], -1);
  EXPECT_EQ(heap[3], -1);
  // Every PE takes part in both barriers whatever its shmem_ptr result (they must not depend on it).
  static int left_used_ptr;
  left_used_ptr = 0;
  shmem_barrier_all();
  if (remote_global != nullptr) {
    *remote_global = 7000 + me();
    shmem_int_p(&left_used_ptr, 1, right());
  }
  shmem_barrier_all();
  if (left_used_ptr) {
    EXPECT_EQ(g_data_word, 7000 + left());
  }
  shmem_barrier_all();
  if (!on_tcp() && npes() > 1) {
    // Over shared memory every PE's heap is mapped (the runtime reports "heap of n/n PEs mapped").
    EXPECT_NE(shmem_ptr(heap, right()), nullptr);
  }
  shmem_free(heap);
}

TEST(Query, InfoGetVersionAndName) {
  int major = -1, minor = -1;
  shmem_info_get_version(&major, &minor);
  EXPECT_EQ(major, SHMEM_MAJOR_VERSION);
  EXPECT_EQ(minor, SHMEM_MINOR_VERSION);
  EXPECT_EQ(major, 1);
  EXPECT_EQ(minor, 6);  // OpenSHMEM 1.6
  char name[SHMEM_MAX_NAME_LEN];
  std::memset(name, 'x', sizeof name);
  shmem_info_get_name(name);
  EXPECT_STREQ(name, SHMEM_VENDOR_STRING);
  EXPECT_LT(std::strlen(name), static_cast<size_t>(SHMEM_MAX_NAME_LEN));
}

TEST(Query, QueryThreadReportsTheLevelOfShmemInit) {
  int provided = -1;
  shmem_query_thread(&provided);
  // shmem_init (pe_main.cpp) is shmem_init_thread(SHMEM_THREAD_SINGLE): the level is a valid one, >= SINGLE.
  EXPECT_GE(provided, SHMEM_THREAD_SINGLE);
  EXPECT_LE(provided, SHMEM_THREAD_MULTIPLE);
  int again = -2;
  shmem_query_thread(&again);
  EXPECT_EQ(again, provided);
}

TEST(Barrier, BarrierAllCompletesPutsBeforeReturning) {
  const int n = 256;
  long* heap = static_cast<long*>(shmem_malloc(n * sizeof(long)));
  ASSERT_NE(heap, nullptr);
  static long global_dst[256];
  for (int rep = 0; rep < reps(20, 5); ++rep) {
    for (int i = 0; i < n; ++i) heap[i] = global_dst[i] = -1;
    shmem_barrier_all();
    long src[n];
    for (int i = 0; i < n; ++i) src[i] = rep * 100000L + me() * 1000L + i;
    shmem_long_put_nbi(heap, src, n, right());  // nbi: only the barrier completes it
    shmem_long_put(global_dst, src, n, right());
    shmem_barrier_all();
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      long want = rep * 100000L + left() * 1000L + i;
      bad += heap[i] != want;
      bad += global_dst[i] != want;
    }
    EXPECT_EQ(bad, 0) << "rep " << rep;
    shmem_barrier_all();
  }
  shmem_free(heap);
}

TEST(Barrier, SyncAllSeparatesRoundsOfAtomicIncrements) {
  const int rounds = reps(100, 30);
  if (me() == 0) g_sync_counter = 0;
  shmem_barrier_all();
  int bad = 0;
  for (int r = 0; r < rounds; ++r) {
    (void)shmem_long_atomic_fetch_inc(&g_sync_counter, 0);  // fetching: complete on return
    shmem_sync_all();
    long seen = shmem_long_atomic_fetch(&g_sync_counter, 0);
    bad += seen != static_cast<long>(r + 1) * npes();
    shmem_sync_all();  // nobody starts the next round before every PE has read this one
  }
  EXPECT_EQ(bad, 0);
  shmem_barrier_all();
}

TEST(Barrier, ManyConsecutiveBarriersEachOrderTheRoundsPut) {
  const int rounds = reps(500, 150);
  g_round_slot = -1;
  shmem_barrier_all();
  int bad = 0;
  for (int r = 0; r < rounds; ++r) {
    shmem_long_p(&g_round_slot, r * 64L + me(), right());
    shmem_barrier_all();
    bad += g_round_slot != r * 64L + left();
    shmem_barrier_all();  // the next round's put must not overwrite before the read
  }
  EXPECT_EQ(bad, 0);
}

TEST(Barrier, BackToBackBarriersWithoutWork) {
  // Exercises epoch handling of the barrier words: a fast PE enters the next barrier at once.
  for (int r = 0; r < reps(800, 200); ++r) shmem_barrier_all();
  for (int r = 0; r < reps(800, 200); ++r) shmem_sync_all();
  static long after;
  after = 0;
  shmem_barrier_all();
  shmem_long_atomic_inc(&after, 0);
  shmem_barrier_all();
  if (me() == 0) {
    EXPECT_EQ(after, npes());
  }
  shmem_barrier_all();
}
