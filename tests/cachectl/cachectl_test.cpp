// Tests of cachectl: data survives every operation, forced hooks do work, features match the CPU.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cachectl/cachectl.hpp"
#include "common/config.hpp"

namespace rdsm::detail {
namespace {

std::vector<cache_insn> available_insns() {
  std::vector<cache_insn> out;
  for (cache_insn i : {cache_insn::none, cache_insn::clflush, cache_insn::clflushopt, cache_insn::clwb,
                       cache_insn::dc_cvac, cache_insn::dc_civac})
    if (cache_insn_available(i)) out.push_back(i);
  return out;
}

unsigned char pattern(size_t i, unsigned seed) { return static_cast<unsigned char>((i * 131 + seed * 7 + 1) & 0xff); }

// Fills three pages, rewrites [offset, offset + length) (dirty lines, some shared with bytes outside
// the range), runs `maintain` on the range, and checks every byte of the buffer, inside and outside.
template <class F>
void check_survives(size_t offset, size_t length, unsigned seed, F maintain) {
  constexpr size_t k_size = 3 * 4096;
  alignas(4096) static unsigned char buf[k_size];
  for (size_t i = 0; i < k_size; ++i) buf[i] = pattern(i, seed);
  for (size_t i = offset; i < offset + length; ++i) buf[i] = pattern(i, seed + 1);
  maintain(byte_range{buf + offset, length});
  for (size_t i = 0; i < k_size; ++i) {
    const bool inside = i >= offset && i < offset + length;
    ASSERT_EQ(buf[i], pattern(i, inside ? seed + 1 : seed)) << "byte " << i << " offset " << offset << " length " << length;
  }
}

const size_t k_offsets[] = {0, 1, 7, 31, 63, 64, 65, 127, 2048, 4095, 4096};
const size_t k_lengths[] = {0, 1, 2, 63, 64, 65, 127, 128, 129, 4095, 4096, 4097, 8191};

TEST(CachectlData, EveryInstructionKeepsDataAtEveryAlignmentAndLength) {
  unsigned seed = 0;
  for (cache_insn insn : available_insns())
    for (size_t offset : k_offsets)
      for (size_t length : k_lengths) {
        SCOPED_TRACE(cache_insn_name(insn));
        check_survives(offset, length, ++seed, [&](byte_range r) {
          cache_issue(insn, r);
          cache_fence();
        });
        if (HasFatalFailure()) return;
      }
}

TEST(CachectlData, CleanInvalidateAndCleanInvalidateKeepData) {
  unsigned seed = 1000;
  for (void (*op)(byte_range) : {&cache_clean, &cache_invalidate, &cache_clean_invalidate})
    for (size_t offset : k_offsets)
      for (size_t length : k_lengths) {
        check_survives(offset, length, ++seed, op);
        if (HasFatalFailure()) return;
      }
}

TEST(CachectlData, RepeatedMaintenanceOfTheSameLinesKeepsLatestStores) {
  alignas(64) static volatile uint64_t words[64];
  for (uint64_t round = 1; round <= 2000; ++round) {
    for (auto& w : words) w = round;
    cache_clean_invalidate({const_cast<uint64_t*>(words), sizeof words});
    for (auto& w : words) ASSERT_EQ(w, round);
  }
}

TEST(CachectlChoice, ChosenInstructionsAreAvailableAndPreferred) {
  const cache_features& f = cache_detect();
  for (cache_op op : {cache_op::clean, cache_op::invalidate, cache_op::clean_invalidate})
    EXPECT_TRUE(cache_insn_available(cache_choose(op))) << cache_op_name(op);
  if (f.clwb) {
    EXPECT_EQ(cache_choose(cache_op::clean), cache_insn::clwb);
  }
  if (f.clflushopt) {
    EXPECT_EQ(cache_choose(cache_op::invalidate), cache_insn::clflushopt);
  }
  // invalidate never uses a clean-only instruction: that would leave stale lines cached.
  EXPECT_NE(cache_choose(cache_op::invalidate), cache_insn::clwb);
  EXPECT_NE(cache_choose(cache_op::invalidate), cache_insn::dc_cvac);
  EXPECT_TRUE(cache_insn_available(cache_insn::none));
  EXPECT_GE(f.line_size, 16u);
  EXPECT_EQ(f.line_size & (f.line_size - 1), 0u) << "line size must be a power of two";
}

TEST(CachectlHooks, ForcedModeMaintainsAndCounts) {
  alignas(64) static unsigned char page[2 * 4096];
  cache_configure(cache_mode::on);
  ASSERT_TRUE(cache_maintenance_enabled());
  cache_hook_counters_reset();
  const size_t line = cache_detect().line_size;
  before_dma_read({page, 4096});
  after_dma_write({page + 1, 4096});  // unaligned: one more line
  after_dma_write({page, 0});         // empty: no work
  cache_hook_stats s = cache_hook_counters();
  EXPECT_EQ(s.cleans, 1u);
  EXPECT_EQ(s.invalidates, 1u);
  EXPECT_EQ(s.lines, 4096 / line + 4096 / line + 1);

  cache_configure(cache_mode::off);
  EXPECT_FALSE(cache_maintenance_enabled());
  cache_hook_counters_reset();
  before_dma_read({page, 4096});
  after_dma_write({page, 4096});
  s = cache_hook_counters();
  EXPECT_EQ(s.cleans + s.invalidates + s.lines, 0u);
  cache_configure(cache_mode::auto_);
}

// The line size the tests expect: on aarch64 read from CTR_EL0 here, independently of cache_detect().
size_t expected_line_size() {
#if defined(__aarch64__)
  uint64_t ctr = 0;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return size_t{4} << ((ctr >> 16) & 0xfU);  // DminLine: log2 of the smallest D-cache line in words
#else
  return cache_detect().line_size;
#endif
}

// The hooks count the steps of the maintenance loop itself, so this checks that cache_issue steps
// exactly once per line a range touches: ranges that straddle line boundaries by one byte either way.
TEST(CachectlHooks, MaintenanceStepsOncePerLineTouched) {
  const size_t line = expected_line_size();
  ASSERT_EQ(cache_detect().line_size, line);
  alignas(4096) static unsigned char buf[3 * 4096];
  ASSERT_LE(4 * line, sizeof buf);
  struct range_case {
    size_t offset, length, lines;
  };
  const range_case cases[] = {
      {0, 1, 1},
      {line - 1, 1, 1},             // last byte of the first line
      {line - 1, 2, 2},             // straddles the first boundary
      {0, line, 1},                 // exactly one line
      {1, line, 2},                 // one line, shifted by a byte
      {0, line + 1, 2},             // one byte into the second line
      {line - 1, line + 2, 3},      // a byte of the first line, a whole line, a byte of the third
      {line, 2 * line, 2},          // two whole lines from the second
      {line + 1, 2 * line - 2, 2},  // inside two lines, touching neither boundary
      {0, 4096, 4096 / line},       // a page
      {1, 4096, 4096 / line + 1},
  };
  cache_configure(cache_mode::on);
  for (const range_case& c : cases) {
    cache_hook_counters_reset();
    before_dma_read({buf + c.offset, c.length});
    EXPECT_EQ(cache_hook_counters().lines, c.lines) << "clean: offset " << c.offset << " length " << c.length
                                                     << " (line " << line << ")";
    cache_hook_counters_reset();
    after_dma_write({buf + c.offset, c.length});
    EXPECT_EQ(cache_hook_counters().lines, c.lines) << "invalidate: offset " << c.offset << " length " << c.length
                                                     << " (line " << line << ")";
  }
  cache_configure(cache_mode::auto_);
}

TEST(CachectlHooks, AutoModeFollowsDmaCoherence) {
  cache_configure(cache_mode::auto_);
  EXPECT_EQ(cache_maintenance_enabled(), !cache_detect().dma_coherent);
#if defined(__x86_64__)
  EXPECT_FALSE(cache_maintenance_enabled()) << "x86 DMA is coherent: auto must not maintain";
#elif defined(__aarch64__)
  EXPECT_TRUE(cache_maintenance_enabled());
#endif
}

TEST(CachectlHooks, ModeWordsParseAndBadWordNamesTheVariable) {
  EXPECT_EQ(cache_mode_parse("auto").value(), cache_mode::auto_);
  EXPECT_EQ(cache_mode_parse("on").value(), cache_mode::on);
  EXPECT_EQ(cache_mode_parse("off").value(), cache_mode::off);
  auto bad = cache_mode_parse("sometimes");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("RDSM_CACHE_MAINTENANCE"), std::string::npos);
}

TEST(CachectlHooks, ConfigTableHasTheVariable) {
  setenv("RDSM_CACHE_MAINTENANCE", "on", 1);
  auto c = config_load();
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c.value().cache_maintenance, "on");
  setenv("RDSM_CACHE_MAINTENANCE", "maybe", 1);
  auto bad = config_load();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("RDSM_CACHE_MAINTENANCE"), std::string::npos);
  unsetenv("RDSM_CACHE_MAINTENANCE");
  auto d = config_load();
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().cache_maintenance, "auto");
}

