// Release consistency's paths on several PEs, each checked by the values the program sees and by the counters
// (rdsm_dsm_stats) that show the path was taken: write-back of diffs at release, writers of one page merged
// at its home, self-invalidation of written pages only, the home's writes to pages others copied, the
// early write-back of a written copy that an acquire finds stale, prefetch, and locks. Counts are read only
// where no PE can be ahead: every DSM barrier whose effects are counted is followed by shmem_barrier_all
// before any PE writes again (a PE past a barrier could otherwise publish notices that a slower PE's
// acquire of the same barrier collects).
#include <gtest/gtest.h>
#include <rdsm/dsm.h>
#include <sched.h>
#include <shmem.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "dsm_test_env.hpp"

namespace {

using namespace dsm_test;

// Counter changes since a snapshot.
struct counts {
  rdsm_dsm_stats_t at;
  counts() { rdsm_dsm_stats(&at); }
  rdsm_dsm_stats_t since(const counts& before) const {
    rdsm_dsm_stats_t d = at;
    d.read_faults -= before.at.read_faults;
    d.write_faults -= before.at.write_faults;
    d.fetches -= before.at.fetches;
    d.invalidations -= before.at.invalidations;
    d.diffs -= before.at.diffs;
    d.diff_bytes -= before.at.diff_bytes;
    d.notices -= before.at.notices;
    d.write_backs -= before.at.write_backs;
    d.requests_served -= before.at.requests_served;
    return d;
  }
};

// Whether a write to a page without access is reported as a write fault at once (the CPU says so); elsewhere
// it is served as a read first.
constexpr bool write_faults_decoded =
#if defined(__x86_64__) || defined(__aarch64__)
    true;
#else
    false;
#endif

// Barriers with `touch` (the test's reads) before each and after the last, until homes have learnt of the
// copies taken and closed their pages again (a home notices a page once when it learns of a copy, and
// keeps a page it wrote writable for a few releases).
void settle(const std::function<void()>& touch, int barriers = 6) {
  for (int i = 0; i < barriers; ++i) {
    touch();
    rdsm_dsm_barrier();
  }
  touch();
  shmem_barrier_all();
}

class Release : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!release_mode()) GTEST_SKIP() << "release consistency's paths";
  }
};

// (a) A non-home writer's bytes reach the home's frame at release, as a diff of exactly the bytes changed.
TEST_F(Release, AWritersChangesReachTheHomeAsADiffOfTheChangedBytes) {
  const size_t page = rdsm_dsm_page_size();
  auto* p = static_cast<unsigned char*>(rdsm_dsm_alloc_placed(page, RDSM_DSM_ON_PE, 0));
  const int writer = npes() - 1;
  const counts before;
  shmem_barrier_all();
  if (me() == writer) {
    for (size_t i = 10; i < 20; ++i) p[i] = static_cast<unsigned char>(i + 1);  // 10 bytes
    p[100] = 0xab;                                                               // 1
    p[200] = 0;  // stores its old value: no change, nothing sent
    for (size_t i = page - 96; i < page; ++i) p[i] = static_cast<unsigned char>(0x80 | (i & 0x7f));  // 96
  }
  const counts wrote;
  rdsm_dsm_barrier();
  const counts released;
  shmem_barrier_all();
  auto expected = [&](size_t i) -> unsigned {
    if (i >= 10 && i < 20) return static_cast<unsigned>(i + 1);
    if (i == 100) return 0xab;
    if (i >= page - 96) return 0x80 | (i & 0x7f);
    return 0;
  };
  for (size_t i = 0; i < page; ++i) ASSERT_EQ(p[i], expected(i)) << "byte " << i << " on PE " << me();
  const counts checked;
  if (me() == 0) {
    const rdsm_dsm_stats_t d = checked.since(before);
    EXPECT_EQ(d.read_faults, 0u) << "the home reads its own frame";
    EXPECT_EQ(d.write_faults, 0u);
    EXPECT_EQ(d.fetches, 0u);
  }
  if (me() == writer) {
    const rdsm_dsm_stats_t w = wrote.since(before);
    EXPECT_EQ(w.fetches, 1u) << "a write fault copies its page and no other";
    if (write_faults_decoded) {
      EXPECT_EQ(w.write_faults, 1u);
      EXPECT_EQ(w.read_faults, 0u);
    }
    EXPECT_EQ(w.diffs, 0u) << "nothing is sent before the release";
    const rdsm_dsm_stats_t d = released.since(wrote);
    EXPECT_EQ(d.diffs, 1u) << "one page written";
    EXPECT_EQ(d.diff_bytes, 107u) << "only the bytes that changed travel";
    EXPECT_EQ(d.notices, 1u);
  }
  if (me() != 0 && me() != writer) {
    const rdsm_dsm_stats_t d = checked.since(released);
    EXPECT_EQ(d.read_faults, 1u);
    EXPECT_EQ(d.fetches, 1u);
  }
  // The next interval: the writer changes 5 bytes of the page it holds.
  rdsm_dsm_barrier();
  const counts again;
  shmem_barrier_all();
  if (me() == writer)
    for (size_t i = 0; i < 5; ++i) p[1000 + i * 3] = static_cast<unsigned char>(7 + i);
  rdsm_dsm_barrier();
  const counts after;
  shmem_barrier_all();
  for (size_t i = 0; i < 5; ++i) ASSERT_EQ(p[1000 + i * 3], 7 + i) << "on PE " << me();
  EXPECT_EQ(p[19], 20) << "the first interval's bytes are still there";
  if (me() == writer) {
    EXPECT_EQ(after.since(again).diffs, 1u);
    EXPECT_EQ(after.since(again).diff_bytes, 5u);
  }
  rdsm_dsm_barrier();
  rdsm_dsm_free(p);
}

