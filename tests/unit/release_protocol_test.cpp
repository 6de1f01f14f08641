// The release-consistency protocol (src/dsm/release.cpp) between PEs of one process: each "PE" has its own
// page table, frames, twins and region (a memory file, which its view maps again, as in space), and reaches
// the others' regions through an in-memory remote_memory. The tests play the program's stores into the
// frames (what a store through an open view does) and call fault, release and acquire as the signal
// handler and the synchronization calls would.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

#include "dsm/notices.hpp"
#include "dsm/page_table.hpp"
#include "dsm/release.hpp"
#include "dsm/remote.hpp"

using namespace rdsm::detail::dsm;

namespace {

constexpr uint32_t n_pages = 32;
constexpr unsigned shift = 12;
constexpr size_t page = size_t{1} << shift;
constexpr size_t frames_bytes = n_pages * page;
constexpr uint64_t ring_capacity = 16;
// Region of a PE: its frames, then the ring's tail, the tracker's counter, the ring's entries, the bits.
constexpr ring_layout rings{frames_bytes, frames_bytes + 128, ring_capacity};
constexpr tracker_layout tracker{frames_bytes + 64, frames_bytes + 4096};
constexpr size_t region_bytes = frames_bytes + 8192;

char* map(size_t bytes, int prot) {
  void* p = mmap(nullptr, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  return static_cast<char*>(p);
}

// `bytes` of a new memory file mapped read-write (a PE's region, as space makes it); the file in `fd`.
char* map_file(size_t bytes, int& fd) {
  fd = memfd_create("release-protocol-test", 0);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) std::abort();
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) std::abort();
  return static_cast<char*>(p);
}

// Every PE's region in this process; `near` says whether reads of a PE's frames count as same-host.
class fake_memory final : public remote_memory {
 public:
  std::vector<char*> regions;
  bool same_host = true;
  uint64_t* word(int pe, uint64_t offset) { return reinterpret_cast<uint64_t*>(regions[pe] + offset); }
  uint64_t load(int pe, uint64_t offset) override { return __atomic_load_n(word(pe, offset), __ATOMIC_SEQ_CST); }
  void read(int pe, uint64_t offset, void* dst, size_t n) override { std::memcpy(dst, regions[pe] + offset, n); }
  uint64_t first_reads = 0;  // read_first calls
  void read_first(int pe, uint64_t offset, void* dst, size_t n) override {
    ++first_reads;
    read(pe, offset, dst, n);
  }
  void write_nbi(int pe, uint64_t offset, const void* src, size_t n) override {
    std::memcpy(regions[pe] + offset, src, n);
  }
  void atomic_or(int pe, uint64_t offset, uint64_t bits) override {
    __atomic_fetch_or(word(pe, offset), bits, __ATOMIC_SEQ_CST);
  }
  void atomic_add(int pe, uint64_t offset, uint64_t value) override {
    __atomic_fetch_add(word(pe, offset), value, __ATOMIC_SEQ_CST);
  }
  void flush() override {}
  bool near(int) override { return same_host; }
};

struct pe_state {
  char* view;    // the region's frames again, as the program sees them
  char* region;  // a memory file, as in space
  int file = -1;
  char* twins;
  counters stats;
  std::unique_ptr<page_table> pages;
  std::unique_ptr<notice_rings> ring;
  std::unique_ptr<copy_tracker> copies;
  std::unique_ptr<release_protocol> protocol;
};

