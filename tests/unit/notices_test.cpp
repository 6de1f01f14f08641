// Write-notice rings and the copy tracker (src/dsm/notices.cpp) between PEs of one process: each "PE" has a
// region of its own, reached by the others through an in-memory remote_memory that counts what it is asked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "dsm/notices.hpp"
#include "dsm/remote.hpp"

using namespace rdsm::detail::dsm;

namespace {

constexpr uint64_t capacity = 16;
// A PE's region: the ring's tail, the tracker's counter (each on a cache line of its own), the ring's
// entries, the tracker's bits.
constexpr ring_layout ring{0, 128, capacity};
constexpr tracker_layout tracked{64, 1024};
constexpr uint32_t n_pages = 300;  // five words of bits
constexpr size_t region_bytes = 2048;
static_assert(ring.entries_offset + capacity * sizeof(uint64_t) <= tracked.bits_offset);

// Every PE's region, in 8-byte words; writes are held until flush, as a remote write_nbi may be.
class fake_memory final : public remote_memory {
 public:
  explicit fake_memory(int n_pes) : regions_(static_cast<size_t>(n_pes)) {
    for (auto& r : regions_) r.assign(region_bytes / sizeof(uint64_t), 0);
  }
  char* region(int pe) { return reinterpret_cast<char*>(regions_[static_cast<size_t>(pe)].data()); }
  uint64_t* word(int pe, uint64_t offset) { return reinterpret_cast<uint64_t*>(region(pe) + offset); }

  uint64_t load(int pe, uint64_t offset) override {
    ++loads;
    return __atomic_load_n(word(pe, offset), __ATOMIC_SEQ_CST);
  }
  void atomic_or(int pe, uint64_t offset, uint64_t bits) override {
    ++atomics;
    __atomic_fetch_or(word(pe, offset), bits, __ATOMIC_SEQ_CST);
  }
  void atomic_add(int pe, uint64_t offset, uint64_t value) override {
    ++atomics;
    __atomic_fetch_add(word(pe, offset), value, __ATOMIC_SEQ_CST);
  }
  void read(int pe, uint64_t offset, void* dst, size_t n) override {
    ++reads;
    ASSERT_LE(offset + n, region_bytes) << "a read past PE " << pe << "'s region";
    if (before_read) before_read();
    std::memcpy(dst, region(pe) + offset, n);
  }
  void write_nbi(int pe, uint64_t offset, const void* src, size_t n) override {
    const auto* p = static_cast<const char*>(src);
    pending_.push_back({pe, offset, std::vector<char>(p, p + n)});
  }
  void flush() override {
    ++flushes;
    for (const auto& w : pending_) std::memcpy(region(w.pe) + w.offset, w.bytes.data(), w.bytes.size());
    pending_.clear();
  }
  bool near(int) override { return same_host; }

  bool same_host = true;
  uint64_t loads = 0, reads = 0, atomics = 0, flushes = 0;
  std::function<void()> before_read;  // runs before each read: a publisher racing with a collector

 private:
  struct write {
    int pe;
    uint64_t offset;
    std::vector<char> bytes;
  };
  std::vector<std::vector<uint64_t>> regions_;
  std::vector<write> pending_;
};

// n PEs, each with its ring over the fake's regions.
class Rings {
 public:
  explicit Rings(int n) : mem(n) {
    for (int pe = 0; pe < n; ++pe)
      rings_.push_back(std::make_unique<notice_rings>(mem, pe, n, ring, mem.word(pe, ring.tail_offset),
                                                      reinterpret_cast<uint64_t*>(mem.region(pe) + ring.entries_offset)));
  }
  notice_rings& operator[](int pe) { return *rings_[static_cast<size_t>(pe)]; }
  std::vector<uint32_t> collect(int pe, bool expect_complete = true) {
    std::vector<uint32_t> out;
    EXPECT_EQ((*this)[pe].collect(out), expect_complete) << "PE " << pe << "'s collect";
    return out;
  }
  fake_memory mem;