// (b) Two writers of alternate bytes of the same words of one page: both merged at the home, seen by every
// PE. On 2 PEs the home is one of the writers; on more, neither is, and the others read.
TEST_F(Release, WritersOfAlternateBytesOfOnePageMergeAtTheHome) {
  const size_t page = rdsm_dsm_page_size();
  auto* p = static_cast<unsigned char*>(rdsm_dsm_alloc_placed(page, RDSM_DSM_ON_PE, 0));
  const int a = npes() >= 3 ? 1 : 0;
  const int b = npes() >= 3 ? 2 : 1;
  constexpr size_t span = 512;  // a writes the even bytes of [0, span), b the odd ones
  constexpr int rounds = 5;
  auto value = [](int round, size_t i) { return static_cast<unsigned char>(round * 16 + 1 + (i & 1)); };
  const counts before;
  shmem_barrier_all();
  for (int round = 1; round <= rounds; ++round) {
    if (me() == a || me() == b)
      for (size_t i = me() == a ? 0 : 1; i < span; i += 2) p[i] = value(round, i);
    shmem_barrier_all();  // both copies are written before either writer releases: each holds the other's old bytes
    rdsm_dsm_barrier();
    for (size_t i = 0; i < span; ++i)
      ASSERT_EQ(p[i], value(round, i)) << "byte " << i << ", round " << round << ", on PE " << me();
    for (size_t i = span; i < page; ++i) ASSERT_EQ(p[i], 0) << "byte " << i << " was never written";
    rdsm_dsm_barrier();
    shmem_barrier_all();  // no writer's next round starts before every acquire of this one is over
  }
  const counts after;
  const rdsm_dsm_stats_t d = after.since(before);
  if ((me() == a || me() == b) && me() != 0) {
    EXPECT_EQ(d.diffs, static_cast<uint64_t>(rounds)) << "one diff per round";
    EXPECT_EQ(d.diff_bytes, rounds * span / 2) << "a diff carries this writer's bytes, none of the other's";
  }
  if (me() == 0) {
    EXPECT_EQ(d.read_faults, 0u) << "the home reads the merged page in its own frame";
    EXPECT_EQ(d.diffs, 0u) << "the home writes its frame itself";
  }
  rdsm_dsm_free(p);
}