// n PEs sharing `n_pages` pages; page p is homed at homes[p].
class Job {
 public:
  // `same_host`: whether the PEs share memory (copies of stale pages are refreshed) or not (dropped).
  Job(int n, const std::vector<int>& homes, uint32_t prefetch = 1, bool same_host = true)
      : pes_(static_cast<size_t>(n)) {
    mem_.same_host = same_host;
    for (auto& pe : pes_) mem_.regions.push_back(pe.region = map_file(region_bytes, pe.file));
    for (int i = 0; i < n; ++i) {
      pe_state& pe = pes_[static_cast<size_t>(i)];
      pe.view = static_cast<char*>(mmap(nullptr, frames_bytes, PROT_NONE, MAP_SHARED, pe.file, 0));
      if (pe.view == MAP_FAILED) std::abort();
      pe.twins = map(frames_bytes, PROT_READ | PROT_WRITE);
      pe.pages = std::make_unique<page_table>(pe.view, pe.file, pe.region, pe.twins, n_pages, shift);
      pe.ring = std::make_unique<notice_rings>(mem_, i, n, rings, mem_.word(i, rings.tail_offset),
                                               reinterpret_cast<uint64_t*>(pe.region + rings.entries_offset));
      pe.copies = std::make_unique<copy_tracker>(mem_, tracker, mem_.word(i, tracker.count_offset),
                                                 mem_.word(i, tracker.bits_offset), n_pages, !mem_.same_host);
      pe.protocol = std::make_unique<release_protocol>(*pe.pages, mem_, *pe.ring, *pe.copies, i, prefetch, pe.stats);
      pe.protocol->forget(0, n_pages);  // allocated
      for (uint32_t p = 0; p < n_pages; ++p) {
        pe.pages->set_home(p, homes[p]);
        pe.pages->protect(p, 1, homes[p] == i ? page_state::modified : page_state::invalid);
      }
    }
  }
  ~Job() {
    for (auto& pe : pes_) {
      munmap(pe.view, frames_bytes);
      munmap(pe.twins, frames_bytes);
      munmap(pe.region, region_bytes);
      close(pe.file);
    }
  }
  pe_state& pe(int i) { return pes_[static_cast<size_t>(i)]; }
  page_state state(int i, uint32_t p) { return pe(i).pages->state(p); }
  // The program's store: faults first if the page is not open for writing, as the view would make it.
  void store(int i, uint32_t p, size_t at, char v) {
    if (state(i, p) != page_state::modified) pe(i).protocol->fault(p, true);
    pe(i).region[p * page + at] = v;
  }
  char load(int i, uint32_t p, size_t at) {
    if (state(i, p) == page_state::invalid) pe(i).protocol->fault(p, false);
    return pe(i).region[p * page + at];
  }
  void barrier() {
    for (auto& pe : pes_) pe.protocol->release();
    for (auto& pe : pes_) pe.protocol->acquire();
  }
  fake_memory mem_;

 private:
  std::vector<pe_state> pes_;
};

std::vector<int> all_on(int home) { return std::vector<int>(n_pages, home); }

TEST(ReleaseProtocol, ReadFaultCopiesFromTheHomeAndTellsItOnce) {
  Job job(2, all_on(0), 1, false);  // stale copies are dropped and fetched again
  job.store(0, 3, 100, 42);    // the home writes its own page: no fault, no copy
  EXPECT_EQ(job.pe(0).stats.fetches.load(), 0u);
  job.barrier();
  EXPECT_EQ(job.load(1, 3, 100), 42);
  EXPECT_EQ(job.state(1, 3), page_state::shared);
  EXPECT_EQ(job.pe(1).stats.fetches.load(), 1u);
  EXPECT_EQ(job.mem_.load(0, tracker.bits_offset), uint64_t{1} << 3) << "the home's tracker has the copy's bit";
  job.barrier();  // the home takes the bit and notices the page once (it may have written it)
  EXPECT_EQ(job.mem_.load(0, tracker.bits_offset), 0u);
  EXPECT_EQ(job.state(1, 3), page_state::invalid);
  EXPECT_EQ(job.load(1, 3, 100), 42);
  EXPECT_EQ(job.mem_.load(0, tracker.bits_offset), 0u) << "a copy is told once";
}

