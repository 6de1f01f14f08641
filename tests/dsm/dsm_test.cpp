// DSM behaviour on several PEs: allocation, visibility at synchronization, placement, locks, annotations,
// free, concurrent faults from threads, and the DSM used beside OpenSHMEM calls. Run in both consistency
// modes (RDSM_DSM_CONSISTENCY) by ctest.
#include <gtest/gtest.h>
#include <rdsm/dsm.h>
#include <shmem.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dsm_test_env.hpp"

namespace {

int me() { return shmem_my_pe(); }
int npes() { return shmem_n_pes(); }

rdsm_dsm_stats_t stats() {
  rdsm_dsm_stats_t s;
  rdsm_dsm_stats(&s);
  return s;
}

// Every PE's value of `v` (through the symmetric heap, not the DSM).
std::vector<uint64_t> gather(uint64_t v) {
  static uint64_t* slots = nullptr;
  if (slots == nullptr) slots = static_cast<uint64_t*>(shmem_calloc(64, sizeof(uint64_t)));
  shmem_barrier_all();
  for (int pe = 0; pe < npes(); ++pe) shmem_uint64_p(&slots[me()], v, pe);
  shmem_barrier_all();
  std::vector<uint64_t> all(slots, slots + npes());
  shmem_barrier_all();
  return all;
}

TEST(Dsm, AllocationIsSymmetricAndZeroed) {
  const size_t bytes = 5 * rdsm_dsm_page_size() + 100;
  auto* p = static_cast<unsigned char*>(rdsm_dsm_alloc(bytes));
  ASSERT_NE(p, nullptr);
  for (uint64_t a : gather(reinterpret_cast<uintptr_t>(p))) EXPECT_EQ(a, reinterpret_cast<uintptr_t>(p));
  for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(p[i], 0) << "byte " << i;
  rdsm_dsm_free(p);
}

TEST(Dsm, BarrierMakesEveryWriteVisible) {
  const size_t n = 64 * 1024;
  auto* a = static_cast<long*>(rdsm_dsm_alloc(n * sizeof(long)));
  for (int round = 1; round <= 3; ++round) {
    // Interleaved elements: every page is written by every PE between two barriers (false sharing).
    for (size_t i = static_cast<size_t>(me()); i < n; i += static_cast<size_t>(npes()))
      a[i] = static_cast<long>(i) * round + 7;
    rdsm_dsm_barrier();
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += a[i] != static_cast<long>(i) * round + 7;
    EXPECT_EQ(bad, 0u) << "round " << round;
    rdsm_dsm_barrier();
  }
  rdsm_dsm_free(a);
}

TEST(Dsm, PlacementPolicies) {
  const size_t page = rdsm_dsm_page_size();
  const size_t pages = 4 * static_cast<size_t>(npes());
  auto* b = static_cast<char*>(rdsm_dsm_alloc_placed(pages * page, RDSM_DSM_BLOCK, 0));
  for (size_t i = 0; i < pages; ++i) EXPECT_EQ(rdsm_dsm_home(b + i * page), static_cast<int>(i / 4)) << i;
  auto* c = static_cast<char*>(rdsm_dsm_alloc_placed(pages * page, RDSM_DSM_CYCLIC, 2 * page));
  for (size_t i = 0; i < pages; ++i) EXPECT_EQ(rdsm_dsm_home(c + i * page), static_cast<int>(i / 2 % npes())) << i;
  const int target = npes() - 1;
  auto* d = static_cast<char*>(rdsm_dsm_alloc_placed(pages * page, RDSM_DSM_ON_PE, static_cast<size_t>(target)));
  for (size_t i = 0; i < pages; ++i) EXPECT_EQ(rdsm_dsm_home(d + i * page), target);
  // First touch: PE (i mod n) touches page i first; afterwards every PE agrees on the homes.
  auto* f = static_cast<char*>(rdsm_dsm_alloc_placed(pages * page, RDSM_DSM_FIRST_TOUCH, 0));
  for (size_t i = 0; i < pages; ++i) EXPECT_EQ(rdsm_dsm_home(f + i * page), -1);
  for (size_t i = static_cast<size_t>(me()); i < pages; i += static_cast<size_t>(npes())) f[i * page] = 'a';
  rdsm_dsm_barrier();
  for (size_t i = 0; i < pages; ++i) {
    EXPECT_EQ(f[i * page], 'a');
    EXPECT_EQ(rdsm_dsm_home(f + i * page), static_cast<int>(i % npes())) << i;
  }
  // Data written at each home is read by the others whatever the placement.
  for (char* r : {b, c, d}) {
    for (size_t i = 0; i < pages; ++i)
      if (rdsm_dsm_home(r + i * page) == me()) r[i * page + 3] = static_cast<char>('A' + i);
    rdsm_dsm_barrier();
    for (size_t i = 0; i < pages; ++i) EXPECT_EQ(r[i * page + 3], static_cast<char>('A' + i));
  }
  rdsm_dsm_barrier();
  for (char* r : {b, c, d, f}) rdsm_dsm_free(r);
}

TEST(Dsm, LockProtectedHistogram) {
  const int bins = 32, per_pe = 60;
  auto* h = static_cast<long*>(rdsm_dsm_alloc(bins * sizeof(long)));
  rdsm_dsm_lock_t* lock = rdsm_dsm_lock_create();
  for (int i = 0; i < per_pe; ++i) {
    rdsm_dsm_lock(lock);
    h[(i * 7 + me()) % bins] += 1;
    rdsm_dsm_unlock(lock);
  }
  rdsm_dsm_barrier();
  std::vector<long> want(bins, 0);
  for (int pe = 0; pe < npes(); ++pe)
    for (int i = 0; i < per_pe; ++i) want[(i * 7 + pe) % bins] += 1;
  for (int b = 0; b < bins; ++b) EXPECT_EQ(h[b], want[b]) << "bin " << b;
  rdsm_dsm_lock_destroy(lock);
  rdsm_dsm_free(h);
}

TEST(Dsm, LockHandsDataFromPeToPe) {
  // A token passed around the ring under the lock: each holder reads what the previous one wrote.
  auto* cell = static_cast<long*>(rdsm_dsm_alloc(2 * sizeof(long)));
  rdsm_dsm_lock_t* lock = rdsm_dsm_lock_create();
  const long rounds = 6;
  for (long done = 0; done < rounds;) {
    rdsm_dsm_lock(lock);
    if (cell[0] % npes() == me()) {
      EXPECT_EQ(cell[1], cell[0] * 10);
      cell[0] += 1;
      cell[1] = cell[0] * 10;
      ++done;
    }
    rdsm_dsm_unlock(lock);
  }
  rdsm_dsm_barrier();
  EXPECT_EQ(cell[0], rounds * npes());
  rdsm_dsm_lock_destroy(lock);
  rdsm_dsm_free(cell);
}

TEST(Dsm, WriteSharedPagesMergeDisjointWriters) {
  const size_t page = rdsm_dsm_page_size();
  auto* w = static_cast<unsigned char*>(rdsm_dsm_alloc(2 * page));
  rdsm_dsm_advise(w, 2 * page, RDSM_DSM_WRITE_SHARED);
  for (int round = 1; round <= 3; ++round) {
    // Byte i belongs to PE i mod n: every writer's bytes sit between the others'.
    for (size_t i = static_cast<size_t>(me()); i < 2 * page; i += static_cast<size_t>(npes()))
      w[i] = static_cast<unsigned char>(i * 31 + round);
    rdsm_dsm_barrier();
    size_t bad = 0;
    for (size_t i = 0; i < 2 * page; ++i) bad += w[i] != static_cast<unsigned char>(i * 31 + round);
    EXPECT_EQ(bad, 0u) << "round " << round;
    rdsm_dsm_barrier();
  }
  rdsm_dsm_stats_t s = stats();
  if (dsm_test::release_mode() && !dsm_test::homes_mapped() && rdsm_dsm_home(w) != me()) {
    EXPECT_GT(s.diffs, 0u);  // no ownership ping-pong: the non-home writer merged by diffs
  }
  if (dsm_test::homes_mapped()) {
    EXPECT_EQ(s.diffs, 0u);  // every writer wrote into the home's memory
  }
  rdsm_dsm_free(w);
}

TEST(Dsm, ReadOnlyCopiesSurviveSynchronization) {
  const size_t page = rdsm_dsm_page_size();
  const size_t pages = 8;
  auto* r = static_cast<int*>(rdsm_dsm_alloc(pages * page));
  const size_t n = pages * page / sizeof(int);
  if (me() == 0)
    for (size_t i = 0; i < n; ++i) r[i] = static_cast<int>(i ^ 0x5a5a);
  rdsm_dsm_barrier();
  rdsm_dsm_advise(r, pages * page, RDSM_DSM_READ_ONLY);
  long sum = 0;
  for (size_t i = 0; i < n; ++i) sum += r[i] == static_cast<int>(i ^ 0x5a5a);
  EXPECT_EQ(sum, static_cast<long>(n));
  const rdsm_dsm_stats_t before = stats();
  for (int i = 0; i < 5; ++i) rdsm_dsm_barrier();
  for (size_t i = 0; i < n; ++i) sum += r[i] == static_cast<int>(i ^ 0x5a5a);
  const rdsm_dsm_stats_t after = stats();
  EXPECT_EQ(after.read_faults, before.read_faults) << "read-only copies were dropped at a barrier";
  EXPECT_EQ(after.invalidations, before.invalidations);
  rdsm_dsm_free(r);
}

// `pages` pages placed so, page p's word 3 written (p * 1000 + the writer) by the PE writer_of(p) gives;
// checked on every PE after a barrier. Returns this PE's counters over the writes and the barrier, and
// the number of pages it wrote.
template <typename Writer>
std::pair<rdsm_dsm_stats_t, size_t> write_pages(rdsm_dsm_placement_t placement, size_t param, size_t pages,
                                                Writer writer_of) {
  const size_t words = rdsm_dsm_page_size() / sizeof(uint64_t);
  auto* a = static_cast<uint64_t*>(rdsm_dsm_alloc_placed(pages * words * sizeof(uint64_t), placement, param));
  EXPECT_NE(a, nullptr);
  if (a == nullptr) return {};
  const rdsm_dsm_stats_t before = stats();
  size_t written = 0;
  for (size_t p = 0; p < pages; ++p)
    if (writer_of(p) == me()) {
      a[p * words + 3] = p * 1000 + static_cast<size_t>(me());
      ++written;
    }
  rdsm_dsm_barrier();
  rdsm_dsm_stats_t d = stats();
  d.read_faults -= before.read_faults;
  d.write_faults -= before.write_faults;
  d.diffs -= before.diffs;
  for (size_t p = 0; p < pages; ++p)
    EXPECT_EQ(a[p * words + 3], p * 1000 + static_cast<size_t>(writer_of(p))) << "page " << p;
  rdsm_dsm_barrier();
  rdsm_dsm_free(a);
  return {d, written};
}

// Every PE on one host (release mode, RDSM_DSM_SAME_HOST=map): a PE's first access to another home's pages
// maps the whole run of them, so one fault covers every page it then writes, and the writes are in the
// home's memory at once. Copied instead (across hosts, or copy), each page written faults at least once.
TEST(Dsm, OneFaultMapsAHomesRunOnOneHost) {
  const int writers = npes() - 1;  // every PE but the home, PE 0
  auto [d, written] =
      write_pages(RDSM_DSM_ON_PE, 0, 64, [&](size_t p) { return static_cast<int>(p % static_cast<size_t>(writers)) + 1; });
  if (me() != 0 && dsm_test::homes_mapped()) {
    EXPECT_EQ(d.read_faults + d.write_faults, 1u) << "writes to " << written << " pages of one home";
    EXPECT_EQ(d.diffs, 0u);
  } else if (me() != 0) {
    EXPECT_GE(d.read_faults + d.write_faults, written);
  }
}

// Pages dealt one at a time (cyclic placement, first touch) are copied even on one host: mapped, each
// would take a mapping of its own, more than the kernel allows for a large array. Writers diff them.
TEST(Dsm, FinelyDealtPagesAreCopiedEvenOnOneHost) {
  // Page p's home is PE p mod n; PE p mod n - 1 writes it.
  auto [d, written] = write_pages(RDSM_DSM_CYCLIC, 0, 32, [](size_t p) {
    return (static_cast<int>(p % static_cast<size_t>(npes())) + npes() - 1) % npes();
  });
  if (dsm_test::release_mode()) {
    EXPECT_GT(d.diffs, 0u) << "the " << written << " pages written, of other homes, went as diffs";
  }
}

// Read-only pages of a home on this host are mapped from its frames, not copied; advised back to the default
// they are this PE's own again: writes merge at the home, and a later read-only spell sees them.
TEST(Dsm, ReadOnlySpellsAroundWrites) {
  const size_t page = rdsm_dsm_page_size();
  const size_t pages = 24;
  const size_t n = pages * page / sizeof(int);
  auto* r = static_cast<int*>(rdsm_dsm_alloc_placed(pages * page, RDSM_DSM_ON_PE, 0));
  ASSERT_NE(r, nullptr);
  if (me() == 0)
    for (size_t i = 0; i < n; ++i) r[i] = static_cast<int>(i * 3);
  rdsm_dsm_barrier();
  for (int spell = 0; spell < 3; ++spell) {
    rdsm_dsm_advise(r, pages * page, RDSM_DSM_READ_ONLY);
    size_t wrong = 0;
    for (size_t i = n; i-- > 0;)  // last to first: faults of one page each, then runs
      wrong += r[i] != static_cast<int>(i * 3 + spell * (i % npes() + 1));
    EXPECT_EQ(wrong, 0u) << "spell " << spell;
    rdsm_dsm_advise(r, pages * page, RDSM_DSM_DEFAULT);
    for (size_t i = 0; i < n; ++i)  // each PE adds to its own words, on pages homed on PE 0
      if (static_cast<int>(i % npes()) == me()) r[i] += static_cast<int>(i % npes() + 1);
    rdsm_dsm_barrier();
  }
  rdsm_dsm_free(r);
  auto* z = static_cast<int*>(rdsm_dsm_alloc_placed(pages * page, RDSM_DSM_ON_PE, 0));
  ASSERT_EQ(z, r);
  size_t nonzero = 0;
  for (size_t i = 0; i < n; ++i) nonzero += z[i] != 0;
  EXPECT_EQ(nonzero, 0u) << "a freed block's read-only pages still showed the old data";
  rdsm_dsm_free(z);
}

TEST(Dsm, BarrierCostDoesNotGrowWithUnchangedCachedPages) {
  const size_t page = rdsm_dsm_page_size();
  const size_t pages = 16 * static_cast<size_t>(npes());
  auto* a = static_cast<char*>(rdsm_dsm_alloc(pages * page));
  for (size_t i = 0; i < pages; ++i)
    if (rdsm_dsm_home(a + i * page) == me()) a[i * page] = 1;
  rdsm_dsm_barrier();
  long seen = 0;
  for (size_t i = 0; i < pages; ++i) seen += a[i * page];  // caches every page
  EXPECT_EQ(seen, static_cast<long>(pages));
  // A home learns of a copy at its first release after the copy was taken and, not knowing whether it
  // wrote the page since, notices it once; a copy taken while the home was already in that barrier's
  // release is noticed one barrier later. Two barriers settle every page.
  for (int settle = 0; settle < 2; ++settle) {
    rdsm_dsm_barrier();
    for (size_t i = 0; i < pages; ++i) seen += a[i * page];
  }
  const rdsm_dsm_stats_t before = stats();
  for (int i = 0; i < 10; ++i) rdsm_dsm_barrier();
  for (size_t i = 0; i < pages; ++i) seen += a[i * page];
  const rdsm_dsm_stats_t after = stats();
  EXPECT_EQ(after.invalidations, before.invalidations) << "unchanged pages were dropped";
  EXPECT_EQ(after.read_faults, before.read_faults);
  EXPECT_EQ(after.notices, before.notices);
  rdsm_dsm_free(a);
}

TEST(Dsm, PrivatePagesAreLocalToEachPe) {
  const size_t page = rdsm_dsm_page_size();
  auto* p = static_cast<long*>(rdsm_dsm_alloc(page));
  if (me() == 0) p[1] = 99;
  rdsm_dsm_barrier();
  rdsm_dsm_advise(p, page, RDSM_DSM_PRIVATE);
  EXPECT_EQ(p[1], 99) << "a private copy starts with the region's contents";
  p[0] = 1000 + me();
  rdsm_dsm_barrier();
  EXPECT_EQ(p[0], 1000 + me());
  const rdsm_dsm_stats_t before = stats();
  for (int i = 0; i < 100; ++i) p[2] += i;
  rdsm_dsm_barrier();
  EXPECT_EQ(stats().write_faults, before.write_faults);
  rdsm_dsm_free(p);
}

TEST(Dsm, MigratoryAndProducerConsumerRegions) {
  const size_t page = rdsm_dsm_page_size();
  auto* m = static_cast<long*>(rdsm_dsm_alloc(page));
  auto* q = static_cast<long*>(rdsm_dsm_alloc(4 * page));
  rdsm_dsm_advise(m, page, RDSM_DSM_MIGRATORY);
  rdsm_dsm_advise(q, 4 * page, RDSM_DSM_PRODUCER_CONSUMER);
  rdsm_dsm_lock_t* lock = rdsm_dsm_lock_create();
  for (int i = 0; i < 10; ++i) {
    rdsm_dsm_lock(lock);
    m[0] = m[0] + 1;  // read-modify-write by one PE at a time
    rdsm_dsm_unlock(lock);
  }
  const int producer = 0;
  for (long step = 1; step <= 5; ++step) {
    if (me() == producer)
      for (size_t i = 0; i < 4 * page / sizeof(long); ++i) q[i] = step * 1000 + static_cast<long>(i);
    rdsm_dsm_barrier();
    long bad = 0;
    for (size_t i = 0; i < 4 * page / sizeof(long); ++i) bad += q[i] != step * 1000 + static_cast<long>(i);
    EXPECT_EQ(bad, 0) << "step " << step;
    rdsm_dsm_barrier();
  }
  EXPECT_EQ(m[0], 10L * npes());
  rdsm_dsm_lock_destroy(lock);
  rdsm_dsm_free(q);
  rdsm_dsm_free(m);
}

TEST(Dsm, FreedMemoryIsReusedZeroed) {
  const size_t bytes = 3 * rdsm_dsm_page_size();
  auto* a = static_cast<unsigned char*>(rdsm_dsm_alloc(bytes));
  std::memset(a + static_cast<size_t>(me()) * 16, 0xab, 16);
  rdsm_dsm_barrier();
  rdsm_dsm_free(a);
  auto* b = static_cast<unsigned char*>(rdsm_dsm_alloc(bytes));
  EXPECT_EQ(a, b);
  for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(b[i], 0) << "byte " << i;
  rdsm_dsm_free(b);
}

TEST(Dsm, ThreadsFaultConcurrently) {
  const size_t page = rdsm_dsm_page_size();
  const size_t pages = 32 * static_cast<size_t>(npes());
  auto* a = static_cast<long*>(rdsm_dsm_alloc(pages * page));
  const size_t per_page = page / sizeof(long);
  for (size_t p = 0; p < pages; ++p)
    if (rdsm_dsm_home(a + p * per_page) == me()) a[p * per_page] = static_cast<long>(p);
  rdsm_dsm_barrier();
  // Four threads read every page, and write slots of their own, all at once: many faults in flight.
  std::vector<long> sums(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (size_t p = 0; p < pages; ++p) sums[t] += a[((p + static_cast<size_t>(t) * 7) % pages) * per_page];
      for (size_t p = static_cast<size_t>(t); p < pages; p += 4)
        if (rdsm_dsm_home(a + p * per_page) == me()) a[p * per_page + 1] = 1;
    });
  for (auto& th : threads) th.join();
  for (long s : sums) EXPECT_EQ(s, static_cast<long>(pages * (pages - 1) / 2));
  rdsm_dsm_barrier();
  long ones = 0;
  for (size_t p = 0; p < pages; ++p) ones += a[p * per_page + 1];
  EXPECT_EQ(ones, static_cast<long>(pages));
  rdsm_dsm_free(a);
}