// (c) Copies are invalidated at an acquire only when some PE wrote their page in the interval before.
TEST_F(Release, ACopyIsInvalidatedOnlyAfterAWriteToItsPage) {
  const size_t page = rdsm_dsm_page_size();
  auto* p = static_cast<volatile long*>(rdsm_dsm_alloc_placed(page, RDSM_DSM_ON_PE, 0));
  // On 2 PEs the home writes (its tracked write path); on more a PE that is not the home writes.
  const int writer = npes() >= 3 ? 2 : 0;
  const bool reader = me() != 0 && me() != writer;
  if (me() == 0) p[0] = 1;
  rdsm_dsm_barrier();
  long sum = 0;
  settle([&] { sum += p[0]; });
  EXPECT_EQ(sum, 7);
  // Intervals with (true) and without (false) a write of p[0]: a page written once, written in turn, and
  // left alone long enough for its writer to close it.
  const std::vector<bool> written{true, false, true, false, false, false, false, true, true, false, true};
  long value = 1;
  for (size_t k = 0; k < written.size(); ++k) {
    const counts last;  // after the previous interval's reads (a dropped copy is fetched again by them)
    shmem_barrier_all();
    if (written[k]) ++value;
    if (written[k] && me() == writer) p[0] = value;
    rdsm_dsm_barrier();
    const counts now;
    shmem_barrier_all();
    const rdsm_dsm_stats_t d = now.since(last);
    const uint64_t w = written[k] ? 1 : 0;
    ASSERT_EQ(p[0], value) << "interval " << k << " on PE " << me();
    // The writer's own page and the home's frame are never stale.
    EXPECT_EQ(d.invalidations, reader ? w : 0) << "interval " << k << " on PE " << me();
    EXPECT_EQ(d.notices, me() == writer ? w : 0) << "interval " << k << " on PE " << me();
    if (reader && !written[k]) {
      EXPECT_EQ(d.read_faults, 0u) << "interval " << k << ": an unwritten copy survives";
      EXPECT_EQ(d.fetches, 0u) << "interval " << k;
    }
  }
  rdsm_dsm_barrier();
  rdsm_dsm_free(const_cast<long*>(p));
}

// (c) A home's writes to pages nobody copied cost nothing: no fault, no notice, no invalidation anywhere.
// Once another PE holds a copy, the same writes are noticed.
TEST_F(Release, PagesWrittenOnlyByTheirHomeProduceNoNotices) {
  const size_t page = rdsm_dsm_page_size();
  const size_t words = page / sizeof(long);
  const auto n = static_cast<size_t>(npes());
  auto* p = static_cast<long*>(rdsm_dsm_alloc_placed(2 * n * page, RDSM_DSM_BLOCK, 0));
  long* mine = p + 2 * static_cast<size_t>(me()) * words;  // block placement: PE i homes pages 2i and 2i+1
  ASSERT_EQ(rdsm_dsm_home(mine), me());
  ASSERT_EQ(rdsm_dsm_home(mine + words), me());
  const counts before;
  shmem_barrier_all();
  for (long v = 1; v <= 5; ++v) {
    mine[1] = v;
    mine[words] = -v;
    rdsm_dsm_barrier();
    EXPECT_EQ(mine[1], v);
  }
  const counts after;
  shmem_barrier_all();
  const rdsm_dsm_stats_t d = after.since(before);
  EXPECT_EQ(d.notices, 0u);
  EXPECT_EQ(d.invalidations, 0u);
  EXPECT_EQ(d.write_faults, 0u);
  EXPECT_EQ(d.read_faults, 0u);
  EXPECT_EQ(d.fetches, 0u);
  EXPECT_EQ(d.diffs, 0u);
  // The next PE copies this PE's second page: from then on its writes to that page are noticed, and those
  // to its first page still are not (a read fault's prefetch runs forward, into the next PE's pages).
  const long* watched = p + (2 * static_cast<size_t>((me() + npes() - 1) % npes()) + 1) * words;  // previous PE's
  long seen = 0;
  settle([&] { seen = watched[0]; });
  EXPECT_EQ(seen, -5);
  const counts copied;
  shmem_barrier_all();
  for (long v = 6; v <= 8; ++v) {
    mine[1] = v;
    mine[words] = -v;
    rdsm_dsm_barrier();
    EXPECT_EQ(watched[0], -v) << "on PE " << me();
    shmem_barrier_all();
  }
  const counts written;
  EXPECT_EQ(written.since(copied).notices, 3u) << "one notice per interval, for the copied page only";
  EXPECT_EQ(written.since(copied).invalidations, 3u) << "this PE's copy of the previous PE's page";
  rdsm_dsm_barrier();
  rdsm_dsm_free(p);
}