TEST(ReleaseProtocol, PrefetchCopiesFollowingPagesOfTheSameHome) {
  std::vector<int> homes = all_on(0);
  for (uint32_t p = 6; p < n_pages; ++p) homes[p] = 1;  // pages 0-5 at PE 0, the rest at PE 1
  Job job(3, homes, 8);
  (void)job.load(2, 1, 0);
  EXPECT_EQ(job.pe(2).stats.fetches.load(), 5u) << "pages 1-5: the run stops at the change of home";
  EXPECT_EQ(job.mem_.first_reads, 1u) << "the run is one read_first (the kernel's copy on one host)";
  for (uint32_t p = 1; p < 6; ++p) EXPECT_EQ(job.state(2, p), page_state::shared);
  EXPECT_EQ(job.state(2, 6), page_state::invalid);
}

TEST(ReleaseProtocol, WritersOfDisjointBytesMergeAtTheHome) {
  Job job(3, all_on(0));
  job.store(1, 2, 10, 'a');
  job.store(2, 2, 11, 'b');  // the same page, the next byte: false sharing
  job.barrier();
  EXPECT_EQ(job.pe(0).region[2 * page + 10], 'a');
  EXPECT_EQ(job.pe(0).region[2 * page + 11], 'b');
  EXPECT_EQ(job.load(1, 2, 11), 'b') << "the writer's copy was refreshed from the home";
  EXPECT_EQ(job.load(2, 2, 10), 'a');
  EXPECT_EQ(job.pe(1).stats.diff_bytes.load(), 1u) << "a diff carries only the changed byte";
}

TEST(ReleaseProtocol, AStaleCopyIsRefreshedOnOneHostAndDroppedAcrossHosts) {
  for (bool same_host : {true, false}) {
    Job job(2, all_on(0), 1, same_host);
    EXPECT_EQ(job.load(1, 4, 0), 0);
    job.barrier();  // the home learns of the copy (and notices it, conservatively)
    EXPECT_EQ(job.state(1, 4), same_host ? page_state::shared : page_state::invalid);
    (void)job.load(1, 4, 0);  // held again after that (across hosts: fetched again, so refreshed next time)
    job.store(0, 4, 0, 7);    // a tracked page: noticed at the home's release
    job.barrier();
    EXPECT_EQ(job.state(1, 4), page_state::shared);
    EXPECT_EQ(job.load(1, 4, 0), 7);
  }
}

TEST(ReleaseProtocol, AFarCopyUsedAgainAfterADropIsRefreshedForAGrowingStreak) {
  Job job(2, all_on(0), 1, false);
  auto round = [&](uint8_t v) {  // the home writes page 4; after the barrier PE 1 holds it or not
    job.store(0, 4, 0, v);
    job.barrier();
    return job.state(1, 4) == page_state::shared;
  };
  (void)job.load(1, 4, 0);
  job.barrier();  // the home's conservative notice: dropped
  ASSERT_EQ(job.state(1, 4), page_state::invalid);
  EXPECT_EQ(job.load(1, 4, 0), 0);  // used again: refreshed at the next acquire (a streak of 1)
  const uint64_t fetches = job.pe(1).stats.fetches.load();
  EXPECT_TRUE(round(1));
  EXPECT_EQ(job.pe(1).stats.fetches.load(), fetches + 1) << "refreshed in place, without a fault";
  EXPECT_EQ(job.load(1, 4, 0), 1);
  EXPECT_FALSE(round(2)) << "the streak spent: dropped, to see whether the page is still used";
  EXPECT_FALSE(round(3)) << "a dropped copy not used again stays dropped";
  EXPECT_EQ(job.load(1, 4, 0), 3);  // used again: a streak of 3
  for (uint8_t v = 4; v < 7; ++v) {
    EXPECT_TRUE(round(v)) << "refresh " << int(v - 3) << " of 3";
    EXPECT_EQ(job.load(1, 4, 0), v);
  }
  EXPECT_FALSE(round(7));
  EXPECT_EQ(job.load(1, 4, 0), 7);
}

