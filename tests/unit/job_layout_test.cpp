// The job record (what PEs must agree on) and the translation of global variables between executables.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/config.hpp"
#include "core/data_segment.hpp"
#include "core/global_symbols.hpp"
#include "core/job_record.hpp"

namespace rdsm::detail {
namespace {

// A global of this executable, found in its own symbol table.
long probe_for_symbols[37] = {1};

config defaults() {
  auto c = config_load(false);
  return c.ok() ? c.value() : config{};
}

TEST(JobRecord, AgreeingRecordsPass) {
  const config c = defaults();
  std::vector<job_record> r(3, job_record_make(c, 7));
  r[2].executable = 9;  // other executables may run in one job
  EXPECT_FALSE(job_records_disagree(r).has_value());
  EXPECT_EQ(job_records_reporter(r), -1);
}

TEST(JobRecord, DsmPageSizeDisagreementNamesBothPesAndValues) {
  config c = defaults();
  std::vector<job_record> r(4, job_record_make(c, 1));
  c.dsm_page_size = 8192;
  r[2] = job_record_make(c, 1);
  std::memcpy(r[2].arch, "aarch64", 8);
  r[3] = r[2];
  ASSERT_EQ(job_records_reporter(r), 2) << "the lowest PE that differs from PE 0 reports";
  const auto line = job_records_disagree(r);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find(std::string("PE 2 (aarch64) and PE 0 (") + build_arch() +
                       ") disagree on RDSM_DSM_PAGE_SIZE: 8192 against 4096"),
            std::string::npos)
      << *line;
  EXPECT_EQ(line->find('\n'), std::string::npos);
}

TEST(JobRecord, EachFieldIsCompared) {
  const config c = defaults();
  const job_record base = job_record_make(c, 1);
  auto differ = [&](auto change, const char* what) {
    std::vector<job_record> r{base, base};
    change(r[1]);
    const auto line = job_records_disagree(r);
    ASSERT_TRUE(line.has_value()) << what;
    EXPECT_NE(line->find(what), std::string::npos) << *line;
  };
  differ([](job_record& x) { x.layout_version += 1; }, "wire layout version");
  differ([](job_record& x) { x.byte_order = 0x04030201; }, "byte order");
  differ([](job_record& x) { x.symmetric_size *= 2; }, "SHMEM_SYMMETRIC_SIZE");
  differ([](job_record& x) { x.dsm_size *= 2; }, "RDSM_DSM_SIZE");
  differ([](job_record& x) { std::strcpy(x.dsm_base, "0x300000000000"); }, "RDSM_DSM_BASE");
  differ([](job_record& x) { std::strcpy(x.consistency, "sequential"); }, "RDSM_DSM_CONSISTENCY");
  differ([](job_record& x) { x.os_page_size = 65536; }, "system page size");
  differ([](job_record& x) { x.flags[0] = 1 - x.flags[0]; }, "SHMEM_DEBUG");
  differ([](job_record& x) { x.flags[1] = 1 - x.flags[1]; }, "RDSM_SHARE_GLOBALS");
  differ([](job_record& x) { x.flags[2] = 1 - x.flags[2]; }, "RDSM_SHARE_HEAP");
  differ([](job_record& x) { x.flags[3] = 1 - x.flags[3]; }, "RDSM_COLL_HIERARCHY");
  differ([](job_record& x) { x.sizes[1] += 1; }, "RDSM_COLL_BCAST_PULL");
  differ([](job_record& x) { x.sizes[3] += 1; }, "RDSM_COLL_ALLTOALL_AGGREGATE");
  differ([](job_record& x) { std::strcpy(x.dsm_same_host, "copy"); }, "RDSM_DSM_SAME_HOST");
  // A larger system page is fine when the DSM page is a multiple of it.
  std::vector<job_record> r{base, base};
  r[0].dsm_page_size = r[1].dsm_page_size = 65536;
  r[1].os_page_size = 65536;
  EXPECT_FALSE(job_records_disagree(r).has_value());
}

TEST(GlobalSymbols, ThisExecutablesGlobalIsFoundWithItsSize) {
  const data_segment seg = find_data_segment();
  std::vector<std::string> names;
  const auto table = read_global_symbols(seg, &names);
  ASSERT_EQ(table.size(), names.size());
  const auto at = reinterpret_cast<uintptr_t>(&probe_for_symbols) - seg.start;
  bool found = false;
  for (size_t i = 0; i < table.size(); ++i)
    if (names[i].find("probe_for_symbols") != std::string::npos) {
      EXPECT_EQ(table[i].offset, at);
      EXPECT_EQ(table[i].size, sizeof probe_for_symbols);
      found = true;
    }
  EXPECT_TRUE(found) << table.size() << " symbols read";
  for (size_t i = 1; i < table.size(); ++i) EXPECT_LE(table[i - 1].offset, table[i].offset);
  EXPECT_EQ(executable_identity(seg), executable_identity(seg));
}

TEST(GlobalSymbols, PackedTablesRoundTrip) {
  const std::vector<global_symbol> t{{1, 0, 8}, {2, 64, 400}, {~0ull, 1ull << 40, 3}};
  auto back = unpack_global_symbols(pack_global_symbols(t));
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back.value().size(), t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(back.value()[i].key, t[i].key);
    EXPECT_EQ(back.value()[i].offset, t[i].offset);
    EXPECT_EQ(back.value()[i].size, t[i].size);
  }
  EXPECT_FALSE(unpack_global_symbols(std::string(25, 'x')).ok());
}

TEST(GlobalSymbols, TranslationFindsVariablesByKeyAndRefusesWhatHasNoCounterpart) {
  // Here: a (key 10) at 0, 16 bytes; b (key 20) at 32, 8 bytes; c (key 30) at 48, 8 bytes; d (key 40) at 64.
  std::vector<global_symbol> mine{{10, 0, 16}, {20, 32, 8}, {30, 48, 8}, {40, 64, 8}};
  std::vector<std::string> names{"a", "b", "c", "d"};
  // PE 1 runs this executable; PE 2 another: a at 100, b at 8, c with another size, d defined twice.
  std::vector<std::vector<global_symbol>> others{{{20, 8, 8}, {10, 100, 16}, {30, 200, 4}, {40, 300, 8}, {40, 400, 8}}};
  global_translation t(mine, names, {-1, -1, 0}, others);
  EXPECT_FALSE(t.needed(1));
  EXPECT_TRUE(t.needed(2));
  EXPECT_EQ(t.translate(36, 4, 1).value(), 36u) << "same executable: the same offset";
  EXPECT_EQ(t.translate(4, 8, 2).value(), 104u) << "a + 4 is at 104 on PE 2";
  EXPECT_EQ(t.translate(32, 8, 2).value(), 8u);
  auto past = t.translate(8, 16, 2);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().message().find("global 'a'"), std::string::npos) << past.error().message();
  auto gap = t.translate(20, 4, 2);
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.error().message().find("not a named variable"), std::string::npos);
  auto size = t.translate(48, 8, 2);
  ASSERT_FALSE(size.ok());
  EXPECT_NE(size.error().message().find("8 bytes here but 4 bytes"), std::string::npos) << size.error().message();
  auto twice = t.translate(64, 8, 2);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message().find("several definitions"), std::string::npos);
  global_translation missing(mine, names, {-1, 0}, {{{10, 0, 16}}});
  auto none = missing.translate(32, 8, 1);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message().find("global 'b' has no counterpart in the executable of PE 1"), std::string::npos);
}

}  // namespace
}  // namespace rdsm::detail
