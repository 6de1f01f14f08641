// The page table's protections over a view mapped from a memory file (src/dsm/page_table.hpp): pages show their
// frames' bytes, this PE's own or, shared, linked or mapped, a home's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "dsm/page_table.hpp"

using rdsm::detail::dsm::page_state;
using rdsm::detail::dsm::page_table;

namespace {

constexpr uint32_t n_pages = 8;

struct file_view {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  unsigned shift = static_cast<unsigned>(__builtin_ctzl(page));
  int fd = memfd_create("page-table-test", 0);
  char* view = nullptr;
  char* frames = nullptr;

  file_view() {
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(n_pages * page)) != 0) return;
    view = static_cast<char*>(mmap(nullptr, n_pages * page, PROT_NONE, MAP_SHARED, fd, 0));
    frames = static_cast<char*>(mmap(nullptr, n_pages * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  }
  ~file_view() {
    munmap(view, n_pages * page);
    munmap(frames, n_pages * page);
    close(fd);
  }
};

// Whether the process's page tables map `p` now (bit 63 of its /proc/self/pagemap entry), without touching it.
bool entered(const void* p) {
  const int fd = open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) return false;
  uint64_t e = 0;
  const auto at = static_cast<off_t>(reinterpret_cast<uintptr_t>(p) / static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)) *
                                     sizeof e);
  const bool ok = pread(fd, &e, sizeof e, at) == static_cast<ssize_t>(sizeof e);
  close(fd);
  return ok && (e >> 63) != 0;
}

}  // namespace

