// Sizes checked against the host's memory at init (issue 9 item 1): oversized values stop init with one line
// naming the variable, ordinary ones pass.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

#include "common/limits.hpp"
#include "common/log.hpp"

namespace rdsm::detail {
namespace {

constexpr uint64_t gib = uint64_t{1} << 30;

config defaults() {
  config c;
  c.symmetric_size = 512ull << 20;
  c.dsm_size = 512ull << 20;
  c.dsm_page_size = 4096;
  return c;
}

TEST(HostLimits, DefaultsPassOnASmallHost) {
  host_memory mem{4 * gib, 0};
  EXPECT_TRUE(check_host_limits(defaults(), 4, 4, mem).ok());
}

TEST(HostLimits, HugeHeapNamesTheVariable) {
  config c = defaults();
  for (uint64_t size : {100ull << 40, 99999999ull * gib}) {
    c.symmetric_size = size;
    status s = check_host_limits(c, 1, 2, host_memory{16 * gib, 2 * gib});
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("SHMEM_SYMMETRIC_SIZE="), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("lower SHMEM_SYMMETRIC_SIZE to at most 18.0 GiB"), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find('\n'), std::string::npos);
  }
}

TEST(HostLimits, AnEmptyHeapIsAllowed) {
  // OpenSHMEM: SHMEM_SYMMETRIC_SIZE is a non-negative size; a program that needs no heap may ask for none.
  config c = defaults();
  c.symmetric_size = 0;
  EXPECT_TRUE(check_host_limits(c, 1, 1, host_memory{16 * gib, 0}).ok());
}

TEST(HostLimits, HeapCountsEveryPeOfTheHost) {
  config c = defaults();
  c.symmetric_size = 3 * gib;
  host_memory mem{10 * gib, 0};
  EXPECT_TRUE(check_host_limits(c, 3, 3, mem).ok());
  status s = check_host_limits(c, 4, 4, mem);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("each of the 4 PEs on this host"), std::string::npos) << s.message();
}

// A job of many PEs that never set a heap size starts: the default is lowered to fit, not refused.
TEST(HostLimits, AnUnsetHeapSizeFitsManyPes) {
  ::unsetenv("SHMEM_SYMMETRIC_SIZE");
  ::unsetenv("SMA_SYMMETRIC_SIZE");
  host_memory mem{23 * gib + gib / 2, 0};
  config c = defaults();
  fit_default_heap(c, 47, mem);  // 512 MiB fits 47 PEs: unchanged
  EXPECT_EQ(c.symmetric_size, 512ull << 20);
  fit_default_heap(c, 64, mem);  // 376 MiB each: the power of two below
  EXPECT_EQ(c.symmetric_size, 256ull << 20);
  EXPECT_TRUE(check_host_limits(c, 64, 64, mem).ok());
  config many = defaults();
  fit_default_heap(many, 10000, mem);  // 2.4 MiB each
  EXPECT_EQ(many.symmetric_size, 2ull << 20);
  // A size the user asked for is checked as given, by either name.
  for (const char* var : {"SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE"}) {
    ::setenv(var, "512M", 1);
    config asked = defaults();
    fit_default_heap(asked, 64, mem);
    EXPECT_EQ(asked.symmetric_size, 512ull << 20) << var;
    EXPECT_FALSE(check_host_limits(asked, 64, 64, mem).ok()) << var;
    ::unsetenv(var);
  }
}

TEST(HostLimits, HugeDsmNamesTheVariable) {
  config c = defaults();
  c.dsm_size = 100ull << 40;
  status s = check_host_limits(c, 1, 1, host_memory{16 * gib, 0});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("RDSM_DSM_SIZE="), std::string::npos) << s.message();
}

TEST(HostLimits, DsmSpreadsOverHosts) {
  // 64 GiB of DSM over 8 PEs, 2 of them on this 20 GiB host: its share is 16 GiB.
  config c = defaults();
  c.dsm_size = 64 * gib;
  EXPECT_TRUE(check_host_limits(c, 2, 8, host_memory{20 * gib, 0}).ok());
  EXPECT_FALSE(check_host_limits(c, 8, 8, host_memory{20 * gib, 0}).ok());
}

TEST(HostLimits, UnknownMemoryChecksNothing) {
  config c = defaults();
  c.symmetric_size = 100ull << 40;
  EXPECT_TRUE(check_host_limits(c, 1, 1, host_memory{}).ok());
}

// RDSM_DSM_BASE is checked at init (issue 9 item 13): 0 was accepted (root may map page 0) and the DSM's
// first block was a null pointer.
TEST(DsmBase, RejectedWithTheVariableNamed) {
  config c = defaults();
  for (const char* bad : {"0", "0x1000", "abc", "-0x200000", "0xffffffe00000", ""}) {
    c.dsm_base = bad;
    status s = check_dsm_base(c, false);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.message().rfind(std::string("RDSM_DSM_BASE=") + bad + " ", 0), 0u) << s.message();
  }
  // A free range of this process (the default base may be taken by a sanitizer's shadow memory).
  const size_t span = c.dsm_size + (size_t{2} << 20);
  void* p = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  munmap(p, span);
  const auto free_base = (reinterpret_cast<uintptr_t>(p) + (size_t{2} << 20) - 1) & ~((uintptr_t{2} << 20) - 1);
  char text[32];
  std::snprintf(text, sizeof text, "%#lx", static_cast<unsigned long>(free_base));
  c.dsm_base = text;
  EXPECT_TRUE(check_dsm_base(c, true).ok()) << text;
}

TEST(DsmBase, OverlappingAMappingIsRejected) {
  // A mapping of this process at a 2 MiB boundary, then RDSM_DSM_BASE just below it.
  const size_t len = size_t{4} << 20;
  void* p = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const auto aligned = (reinterpret_cast<uintptr_t>(p) + (size_t{2} << 20) - 1) & ~((uintptr_t{2} << 20) - 1);
  config c = defaults();
  c.dsm_size = size_t{4} << 20;
  c.dsm_base = format("%#lx", static_cast<unsigned long>(aligned - (size_t{2} << 20)));
  status s = check_dsm_base(c, true);
  munmap(p, len);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("overlaps a mapping of this process"), std::string::npos) << s.message();
}

TEST(HostLimits, ThisHostHasMemory) { EXPECT_GT(host_memory_size().ram, 0u); }

}  // namespace
}  // namespace rdsm::detail