// (d) A home writing pages that others copied, in many patterns over many intervals: each write reaches
// every copy at the next barrier, with one notice per page written and one invalidation per copy.
TEST_F(Release, TheHomesWritesToCopiedPagesReachEveryCopy) {
  const size_t page = rdsm_dsm_page_size();
  const size_t words = page / sizeof(long);
  constexpr size_t n_pages = 4;
  const int home = npes() - 1;
  auto* p = static_cast<volatile long*>(rdsm_dsm_alloc_placed(n_pages * page, RDSM_DSM_ON_PE, static_cast<size_t>(home)));
  std::vector<long> value(n_pages, 0);
  auto check = [&](const char* when) {
    for (size_t q = 0; q < n_pages; ++q)
      for (size_t at : {size_t{0}, words / 2, words - 1})
        ASSERT_EQ(p[q * words + at], value[q] == 0 ? 0 : value[q] + static_cast<long>(at))
            << "page " << q << " word " << at << " on PE " << me() << ", " << when;
  };
  settle([&] { check("settling"); });
  // The pages written in each interval (a bit per page); empty intervals let the home close its pages, so
  // later writes fault again.
  const std::vector<unsigned> pattern{0x1, 0x0, 0xf, 0x4, 0x4, 0x4, 0x0, 0x0, 0x0, 0x0, 0xa, 0xf, 0x0, 0x1};
  const counts first;
  uint64_t total = 0;
  for (size_t k = 0; k < pattern.size(); ++k) {
    const counts last;
    shmem_barrier_all();
    const auto n_written = static_cast<uint64_t>(__builtin_popcount(pattern[k]));
    total += n_written;
    for (size_t q = 0; q < n_pages; ++q) {
      if ((pattern[k] >> q & 1) == 0) continue;
      value[q] = static_cast<long>(1000 * (k + 1) + 10 * q);
      if (me() == home)
        for (size_t at : {size_t{0}, words / 2, words - 1}) p[q * words + at] = value[q] + static_cast<long>(at);
    }
    rdsm_dsm_barrier();
    const counts now;
    shmem_barrier_all();
    check("after the barrier");
    const rdsm_dsm_stats_t d = now.since(last);
    if (me() == home) {
      EXPECT_EQ(d.notices, n_written) << "interval " << k;
      EXPECT_EQ(d.invalidations, 0u);
    } else {
      EXPECT_EQ(d.invalidations, n_written) << "interval " << k << " on PE " << me();
      EXPECT_EQ(d.notices, 0u);
    }
  }
  const counts end;
  if (me() == home) {
    EXPECT_EQ(end.since(first).notices, total);
    EXPECT_GE(end.since(first).write_faults, 5u) << "pages closed after quiet intervals fault again";
  }
  rdsm_dsm_barrier();
  rdsm_dsm_free(const_cast<long*>(p));
}

// (e) A PE holding a written copy acquires (a lock) where another PE's notice names the page: its own
// bytes go to the home first, then the copy is refreshed, and both PEs' bytes survive.
TEST_F(Release, AWrittenCopyFoundStaleAtALockIsWrittenBackFirst) {
  const size_t page = rdsm_dsm_page_size();
  auto* p = static_cast<volatile unsigned char*>(rdsm_dsm_alloc_placed(page, RDSM_DSM_ON_PE, 0));
  rdsm_dsm_lock_t* lock = rdsm_dsm_lock_create();
  const int a = 1;                         // holds the copy it writes
  const int b = npes() >= 3 ? 2 : 0;       // writes other bytes of the page (on 2 PEs: the home)
  unsigned sum = 0;
  settle([&] { sum += p[0]; });  // a holds a copy, which the home tracks
  for (int round = 1; round <= 3; ++round) {
    const auto va = static_cast<unsigned char>(0x10 * round + 0xa);
    const auto vb = static_cast<unsigned char>(0x10 * round + 0xb);
    // a's bytes and b's share 8-byte words: [0, 4) and [4, 8), [100, 101) and [101, 102).
    if (me() == a) {
      for (size_t i = 0; i < 4; ++i) p[i] = va;
      p[100] = va;
    }
    if (me() == b) {
      for (size_t i = 4; i < 8; ++i) p[i] = vb;
      p[101] = vb;
      rdsm_dsm_lock(lock);
      rdsm_dsm_unlock(lock);  // publishes b's notice of the page
    }
    shmem_barrier_all();  // b's unlock comes before a's lock
    if (me() == a) {
      const counts before;
      rdsm_dsm_lock(lock);
      const counts locked;
      for (size_t i = 0; i < 4; ++i) EXPECT_EQ(p[i], va) << "a's own byte " << i << ", round " << round;
      for (size_t i = 4; i < 8; ++i) EXPECT_EQ(p[i], vb) << "b's byte " << i << " under the lock, round " << round;
      EXPECT_EQ(p[100], va);
      EXPECT_EQ(p[101], vb);
      rdsm_dsm_unlock(lock);
      const counts unlocked;
      const rdsm_dsm_stats_t at_lock = locked.since(before);
      EXPECT_EQ(at_lock.invalidations, 1u) << "round " << round;
      EXPECT_EQ(at_lock.diffs, 1u) << "a's bytes went to the home at the acquire, round " << round;
      EXPECT_EQ(at_lock.diff_bytes, 5u) << "round " << round;
      const rdsm_dsm_stats_t at_unlock = unlocked.since(locked);
      EXPECT_EQ(at_unlock.notices, 1u) << "the early write-back is noticed at the next release, round " << round;
      EXPECT_EQ(at_unlock.diffs, 0u) << "and not sent again, round " << round;
    }
    shmem_barrier_all();  // a's unlock comes before b's lock
    if (me() == b) {
      rdsm_dsm_lock(lock);
      for (size_t i = 0; i < 4; ++i) EXPECT_EQ(p[i], va) << "a's byte " << i << " at b under the lock, round " << round;
      for (size_t i = 4; i < 8; ++i) EXPECT_EQ(p[i], vb) << "b's own byte " << i << ", round " << round;
      rdsm_dsm_unlock(lock);
    }
    rdsm_dsm_barrier();
    for (size_t i = 0; i < 8; ++i) ASSERT_EQ(p[i], i < 4 ? va : vb) << "byte " << i << " on PE " << me();
    ASSERT_EQ(p[100], va);
    ASSERT_EQ(p[101], vb);
    rdsm_dsm_barrier();
    shmem_barrier_all();  // every acquire of the round is over before b publishes the next round's notice
  }
  rdsm_dsm_lock_destroy(lock);
  rdsm_dsm_free(const_cast<unsigned char*>(p));
}