// Sequential mode with every PE on one host: a page linked to its home's frame stays that frame through
// its protections (a single writer is kept by protections over one frame), until unlinked.
TEST(PageTable, LinkedPagesAreTheHomesFrameThroughTheirProtections) {
  file_view mine, home;
  ASSERT_NE(mine.view, MAP_FAILED);
  ASSERT_NE(home.frames, MAP_FAILED);
  page_table pages(mine.view, mine.fd, mine.frames, nullptr, n_pages, mine.shift);
  pages.keep_home_maps();
  for (uint32_t p = 0; p < n_pages; ++p) {
    std::memset(home.frames + p * home.page, 'h', home.page);
    std::memset(pages.frame(p), 'm', mine.page);
  }
  ASSERT_TRUE(pages.link_home(2, 3, home.fd));
  for (uint32_t p = 2; p < 5; ++p) {
    EXPECT_TRUE(pages.from_home(p));
    EXPECT_EQ(pages.state(p), page_state::invalid) << "linked closed";
  }
  EXPECT_FALSE(pages.from_home(1));
  EXPECT_FALSE(pages.from_home(5));
  EXPECT_EXIT(
      {
        signal(SIGSEGV, SIG_DFL);
        (void)*static_cast<volatile char*>(pages.view(3));
        _exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
  pages.protect(3, 1, page_state::shared);
  EXPECT_EQ(pages.view(3)[7], 'h');
  pages.protect(3, 1, page_state::invalid);
  pages.protect(3, 1, page_state::modified);
  pages.view(3)[7] = 'w';  // written into the home's frame itself: nothing to write back
  EXPECT_EQ(home.frames[3 * home.page + 7], 'w');
  EXPECT_EQ(pages.frame(3)[7], 'm');
  pages.protect(1, 5, page_state::shared);  // a run across linked and own pages: each keeps its frame
  EXPECT_EQ(pages.view(1)[7], 'm');
  EXPECT_EQ(pages.view(2)[7], 'h');
  EXPECT_EQ(pages.view(3)[7], 'w');
  EXPECT_EQ(pages.view(5)[7], 'm');

  pages.protect(0, n_pages, page_state::invalid);
  pages.unlink_homes(0, n_pages);
  pages.protect(3, 1, page_state::shared);
  EXPECT_FALSE(pages.from_home(3));
  EXPECT_EQ(pages.view(3)[7], 'm') << "unlinked: this PE's frame again";
  EXPECT_FALSE(pages.link_home(6, 1, -1));  // no file: the caller copies
}

TEST(PageTable, ProtectionsAfterTheFirstOpeningFollowTheState) {
  file_view f;
  ASSERT_NE(f.view, MAP_FAILED);
  page_table pages(f.view, f.fd, f.frames, nullptr, n_pages, f.shift);
  pages.protect(0, 2, page_state::modified);
  pages.view(0)[10] = 'x';  // written through the view, seen in the frame: one memory
  EXPECT_EQ(pages.frame(0)[10], 'x');
  pages.protect(0, 2, page_state::invalid);
  EXPECT_EQ(pages.state(0), page_state::invalid);
  EXPECT_EXIT(
      {
        signal(SIGSEGV, SIG_DFL);  // not a sanitizer's handler: the kernel's verdict
        (void)*static_cast<volatile char*>(pages.view(1));
        _exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
  pages.frame(1)[0] = 'y';
  pages.protect(1, 1, page_state::shared);
  EXPECT_EQ(pages.view(1)[0], 'y');
  EXPECT_EXIT(
      {
        signal(SIGSEGV, SIG_DFL);
        pages.view(1)[0] = 'z';
        _exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
  pages.frame(0)[0] = 'w';
  pages.protect(0, 2, page_state::shared);
  EXPECT_EQ(pages.view(0)[0], 'w');
  EXPECT_EQ(pages.view(1)[0], 'y');
}

// A frame's first copy each way (in from its home, out to it) is told apart from later ones, until its
// copies are forgotten (a hole punch, at free): the first is the kernel's, later ones the CPU's.
TEST(PageTable, FirstCopiesOfAFrameAreToldApartEachWay) {
  file_view f;
  ASSERT_NE(f.view, MAP_FAILED);
  page_table pages(f.view, f.fd, f.frames, nullptr, n_pages, f.shift);
  EXPECT_FALSE(pages.copied_before(1, page_table::copy_in));
  EXPECT_TRUE(pages.copied_before(1, page_table::copy_in));
  EXPECT_FALSE(pages.copied_before(1, page_table::copy_out)) << "the other way is a first copy of its own";
  EXPECT_TRUE(pages.copied_before(1, page_table::copy_out));
  EXPECT_FALSE(pages.copied_before(2, page_table::copy_in)) << "another page";
  pages.forget_copies(0, 2);
  EXPECT_FALSE(pages.copied_before(1, page_table::copy_in));
  EXPECT_FALSE(pages.copied_before(1, page_table::copy_out));
  EXPECT_TRUE(pages.copied_before(2, page_table::copy_in)) << "outside the pages forgotten";
}

// The protection /proc/self/maps gives the mapping that holds `p` ("r--", "rw-", "---"), and whether that
// mapping spans exactly [from, to).
std::string protection_of(const void* p, const void* from = nullptr, const void* to = nullptr, bool* spans = nullptr) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return "?";
  char line[512];
  std::string found = "none";
  const auto at = reinterpret_cast<uintptr_t>(p);
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    uintptr_t lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || at < lo || at >= hi) continue;
    found.assign(perms, 3);
    if (spans != nullptr)
      *spans = lo == reinterpret_cast<uintptr_t>(from) && hi == reinterpret_cast<uintptr_t>(to);
    break;
  }
  std::fclose(maps);
  return found;
}

// A service round's protections: the state changes at once, the protection at flush, one mapping per run
// of consecutive pages given one state; anything else flushes what was gathered first.
TEST(PageTable, GatheredProtectionsApplyAsOneRunAtTheFlush) {
  file_view f;
  ASSERT_NE(f.view, MAP_FAILED);
  page_table pages(f.view, f.fd, f.frames, nullptr, n_pages, f.shift);
  pages.protect(0, n_pages, page_state::modified);  // entered: the run below is opened by mprotect
  pages.gather(true);
  for (uint32_t p = 2; p < 6; ++p) pages.protect(p, 1, page_state::shared);  // a run, page by page
  for (uint32_t p = 2; p < 6; ++p) EXPECT_EQ(pages.state(p), page_state::shared);
  EXPECT_TRUE(pages.gathered());
  EXPECT_TRUE(pages.gathered(5, 1));
  EXPECT_FALSE(pages.gathered(6, 2));
  EXPECT_EQ(protection_of(pages.view(3)), "rw-") << "applied before the flush";
  EXPECT_TRUE(pages.flush());
  EXPECT_FALSE(pages.gathered());
  bool spans = false;
  EXPECT_EQ(protection_of(pages.view(3), pages.view(2), pages.view(6), &spans), "r--");
  EXPECT_TRUE(spans) << "the run is not one mapping";
  EXPECT_FALSE(pages.flush());

  // Another state, or a page that does not continue the run, applies the run gathered so far.
  pages.protect(6, 1, page_state::invalid);
  pages.protect(7, 1, page_state::shared);
  EXPECT_EQ(protection_of(pages.view(6)), "---");
  EXPECT_EQ(protection_of(pages.view(7)), "rw-");
  pages.protect(0, 1, page_state::invalid);
  EXPECT_EQ(protection_of(pages.view(7)), "r--");
  EXPECT_EQ(protection_of(pages.view(0)), "rw-");
  pages.gather(false);  // applies the rest, and protections apply at once again
  EXPECT_EQ(protection_of(pages.view(0)), "---");
  pages.protect(1, 1, page_state::shared);
  EXPECT_FALSE(pages.gathered());
  EXPECT_EQ(protection_of(pages.view(1)), "r--");
}

TEST(PageTable, SharedPagesShowTheHomesFramesUntilTheirNextProtection) {
  file_view mine, home;  // this PE's frames and a home's, two memory files of the same layout
  ASSERT_NE(mine.view, MAP_FAILED);
  ASSERT_NE(home.frames, MAP_FAILED);
  page_table pages(mine.view, mine.fd, mine.frames, nullptr, n_pages, mine.shift);
  for (uint32_t p = 0; p < n_pages; ++p) {
    std::memset(home.frames + p * home.page, 'h', home.page);
    std::memset(pages.frame(p), 'm', mine.page);
  }
  ASSERT_TRUE(pages.share(1, 4, home.fd));
  for (uint32_t p = 1; p < 5; ++p) {
    EXPECT_EQ(pages.view(p)[7], 'h') << "page " << p << " is not the home's frame";
    EXPECT_EQ(pages.state(p), page_state::shared);
    EXPECT_TRUE(entered(pages.view(p)));
  }
  home.frames[2 * home.page + 7] = 'H';  // one memory: nothing was copied
  EXPECT_EQ(pages.view(2)[7], 'H');
  EXPECT_EXIT(
      {
        signal(SIGSEGV, SIG_DFL);
        pages.view(2)[0] = 'x';
        _exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
  EXPECT_EQ(pages.frame(2)[7], 'm');  // this PE's frame untouched

  // Any protection of a shared page maps this PE's frames again, the pages around it included.
  pages.protect(0, 3, page_state::invalid);
  pages.protect(0, 3, page_state::shared);
  for (uint32_t p = 0; p < 3; ++p) EXPECT_EQ(pages.view(p)[7], 'm') << "page " << p;
  EXPECT_EQ(pages.view(3)[7], 'h');  // still the home's: not protected since
  pages.protect(3, 2, page_state::modified);
  pages.view(4)[7] = 'w';
  EXPECT_EQ(pages.frame(4)[7], 'w');
  EXPECT_EQ(home.frames[4 * home.page + 7], 'h');

  EXPECT_FALSE(pages.share(6, 1, -1));  // no file: the caller copies
  EXPECT_EQ(pages.state(6), page_state::invalid);
}

// A view of twice as many pages as the mapping budget (a quarter of vm.max_map_count), from this PE's
// memory file, and a home's file as large.
struct budget_view {
  unsigned long limit = 0;
  uint32_t budget = 0, pages = 0;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  int mine = memfd_create("page-table-mine", 0), home = memfd_create("page-table-home", 0);
  char* view = static_cast<char*>(MAP_FAILED);

  budget_view() {
    if (FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
      if (std::fscanf(f, "%lu", &limit) != 1) limit = 0;
      std::fclose(f);
    }
    if (usable() && mine >= 0 && home >= 0) {
      budget = static_cast<uint32_t>(limit / 4);
      pages = 2 * budget + 8;
      if (ftruncate(mine, static_cast<off_t>(pages * page)) == 0 && ftruncate(home, static_cast<off_t>(pages * page)) == 0)
        view = static_cast<char*>(mmap(nullptr, pages * page, PROT_NONE, MAP_SHARED, mine, 0));
    }
  }
  ~budget_view() {
    if (view != MAP_FAILED) munmap(view, pages * page);
    close(mine);
    close(home);
  }
  bool usable() const { return limit != 0 && limit <= 262144; }  // else too many mappings to test
  page_table table() const { return page_table(view, mine, nullptr, nullptr, pages, static_cast<unsigned>(__builtin_ctzl(page))); }
};

// Each run shared from a home's file is a mapping of its own: share stops at a quarter of vm.max_map_count
// (the caller then copies), and mapping the PE's own frames over the runs again gives the budget back.
TEST(PageTable, SharingStopsBeforeTheKernelsMappingLimit) {
  budget_view b;
  if (!b.usable()) GTEST_SKIP() << "vm.max_map_count " << b.limit << ": too many mappings to test";
  ASSERT_NE(b.view, MAP_FAILED);
  page_table table = b.table();
  uint32_t shared = 0;
  for (uint32_t p = 0; p < b.pages; p += 2) shared += table.share(p, 1, b.home) ? 1 : 0;  // no two runs merge
  EXPECT_EQ(shared, b.budget);
  EXPECT_EQ(table.state(2 * b.budget), page_state::invalid) << "shared past the budget";
  table.protect(0, 64, page_state::invalid);  // 32 runs mapped over
  uint32_t again = 0;
  for (uint32_t p = 1; p < 128; p += 2) again += table.share(p, 1, b.home) ? 1 : 0;
  EXPECT_EQ(again, 32u);
}

// Twins live in slots taken as pages open and given back as they close: open pages never share a slot, a
// closed page's slot serves the next page to open, and a page asked twice keeps its twin.
TEST(PageTable, TwinSlotsAreTakenAndReused) {
  file_view f;
  ASSERT_NE(f.view, MAP_FAILED);
  auto* twins = static_cast<char*>(
      mmap(nullptr, n_pages * f.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
  ASSERT_NE(twins, MAP_FAILED);
  {
    page_table table(f.view, f.fd, f.frames, twins, n_pages, f.shift);
    EXPECT_FALSE(table.has_twin(3));
    char* a = table.take_twin(3);
    char* b = table.take_twin(6);
    EXPECT_NE(a, b);
    EXPECT_EQ(table.take_twin(3), a) << "a page asked again took another slot";
    EXPECT_EQ(table.twin(6), b);
    std::memset(a, 'a', f.page);
    std::memset(b, 'b', f.page);
    table.drop_twin(3);
    table.drop_twin(3);  // nothing to give back the second time
    EXPECT_FALSE(table.has_twin(3));
    char* c = table.take_twin(1);
    EXPECT_EQ(c, a) << "the slot given back was not reused";
    char* d = table.take_twin(2);
    EXPECT_NE(d, a);
    EXPECT_NE(d, b);
    EXPECT_EQ(b[0], 'b') << "an open page's twin was overwritten";
    EXPECT_EQ(b[f.page - 1], 'b');
    for (uint32_t p = 0; p < n_pages; ++p) table.take_twin(p);  // every page open at once: a slot each
    for (uint32_t p = 0; p < n_pages; ++p)
      for (uint32_t q = p + 1; q < n_pages; ++q) EXPECT_NE(table.twin(p), table.twin(q));
    for (uint32_t p = 0; p < n_pages; ++p) {
      EXPECT_GE(table.twin(p), twins);
      EXPECT_LT(table.twin(p), twins + n_pages * f.page);
    }
  }
  munmap(twins, n_pages * f.page);
}

// A run mapped from its home's memory file is that memory: written through the view, read in the file.
// Its next protection maps the PE's own frames again.
TEST(PageTable, MappedHomePagesAreTheHomesMemory) {
  file_view f;
  ASSERT_NE(f.view, MAP_FAILED);
  const int home = memfd_create("page-table-home", 0);
  ASSERT_GE(home, 0);
  ASSERT_EQ(ftruncate(home, static_cast<off_t>(n_pages * f.page)), 0);
  auto* theirs = static_cast<char*>(mmap(nullptr, n_pages * f.page, PROT_READ | PROT_WRITE, MAP_SHARED, home, 0));
  ASSERT_NE(theirs, MAP_FAILED);
  theirs[5 * f.page] = 'r';
  {
    page_table table(f.view, f.fd, f.frames, nullptr, n_pages, f.shift);
    table.map_home(2, 3, home, page_state::modified, 3, 1);
    for (uint32_t p = 2; p < 5; ++p) EXPECT_EQ(table.state(p), page_state::modified);
    EXPECT_EQ(table.state(5), page_state::invalid);
    f.view[2 * f.page] = 'a';
    f.view[4 * f.page + 7] = 'b';
    EXPECT_EQ(theirs[2 * f.page], 'a');
    EXPECT_EQ(theirs[4 * f.page + 7], 'b');
    EXPECT_EQ(f.frames[2 * f.page], 0) << "the write went to this PE's own frame";
    table.map_home(5, 1, home, page_state::shared, 5, 1);
    EXPECT_EQ(table.state(5), page_state::shared);
    EXPECT_EQ(f.view[5 * f.page], 'r');
    table.protect(2, 4, page_state::modified);
    f.view[2 * f.page] = 'c';
    EXPECT_EQ(f.frames[2 * f.page], 'c');
    EXPECT_EQ(theirs[2 * f.page], 'a');
    EXPECT_EQ(f.view[5 * f.page], 0) << "page 5 still shows the home's memory";
  }
  munmap(theirs, n_pages * f.page);
  close(home);
}

// Mapping homes' runs never fails for want of mappings: when the budget is spent, the oldest runs close
// (their pages fault and are mapped again at their next use).
TEST(PageTable, MappingHomesClosesTheOldestRunsWhenTheBudgetIsSpent) {
  budget_view b;
  if (!b.usable()) GTEST_SKIP() << "vm.max_map_count " << b.limit << ": too many mappings to test";
  ASSERT_NE(b.view, MAP_FAILED);
  page_table table = b.table();
  for (uint32_t p = 0; p < 2 * b.budget; p += 2) table.map_home(p, 1, b.home, page_state::modified, p, 0);
  EXPECT_EQ(table.state(0), page_state::modified);
  table.map_home(2 * b.budget, 1, b.home, page_state::modified, 2 * b.budget, 1);
  EXPECT_EQ(table.state(2 * b.budget), page_state::modified);
  EXPECT_EQ(table.state(0), page_state::invalid) << "the oldest run stayed mapped past the budget";
  EXPECT_EQ(table.state(2), page_state::modified);
  b.view[2 * b.budget * b.page] = 'x';
  b.view[2 * b.page] = 'y';
  // A run closed by a protection and mapped again, many times over: its stale entries are forgotten, and
  // the oldest live runs still close when the budget is spent.
  for (uint32_t i = 0; i < 3 * b.budget; ++i) {
    table.map_home(2 * b.budget + 2, 1, b.home, page_state::modified, 2 * b.budget + 2, 0);
    table.protect(2 * b.budget + 2, 1, page_state::invalid);
  }
  table.map_home(2 * b.budget + 4, 1, b.home, page_state::modified, 2 * b.budget + 4, 1);
  EXPECT_EQ(table.state(2 * b.budget + 4), page_state::modified);
  b.view[(2 * b.budget + 4) * b.page] = 'z';
}