#if defined(__x86_64__)
// The first "flags" line and "clflush size" of /proc/cpuinfo.
std::set<std::string> cpuinfo_flags(size_t& clflush_size) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  std::set<std::string> flags;
  clflush_size = 0;
  while (std::getline(f, line)) {
    if (flags.empty() && line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      std::string w;
      while (words >> w) flags.insert(w);
    } else if (clflush_size == 0 && line.rfind("clflush size", 0) == 0) {
      clflush_size = std::stoul(line.substr(line.find(':') + 1));
    }
  }
  return flags;
}
#endif

TEST(CachectlFeatures, MatchProcCpuinfo) {
#if defined(__x86_64__)
  size_t clflush_size = 0;
  const std::set<std::string> flags = cpuinfo_flags(clflush_size);
  ASSERT_FALSE(flags.empty()) << "no flags line in /proc/cpuinfo";
  const cache_features& f = cache_detect();
  // The kernel can hide a CPUID bit (clearcpuid=); then the two may differ and this test says so.
  EXPECT_EQ(f.clflush, flags.count("clflush") == 1);
  EXPECT_EQ(f.clflushopt, flags.count("clflushopt") == 1);
  EXPECT_EQ(f.clwb, flags.count("clwb") == 1);
  EXPECT_EQ(f.hypervisor == cache_features::tristate::yes, flags.count("hypervisor") == 1);
  if (clflush_size != 0) {
    EXPECT_EQ(f.line_size, clflush_size);
  }
  EXPECT_TRUE(f.dma_coherent);
  const std::string text = cache_describe(f);
  EXPECT_NE(text.find("hypervisor: "), std::string::npos);
  if (f.clwb) {
    EXPECT_NE(text.find("clwb"), std::string::npos);
  }
#elif defined(__aarch64__)
  // /proc/cpuinfo is not checked: under qemu-user it is the host's (x86) file.
  const cache_features& f = cache_detect();
  EXPECT_STREQ(f.arch, "aarch64");
  EXPECT_TRUE(f.dc_cvac);
  EXPECT_TRUE(f.dc_civac);
  EXPECT_FALSE(f.clflush || f.clflushopt || f.clwb);
  EXPECT_FALSE(f.dma_coherent) << "aarch64 DMA coherence is a platform property; the default must be the safe one";
  EXPECT_EQ(f.hypervisor, cache_features::tristate::unknown) << "EL0 cannot see a hypervisor";
  EXPECT_TRUE(f.vendor.empty());
  cache_configure(cache_mode::auto_);
  EXPECT_TRUE(cache_maintenance_enabled()) << "auto must maintain where DMA is not known to be coherent";
  const std::string text = cache_describe(f);
  EXPECT_NE(text.find("arch: aarch64"), std::string::npos) << text;
  EXPECT_NE(text.find("cache line: " + std::to_string(expected_line_size()) + " bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("chosen: clean=dc_cvac invalidate=dc_civac clean_invalidate=dc_civac"), std::string::npos)
      << text;
  EXPECT_NE(text.find("DMA coherent: no (assumed)"), std::string::npos) << text;
#else
  GTEST_SKIP() << "no feature cross-check for " << cache_detect().arch;
#endif
}

#if defined(__aarch64__)
// What the aarch64 path executes. Under qemu-user these show that the instructions are accepted (no
// SIGILL) and step the right lines; qemu has no cache model, so no test here can observe a line being
// written back or evicted — that needs a DMA device on hardware whose DMA does not snoop.

TEST(CachectlAarch64, LineSizeIsCtrEl0DminLine) {
  uint64_t ctr = 0;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
  const size_t line = size_t{4} << ((ctr >> 16) & 0xfU);
  EXPECT_EQ(cache_detect().line_size, line) << "CTR_EL0 = 0x" << std::hex << ctr;
  EXPECT_GE(line, 16u);
  EXPECT_LE(line, 2048u);  // DminLine is 4 bits, but the architecture caps the line at 2 KiB
  EXPECT_EQ(line & (line - 1), 0u);
  RecordProperty("ctr_el0_line_size", static_cast<int>(line));
}

TEST(CachectlAarch64, ChoiceIsDcCvacToCleanAndDcCivacToInvalidate) {
  EXPECT_EQ(cache_choose(cache_op::clean), cache_insn::dc_cvac);
  EXPECT_EQ(cache_choose(cache_op::invalidate), cache_insn::dc_civac);
  EXPECT_EQ(cache_choose(cache_op::clean_invalidate), cache_insn::dc_civac);
}

TEST(CachectlAarch64, DcOnTheFirstAndLastLineOfAPageKeepsNeighbours) {
  // dc on a line at each edge of a page, with the neighbouring pages' bytes checked: catches a loop
  // that rounds the wrong way and steps onto (or misses) the next line.
  const size_t line = cache_detect().line_size;
  for (size_t offset : {size_t{0}, size_t{4096} - line, size_t{4096}, size_t{2 * 4096 - 1}})
    for (cache_insn insn : {cache_insn::dc_cvac, cache_insn::dc_civac}) {
      check_survives(offset, 1, static_cast<unsigned>(offset) + static_cast<unsigned>(insn), [&](byte_range r) {
        cache_issue(insn, r);
        cache_fence();
      });
      if (HasFatalFailure()) return;
    }
}

TEST(CachectlAarch64, FencesExecuteAndOrderStoresBetweenThreads) {
  // cache_fence is dsb sy; dmb is what the rest of the runtime's atomics compile to. Message passing
  // through plain (relaxed) accesses ordered only by these barriers: on weakly ordered hardware a
  // missing barrier lets the reader see the flag before the data. Under qemu-user on an x86 host,
  // guest accesses run with the host's (TSO) ordering, so this cannot fail there for lack of a barrier:
  // there it only shows that dsb sy, dmb ish, dmb ishst and dmb ishld are accepted.
  cache_fence();
  asm volatile("dmb ish" ::: "memory");
  asm volatile("dsb ish" ::: "memory");
  constexpr int k_rounds = 5000;  // yields in the waits: 2 shared cores, possibly emulated
  static std::atomic<int> data{0}, flag{0};
  data.store(0, std::memory_order_relaxed);
  flag.store(0, std::memory_order_relaxed);
  int bad = 0;
  std::thread reader([&] {
    for (int round = 1; round <= k_rounds; ++round) {
      while (flag.load(std::memory_order_relaxed) != round) std::this_thread::yield();
      asm volatile("dmb ishld" ::: "memory");
      if (data.load(std::memory_order_relaxed) != round) ++bad;
      cache_fence();
      flag.store(-round, std::memory_order_relaxed);  // acknowledged
    }
  });
  for (int round = 1; round <= k_rounds; ++round) {
    data.store(round, std::memory_order_relaxed);
    asm volatile("dmb ishst" ::: "memory");
    flag.store(round, std::memory_order_relaxed);
    while (flag.load(std::memory_order_relaxed) != -round) std::this_thread::yield();
    cache_fence();
  }
  reader.join();
  EXPECT_EQ(bad, 0);
}
#endif

}  // namespace
}  // namespace rdsm::detail