// (e) The same with the explicit fences: rdsm_dsm_release at b, rdsm_dsm_acquire at a.
TEST_F(Release, AWrittenCopyFoundStaleAtAnAcquireIsWrittenBackFirst) {
  const size_t page = rdsm_dsm_page_size();
  auto* p = static_cast<volatile unsigned char*>(rdsm_dsm_alloc_placed(page, RDSM_DSM_ON_PE, 0));
  const int a = 1;
  const int b = npes() >= 3 ? 2 : 0;
  unsigned sum = 0;
  settle([&] { sum += p[2048]; });
  if (me() == a)
    for (size_t i = 2048; i < 2048 + 64; i += 2) p[i] = 'a';
  if (me() == b) {
    for (size_t i = 2049; i < 2048 + 64; i += 2) p[i] = 'b';
    rdsm_dsm_release();
  }
  shmem_barrier_all();
  if (me() == a) {
    const counts before;
    rdsm_dsm_acquire();
    const counts acquired;
    for (size_t i = 2048; i < 2048 + 64; ++i) EXPECT_EQ(p[i], i % 2 == 0 ? 'a' : 'b') << "byte " << i;
    const rdsm_dsm_stats_t d = acquired.since(before);
    EXPECT_EQ(d.invalidations, 1u);
    EXPECT_EQ(d.diffs, 1u);
    EXPECT_EQ(d.diff_bytes, 32u);
    rdsm_dsm_release();
  }
  shmem_barrier_all();
  if (me() == b) {
    rdsm_dsm_acquire();
    for (size_t i = 2048; i < 2048 + 64; ++i) EXPECT_EQ(p[i], i % 2 == 0 ? 'a' : 'b') << "byte " << i << " at b";
  }
  rdsm_dsm_barrier();
  for (size_t i = 2048; i < 2048 + 64; ++i) ASSERT_EQ(p[i], i % 2 == 0 ? 'a' : 'b') << "byte " << i << " on PE " << me();
  rdsm_dsm_barrier();
  rdsm_dsm_free(const_cast<unsigned char*>(p));
}