TEST(Dsm, WorksBesideOpenShmem) {
  auto* flags = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  auto* d = static_cast<long*>(rdsm_dsm_alloc(rdsm_dsm_page_size()));
  // The DSM carries the data, OpenSHMEM the signal: release, then a put with a flag.
  const int next = (me() + 1) % npes();
  if (me() == 0) {
    d[0] = 4242;
    rdsm_dsm_release();
    shmem_long_atomic_set(flags, 1, next);
  }
  if (me() != 0) {
    shmem_long_wait_until(flags, SHMEM_CMP_EQ, 1);
    rdsm_dsm_acquire();
    EXPECT_EQ(d[0], 4242);
    if (next != 0) shmem_long_atomic_set(flags, 1, next);
  }
  shmem_barrier_all();
  rdsm_dsm_free(d);
  shmem_free(flags);
}

TEST(Dsm, OpenShmemTransfersFromAndIntoDsmMemory) {
  // DSM pages as the local buffer of shmem_putmem / shmem_getmem: faulted in by rdsm, never inside UCX.
  const size_t bytes = 3 * rdsm_dsm_page_size();
  auto* d = static_cast<unsigned char*>(rdsm_dsm_alloc_placed(bytes, RDSM_DSM_ON_PE, 0));
  auto* heap = static_cast<unsigned char*>(shmem_malloc(bytes));
  if (me() == 0)
    for (size_t i = 0; i < bytes; ++i) d[i] = static_cast<unsigned char>(i * 13);
  rdsm_dsm_barrier();
  const int next = (me() + 1) % npes();
  shmem_putmem(heap, d, bytes, next);  // source in the DSM (remote home for PE != 0)
  shmem_barrier_all();
  size_t bad = 0;
  for (size_t i = 0; i < bytes; ++i) bad += heap[i] != static_cast<unsigned char>(i * 13);
  EXPECT_EQ(bad, 0u);
  rdsm_dsm_barrier();
  if (me() == npes() - 1) shmem_getmem(d, heap, bytes, 0);  // destination in the DSM
  rdsm_dsm_barrier();
  bad = 0;
  for (size_t i = 0; i < bytes; ++i) bad += d[i] != static_cast<unsigned char>(i * 13);
  EXPECT_EQ(bad, 0u);
  shmem_free(heap);
  rdsm_dsm_free(d);
}