TEST(ReleaseProtocol, UnchangedCopiesSurviveBarriers) {
  Job job(2, all_on(0));
  for (uint32_t p = 0; p < 8; ++p) (void)job.load(1, p, 0);
  job.barrier();
  job.barrier();  // the home's conservative notices are behind
  for (uint32_t p = 0; p < 8; ++p) (void)job.load(1, p, 0);
  const uint64_t invalidations = job.pe(1).stats.invalidations.load();
  const uint64_t notices = job.pe(0).stats.notices.load();
  for (int i = 0; i < 5; ++i) job.barrier();
  EXPECT_EQ(job.pe(1).stats.invalidations.load(), invalidations);
  EXPECT_EQ(job.pe(0).stats.notices.load(), notices);
}

TEST(ReleaseProtocol, AWrittenCopyNamedByANoticeIsWrittenBackFirst) {
  Job job(3, all_on(0));
  job.store(1, 5, 0, 'x');
  job.store(2, 5, 1, 'y');
  job.pe(2).protocol->release();  // PE 2's release names page 5
  job.pe(1).protocol->acquire();  // PE 1 holds it written: its byte goes home before the refresh
  EXPECT_EQ(job.pe(0).region[5 * page + 0], 'x');
  EXPECT_EQ(job.pe(0).region[5 * page + 1], 'y');
  EXPECT_EQ(job.load(1, 5, 1), 'y');
  job.pe(1).protocol->release();  // the early write-back's notice goes out now
  job.pe(2).protocol->acquire();
  EXPECT_EQ(job.load(2, 5, 0), 'x');
}

TEST(ReleaseProtocol, PagesWrittenEveryIntervalStayOpenWithoutFaults) {
  Job job(2, all_on(0));
  (void)job.load(1, 0, 0);  // PE 1 copies the home's page 0 (a halo row)
  job.barrier();
  job.barrier();
  const uint64_t faults_before = job.pe(0).stats.write_faults.load();
  for (char v = 1; v < 6; ++v) {
    job.store(0, 0, 0, v);
    job.store(1, 1, 0, v);  // and writes a page of the home's every interval
    job.barrier();
    EXPECT_EQ(job.load(1, 0, 0), v);
    EXPECT_EQ(job.pe(0).region[page], v);
  }
  EXPECT_EQ(job.state(0, 0), page_state::modified) << "the home's written page stays open";
  EXPECT_EQ(job.state(1, 1), page_state::modified) << "the copy written every interval stays open";
  EXPECT_EQ(job.pe(0).stats.write_faults.load(), faults_before);
  // Unwritten for three releases, both close again.
  for (int i = 0; i < 3; ++i) job.barrier();
  EXPECT_EQ(job.state(0, 0), page_state::shared);
  EXPECT_EQ(job.state(1, 1), page_state::shared);
}

TEST(ReleaseProtocol, ARingOverrunDropsEveryCopy) {
  Job job(2, all_on(0));
  for (uint32_t p = 0; p < n_pages; ++p) (void)job.load(1, p, 0);
  job.barrier();
  for (uint32_t p = 0; p < n_pages; ++p) (void)job.load(1, p, 0);
  for (uint32_t p = 0; p < n_pages; ++p) job.store(0, p, 0, 1);  // more notices than the ring holds
  job.pe(0).protocol->release();
  ASSERT_GT(job.pe(0).stats.notices.load(), ring_capacity);
  const uint64_t before = job.pe(1).stats.invalidations.load();
  job.pe(1).protocol->acquire();
  EXPECT_EQ(job.pe(1).stats.invalidations.load() - before, n_pages) << "every copy is treated as stale";
  for (uint32_t p = 0; p < n_pages; ++p) EXPECT_EQ(job.load(1, p, 0), 1);
}

TEST(ReleaseProtocol, ForgetStartsPagesOver) {
  Job job(2, all_on(0));
  job.store(1, 7, 0, 1);
  job.pe(1).protocol->forget(7, 1);  // freed: the write is dropped, not sent
  job.pe(1).pages->protect(7, 1, page_state::invalid);
  job.pe(1).protocol->release();
  EXPECT_EQ(job.pe(0).region[7 * page], 0);
  EXPECT_EQ(job.pe(1).stats.diffs.load(), 0u);
}

}  // namespace