// (f) A read fault copies the following pages of the same home that this PE does not hold: with the default
// 8, a fault on the first of 16 pages copies 8 of them.
TEST_F(Release, PrefetchCopiesARunOfPagesPerReadFault) {
  const size_t page = rdsm_dsm_page_size();
  constexpr size_t n_pages = 16;
  auto* p = static_cast<volatile char*>(rdsm_dsm_alloc_placed(n_pages * page, RDSM_DSM_ON_PE, 0));
  if (me() == 0)
    for (size_t q = 0; q < n_pages; ++q) p[q * page + 5] = static_cast<char>(q + 1);
  rdsm_dsm_barrier();
  if (me() != 0) {
    const uint64_t run = std::min<uint64_t>(prefetch(), n_pages);
    const counts before;
    EXPECT_EQ(p[5], 1);
    const counts first;
    EXPECT_EQ(first.since(before).read_faults, 1u);
    EXPECT_EQ(first.since(before).fetches, run) << "RDSM_DSM_PREFETCH=" << prefetch();
    for (size_t q = 1; q < run; ++q) EXPECT_EQ(p[q * page + 5], static_cast<char>(q + 1));
    const counts rest_of_run;
    EXPECT_EQ(rest_of_run.since(first).read_faults, 0u) << "the run's pages were copied by the first fault";
    long sum = 0;
    for (size_t q = 0; q < n_pages; ++q) sum += p[q * page + 5];
    const counts all;
    EXPECT_EQ(sum, static_cast<long>(n_pages * (n_pages + 1) / 2));
    EXPECT_EQ(all.since(before).read_faults, (n_pages + run - 1) / run);
    EXPECT_EQ(all.since(before).fetches, n_pages) << "each page copied once";
  }
  rdsm_dsm_barrier();
  rdsm_dsm_free(const_cast<char*>(p));
}

// (f) A run stops at a page of another home and at a page this PE holds already.
TEST_F(Release, PrefetchStopsAtAnotherHomeAndAtAPageHeld) {
  const size_t page = rdsm_dsm_page_size();
  // Blocks of 4 pages dealt round robin: pages 0-3 at PE 0, 4-7 at PE 1.
  auto* p = static_cast<volatile char*>(rdsm_dsm_alloc_placed(8 * page, RDSM_DSM_CYCLIC, 4 * page));
  ASSERT_EQ(rdsm_dsm_home(const_cast<char*>(p) + 3 * page), 0);
  ASSERT_EQ(rdsm_dsm_home(const_cast<char*>(p) + 4 * page), 1);
  if (me() == 0)
    for (size_t q = 0; q < 4; ++q) p[q * page] = static_cast<char>(q + 1);
  rdsm_dsm_barrier();
  if (me() == npes() - 1) {  // holds none of pages 0-3
    // The protocol's rule, for the pages this PE reads in this order: a fault copies the page and the
    // following ones up to the prefetch count, the change of home, or a page held.
    std::vector<bool> held(4, false);
    uint64_t faults = 0, copies = 0;
    const counts before;
    for (size_t q : {1, 0, 2, 3}) {
      EXPECT_EQ(p[q * page], static_cast<char>(q + 1)) << "page " << q;
      if (held[q]) continue;
      ++faults;
      for (size_t r = q; r < 4 && r < q + prefetch() && (r == q || !held[r]); ++r) {
        held[r] = true;
        ++copies;
      }
    }
    const counts after;
    EXPECT_EQ(after.since(before).read_faults, faults) << "RDSM_DSM_PREFETCH=" << prefetch();
    EXPECT_EQ(after.since(before).fetches, copies) << "RDSM_DSM_PREFETCH=" << prefetch();
    EXPECT_EQ(copies, 4u);
  }
  rdsm_dsm_barrier();
  rdsm_dsm_free(const_cast<char*>(p));
}