TEST(Dsm, SystemCallsReachDsmMemoryAfterATouch) {
  // The kernel does not fault DSM pages in for a system call: write() from a page that is not present here
  // fails with EFAULT. rdsm_dsm_touch makes the range present for reading, or for writing.
  const size_t page = rdsm_dsm_page_size();
  const size_t n = std::min<size_t>(3 * page, 32768);  // within a pipe's capacity
  auto* d = static_cast<unsigned char*>(rdsm_dsm_alloc_placed(3 * page, RDSM_DSM_ON_PE, 0));
  if (me() == 0)
    for (size_t i = 0; i < n; ++i) d[i] = static_cast<unsigned char>(i * 7 + 1);
  rdsm_dsm_barrier();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::vector<unsigned char> out(n);
  if (me() == npes() - 1) {
    errno = 0;
    EXPECT_EQ(write(fds[1], d, n), -1) << "a page never touched here was present";
    EXPECT_EQ(errno, EFAULT);
    rdsm_dsm_touch(d, n, RDSM_DSM_TOUCH_READ);
    ASSERT_EQ(write(fds[1], d, n), static_cast<ssize_t>(n));
    ASSERT_EQ(read(fds[0], out.data(), n), static_cast<ssize_t>(n));
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], static_cast<unsigned char>(i * 7 + 1)) << "byte " << i;
    // And into DSM memory: read() from the pipe into pages of PE 0, visible everywhere after a barrier.
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<unsigned char>(i * 5 + 3);
    ASSERT_EQ(write(fds[1], out.data(), n), static_cast<ssize_t>(n));
    rdsm_dsm_touch(d, n, RDSM_DSM_TOUCH_WRITE);
    ASSERT_EQ(read(fds[0], d, n), static_cast<ssize_t>(n));
  }
  close(fds[0]);
  close(fds[1]);
  rdsm_dsm_barrier();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += d[i] != static_cast<unsigned char>(i * 5 + 3);
  EXPECT_EQ(bad, 0u);
  rdsm_dsm_barrier();
  rdsm_dsm_free(d);
}

}  // namespace