 private:
  std::vector<std::unique_ptr<notice_rings>> rings_;
};

std::vector<uint32_t> sorted(std::vector<uint32_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<uint32_t> range(uint32_t first, uint32_t n) {
  std::vector<uint32_t> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

TEST(NoticeRings, NothingPublishedNothingCollectedForOneLoadPerPeer) {
  Rings r(4);
  r[2].publish({});  // an empty release publishes nothing
  EXPECT_EQ(r[2].published(), 0u);
  r.mem.loads = r.mem.reads = 0;
  for (int pe = 0; pe < 4; ++pe) EXPECT_TRUE(r.collect(pe).empty()) << "PE " << pe;
  EXPECT_EQ(r.mem.loads, 4u * 3) << "each collector loads each peer's tail once";
  EXPECT_EQ(r.mem.reads, 0u) << "and reads no entries";
}

TEST(NoticeRings, EachPeSeesEveryOtherPesNoticesOnceAndNotItsOwn) {
  Rings r(4);
  for (int pe = 0; pe < 4; ++pe) r[pe].publish({static_cast<uint32_t>(100 * pe + 1), static_cast<uint32_t>(100 * pe + 2)});
  for (int pe = 0; pe < 4; ++pe) {
    std::vector<uint32_t> expected;
    for (int from = 0; from < 4; ++from)
      if (from != pe) expected.insert(expected.end(), {static_cast<uint32_t>(100 * from + 1), static_cast<uint32_t>(100 * from + 2)});
    EXPECT_EQ(sorted(r.collect(pe)), sorted(expected)) << "PE " << pe;
    EXPECT_TRUE(r.collect(pe).empty()) << "PE " << pe << " collected the same notices twice";
  }
  // New notices of one PE reach the others, once, and not the publisher.
  r[1].publish({7});
  EXPECT_TRUE(r.collect(1).empty());
  for (int pe : {0, 2, 3}) {
    EXPECT_EQ(r.collect(pe), std::vector<uint32_t>{7}) << "PE " << pe;
    EXPECT_TRUE(r.collect(pe).empty()) << "PE " << pe;
  }
}

TEST(NoticeRings, CollectAppendsInPublishingOrder) {
  Rings r(2);
  r[0].publish({5, 3, 9});
  r[0].publish({3, 1});  // a page noticed at two releases is named twice
  std::vector<uint32_t> out{42};
  EXPECT_TRUE(r[1].collect(out));
  EXPECT_EQ(out, (std::vector<uint32_t>{42, 5, 3, 9, 3, 1})) << "collect keeps what `out` held";
}

TEST(NoticeRings, NoticesWrapAroundTheEndOfTheRing) {
  Rings r(3);
  uint32_t next = 0;
  // Batches of 5 and 7 against a capacity of 16: the ranges read start and end all over the ring, and many
  // of them cross its end.
  for (int round = 0; round < 20; ++round) {
    const uint32_t n = round % 2 == 0 ? 5 : 7;
    const std::vector<uint32_t> batch = range(next, n);
    next += n;
    r[1].publish(batch);
    EXPECT_EQ(r.collect(0), batch) << "round " << round;
    EXPECT_EQ(r.collect(2), batch) << "round " << round;
  }
  EXPECT_EQ(r[1].published(), next);
  EXPECT_GT(next, 4 * capacity);
}

TEST(NoticeRings, ExactlyACapacityBehindIsStillComplete) {
  Rings r(2);
  r[0].publish(range(0, 3));
  EXPECT_EQ(r.collect(1).size(), 3u);
  r[0].publish(range(10, capacity));  // fills the ring from slot 3 round to slot 2
  EXPECT_EQ(r.collect(1), range(10, capacity));
}

TEST(NoticeRings, AnOverrunRingMakesCollectReturnFalseOnce) {
  Rings r(3);
  r[0].publish(range(0, 10));
  r[0].publish(range(10, capacity - 9));  // capacity + 1 notices not collected
  r[2].publish({500});
  std::vector<uint32_t> out;
  EXPECT_FALSE(r[1].collect(out)) << "notices were overwritten: the caller must drop every copy";
  // The overrun ring is skipped; PE 2's ring is still collected.
  EXPECT_NE(std::find(out.begin(), out.end(), 500u), out.end());
  // Afterwards the collector is caught up: only new notices, and complete again.
  r[0].publish({77});
  EXPECT_EQ(r.collect(1), std::vector<uint32_t>{77});
  EXPECT_TRUE(r.collect(1).empty());
}

TEST(NoticeRings, APublisherWrappingOntoEntriesBeingReadMakesCollectReturnFalse) {
  Rings r(2);
  r[0].publish(range(0, 12));
  // Just before PE 1 reads the 12 entries, PE 0 publishes 8 more: the ring then holds 20 > 16 past PE 1's
  // position, and the entries PE 1 reads from slots 0 to 3 are PE 0's newer notices (their tags say so).
  bool once = false;
  r.mem.before_read = [&] {
    if (once) return;
    once = true;
    r[0].publish(range(100, 8));
  };
  std::vector<uint32_t> out;
  EXPECT_FALSE(r[1].collect(out));
  r.mem.before_read = nullptr;
  EXPECT_EQ(std::count(out.begin(), out.end(), 100u), 0) << "a newer notice was taken for an older one";
  r[0].publish({55});
  EXPECT_EQ(r.collect(1), std::vector<uint32_t>{55}) << "after an overrun the collector starts at the tail";
}

// A ring of a PE on another host: read without its tail, a window of entries at a time.
TEST(FarNoticeRings, EveryFarPeerIsReadInOneRoundTripWithoutItsTail) {
  Rings r(4);
  r.mem.same_host = false;
  r[0].publish({1, 2});
  r[2].publish({3});
  r.mem.loads = r.mem.reads = r.mem.flushes = 0;
  EXPECT_EQ(sorted(r.collect(1)), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(r.mem.loads, 0u) << "no tail is read";
  EXPECT_EQ(r.mem.flushes, 1u) << "the three peers' windows are in flight together";
  EXPECT_LE(r.mem.reads, 3u * 2) << "a window is at most two pieces (the ring's end)";
  r.mem.flushes = 0;
  EXPECT_TRUE(r.collect(1).empty());
  EXPECT_EQ(r.mem.flushes, 1u) << "nothing new: still one round trip";
}

TEST(FarNoticeRings, NoticesWrapAroundAndComeInOrder) {
  Rings r(2);
  r.mem.same_host = false;
  uint32_t next = 0;
  for (int round = 0; round < 20; ++round) {
    const uint32_t n = round % 3 == 0 ? capacity : 5;  // a full ring, and short batches across its end
    r[0].publish(range(next, n));
    EXPECT_EQ(r.collect(1), range(next, n)) << "round " << round;
    next += n;
  }
}

TEST(FarNoticeRings, AFullWindowIsFollowedByAnother) {
  // A ring larger than a window, so that one publication needs more than one read.
  constexpr uint64_t big = notice_rings::window + 32;
  std::vector<uint64_t> regions[2];
  for (auto& g : regions) g.assign(1 + big, 0);
  struct memory final : remote_memory {
    std::vector<uint64_t>* regions;
    uint64_t flushes = 0;
    uint64_t load(int pe, uint64_t offset) override { return regions[pe][offset / 8]; }
    void atomic_or(int, uint64_t, uint64_t) override {}
    void atomic_add(int, uint64_t, uint64_t) override {}
    void read(int pe, uint64_t offset, void* dst, size_t n) override {
      std::memcpy(dst, reinterpret_cast<char*>(regions[pe].data()) + offset, n);
    }
    void write_nbi(int, uint64_t, const void*, size_t) override {}
    void flush() override { ++flushes; }
  } mem;
  mem.regions = regions;
  const ring_layout layout{0, 8, big};
  notice_rings publisher(mem, 0, 2, layout, &regions[0][0], &regions[0][1]);
  notice_rings collector(mem, 1, 2, layout, &regions[1][0], &regions[1][1]);
  publisher.publish(range(1000, notice_rings::window + 10));
  std::vector<uint32_t> out;
  EXPECT_TRUE(collector.collect(out));
  EXPECT_EQ(out, range(1000, notice_rings::window + 10));
  EXPECT_EQ(mem.flushes, 2u) << "a full window, then the rest";
}

TEST(FarNoticeRings, AnOverrunIsFoundFromTheEntriesAndTheCollectorResumesAtTheTail) {
  Rings r(2);
  r.mem.same_host = false;
  r[0].publish(range(0, 4));
  EXPECT_EQ(r.collect(1), range(0, 4));
  r[0].publish(range(10, capacity + 3));  // the entry PE 1 reads next was overwritten
  std::vector<uint32_t> out;
  EXPECT_FALSE(r[1].collect(out)) << "an overwritten notice must make the caller drop every copy";
  r[0].publish({77});
  EXPECT_EQ(r.collect(1), std::vector<uint32_t>{77});
}

TEST(CopyTracker, ACopyIsTakenOnceAndItsBitCleared) {
  fake_memory mem(3);
  copy_tracker home(mem, tracked, mem.word(0, tracked.count_offset), mem.word(0, tracked.bits_offset), n_pages, false);
  copy_tracker reader(mem, tracked, mem.word(1, tracked.count_offset), mem.word(1, tracked.bits_offset), n_pages, false);
  reader.add_copy(5, 0);
  EXPECT_EQ(*mem.word(0, tracked.bits_offset), uint64_t{1} << 5) << "the home's bit for page 5";
  EXPECT_EQ(*mem.word(0, tracked.count_offset), 1u) << "a copy on the home's host is counted";
  std::vector<uint32_t> out;
  home.take(n_pages, out);
  EXPECT_EQ(out, std::vector<uint32_t>{5});
  EXPECT_EQ(*mem.word(0, tracked.bits_offset), 0u) << "take clears the bits it took";
  out.clear();
  home.take(n_pages, out);
  EXPECT_TRUE(out.empty()) << "a copy is taken once";
}

TEST(CopyTracker, SeveralCopiesOfOnePageAreOnePage) {
  fake_memory mem(4);
  copy_tracker home(mem, tracked, mem.word(0, tracked.count_offset), mem.word(0, tracked.bits_offset), n_pages, false);
  for (int pe = 1; pe < 4; ++pe) {
    copy_tracker t(mem, tracked, mem.word(pe, tracked.count_offset), mem.word(pe, tracked.bits_offset), n_pages, false);
    t.add_copy(9, 0);
  }
  std::vector<uint32_t> out;
  home.take(n_pages, out);
  EXPECT_EQ(out, std::vector<uint32_t>{9});
}

TEST(CopyTracker, PagesInSeveralWordsComeInOrder) {
  fake_memory mem(2);
  copy_tracker home(mem, tracked, mem.word(0, tracked.count_offset), mem.word(0, tracked.bits_offset), n_pages, false);
  copy_tracker reader(mem, tracked, mem.word(1, tracked.count_offset), mem.word(1, tracked.bits_offset), n_pages, false);
  const std::vector<uint32_t> pages{0, 1, 63, 64, 65, 127, 128, 200, 255, 256, n_pages - 1};
  for (auto it = pages.rbegin(); it != pages.rend(); ++it) reader.add_copy(*it, 0);
  std::vector<uint32_t> out;
  home.take(n_pages, out);
  EXPECT_EQ(out, pages);
  for (uint32_t w = 0; w < (n_pages + 63) / 64; ++w)
    EXPECT_EQ(*mem.word(0, tracked.bits_offset + w * 8), 0u) << "word " << w << " not cleared";
}

TEST(CopyTracker, AnUnchangedCounterSkipsTheScan) {
  fake_memory mem(2);
  uint64_t* bits = mem.word(0, tracked.bits_offset);
  copy_tracker home(mem, tracked, mem.word(0, tracked.count_offset), bits, n_pages, false);
  copy_tracker reader(mem, tracked, mem.word(1, tracked.count_offset), mem.word(1, tracked.bits_offset), n_pages, false);
  std::vector<uint32_t> out;
  home.take(n_pages, out);
  EXPECT_TRUE(out.empty());
  // A bit without a count (which a PE on this host never leaves): not looked at, so still set.
  bits[1] = uint64_t{1} << 3;
  home.take(n_pages, out);
  EXPECT_TRUE(out.empty()) << "the bits were scanned although the counter did not move";
  EXPECT_EQ(bits[1], uint64_t{1} << 3);
  // The next counted copy makes the home look at every word again.
  reader.add_copy(2, 0);
  home.take(n_pages, out);
  EXPECT_EQ(out, (std::vector<uint32_t>{2, 67}));
  // And the scan moved the home's mark: the counter unchanged since, no scan again.
  out.clear();
  bits[2] = 1;
  home.take(n_pages, out);
  EXPECT_TRUE(out.empty()) << "the bits were scanned although the counter did not move since the last take";
}

TEST(CopyTracker, CopiesFromAnotherHostAreFlaggedAndAlwaysLookedFor) {
  fake_memory mem(2);
  mem.same_host = false;
  copy_tracker home(mem, tracked, mem.word(0, tracked.count_offset), mem.word(0, tracked.bits_offset), n_pages, true);
  copy_tracker reader(mem, tracked, mem.word(1, tracked.count_offset), mem.word(1, tracked.bits_offset), n_pages, true);
  reader.add_copy(70, 0);
  EXPECT_EQ(mem.atomics, 1u) << "one remote atomic per copy across hosts";
  EXPECT_EQ(*mem.word(0, tracked.count_offset), 0u);
  std::vector<uint32_t> out;
  home.take(n_pages, out);
  EXPECT_EQ(out, std::vector<uint32_t>{70});
  out.clear();
  home.take(n_pages, out);
  EXPECT_TRUE(out.empty());
  reader.add_copy(71, 0);
  home.take(n_pages, out);
  EXPECT_EQ(out, std::vector<uint32_t>{71}) << "a copy from another host moves no counter, and is found";
}

TEST(CopyTracker, TakeLooksOnlyBelowTheLimitsWord) {
  fake_memory mem(2);
  copy_tracker home(mem, tracked, mem.word(0, tracked.count_offset), mem.word(0, tracked.bits_offset), n_pages, true);
  copy_tracker reader(mem, tracked, mem.word(1, tracked.count_offset), mem.word(1, tracked.bits_offset), n_pages, true);
  reader.add_copy(10, 0);
  reader.add_copy(130, 0);
  std::vector<uint32_t> out;
  home.take(64, out);
  EXPECT_EQ(out, std::vector<uint32_t>{10});
  EXPECT_EQ(*mem.word(0, tracked.bits_offset + 2 * 8), uint64_t{1} << 2) << "a bit above the limit stays";
  out.clear();
  home.take(n_pages, out);
  EXPECT_EQ(out, std::vector<uint32_t>{130});
}

}  // namespace