// (g) A counter incremented under a lock by every PE many times ends exact, and a record written under the
// lock on another page (another home) is seen by the next holder without a barrier.
TEST_F(Release, ALockedCounterEndsExactAndTheNextHolderSeesTheRecord) {
  const size_t page = rdsm_dsm_page_size();
  constexpr int rounds = 100;
  const int total = rounds * npes();
  // The counter's page at the last PE; records 512 bytes apart on pages dealt round robin from PE 0.
  constexpr size_t stride = 64;
  auto* counter = static_cast<volatile long*>(rdsm_dsm_alloc_placed(page, RDSM_DSM_ON_PE, static_cast<size_t>(npes() - 1)));
  auto* record = static_cast<volatile long*>(
      rdsm_dsm_alloc_placed(static_cast<size_t>(total) * stride * sizeof(long), RDSM_DSM_CYCLIC, 0));
  rdsm_dsm_lock_t* lock = rdsm_dsm_lock_create();
  for (int r = 0; r < rounds; ++r) {
    rdsm_dsm_lock(lock);  // failures are counted, not returned from, under the lock (the others wait on it)
    const long n = *counter;
    if (n > 0) {
      EXPECT_EQ(record[static_cast<size_t>(n - 1) * stride] / 64, n - 1) << "the previous holder's record";
    }
    if (n < total) record[static_cast<size_t>(n) * stride] = n * 64 + me();
    *counter = n + 1;
    rdsm_dsm_unlock(lock);
  }
  rdsm_dsm_barrier();
  ASSERT_EQ(*counter, total) << "an increment under the lock was lost";
  std::vector<int> per_pe(static_cast<size_t>(npes()), 0);
  for (int i = 0; i < total; ++i) {
    const long rec = record[static_cast<size_t>(i) * stride];
    ASSERT_EQ(rec / 64, i);
    ASSERT_LT(rec % 64, npes());
    ++per_pe[static_cast<size_t>(rec % 64)];
  }
  for (int pe = 0; pe < npes(); ++pe) EXPECT_EQ(per_pe[static_cast<size_t>(pe)], rounds) << "PE " << pe;
  rdsm_dsm_barrier();
  rdsm_dsm_lock_destroy(lock);
  rdsm_dsm_free(const_cast<long*>(record));
  rdsm_dsm_free(const_cast<long*>(counter));
}

// (g) Turns handed from PE to PE under one lock, no barrier: each holder finds the previous PE's value.
TEST_F(Release, TurnsPassUnderALockInPeOrder) {
  const size_t page = rdsm_dsm_page_size();
  constexpr long rounds = 30;
  auto* turn = static_cast<volatile long*>(rdsm_dsm_alloc_placed(2 * page, RDSM_DSM_ON_PE, 0));
  volatile long* data = turn + page / sizeof(long);  // another page
  rdsm_dsm_lock_t* lock = rdsm_dsm_lock_create();
  for (long r = 0; r < rounds; ++r) {
    const long mine = r * npes() + me();
    for (;;) {
      rdsm_dsm_lock(lock);
      const long t = *turn;
      if (t == mine) {
        if (t > 0) {
          EXPECT_EQ(data[0], 1000 + t - 1) << "turn " << t << " on PE " << me();
        }
        data[0] = 1000 + t;
        *turn = t + 1;
        rdsm_dsm_unlock(lock);
        break;
      }
      rdsm_dsm_unlock(lock);
      if (t > mine) {
        ADD_FAILURE() << "turn " << mine << " was skipped";
        break;
      }
      sched_yield();
    }
  }
  rdsm_dsm_barrier();
  EXPECT_EQ(*turn, rounds * npes());
  EXPECT_EQ(data[0], 1000 + rounds * npes() - 1);
  rdsm_dsm_barrier();
  rdsm_dsm_lock_destroy(lock);
  rdsm_dsm_free(const_cast<long*>(turn));
}

// (g) Two counters on one page, each under its own lock, incremented concurrently: the writers of the page
// merge at its home and neither lock's increments are lost.
TEST_F(Release, CountersSharingAPageUnderTwoLocksEndExact) {
  const size_t page = rdsm_dsm_page_size();
  constexpr int rounds = 60;
  auto* c = static_cast<volatile long*>(rdsm_dsm_alloc_placed(page, RDSM_DSM_ON_PE, 0));
  rdsm_dsm_lock_t* locks[2] = {rdsm_dsm_lock_create(), rdsm_dsm_lock_create()};
  for (int r = 0; r < rounds; ++r) {
    const int which = (r + me()) % 2;
    rdsm_dsm_lock(locks[which]);
    c[which] = c[which] + 1;
    rdsm_dsm_unlock(locks[which]);
  }
  rdsm_dsm_barrier();
  EXPECT_EQ(c[0] + c[1], rounds * npes()) << "on PE " << me();
  const long expected0 = [&] {
    long n = 0;
    for (int pe = 0; pe < npes(); ++pe)
      for (int r = 0; r < rounds; ++r) n += (r + pe) % 2 == 0;
    return n;
  }();
  EXPECT_EQ(c[0], expected0);
  rdsm_dsm_barrier();
  rdsm_dsm_lock_destroy(locks[1]);
  rdsm_dsm_lock_destroy(locks[0]);
  rdsm_dsm_free(const_cast<long*>(c));
}

}  // namespace
