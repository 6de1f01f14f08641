// Unit tests of the configuration table: SHMEM_SYMMETRIC_SIZE parsing and malformed values.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "common/config.hpp"

using rdsm::detail::config_load;
using rdsm::detail::parse_duration;
using rdsm::detail::parse_size;

TEST(ParseSize, PlainAndSuffixed) {
  EXPECT_EQ(parse_size("0").value(), 0u);
  EXPECT_EQ(parse_size("65536").value(), 65536u);
  EXPECT_EQ(parse_size("20m").value(), 20u << 20);
  EXPECT_EQ(parse_size("20M").value(), 20u << 20);
  EXPECT_EQ(parse_size("4k").value(), 4096u);
  EXPECT_EQ(parse_size("2G").value(), uint64_t{2} << 30);
  EXPECT_EQ(parse_size("1T").value(), uint64_t{1} << 40);
  EXPECT_EQ(parse_size("64MB").value(), uint64_t{64} << 20);
}

TEST(ParseSize, FractionsRoundUp) {
  EXPECT_EQ(parse_size(".5G").value(), uint64_t{1} << 29);
  EXPECT_EQ(parse_size("1.5K").value(), 1536u);
  // 3.1 MiB is 3250585.6 bytes: rounds up.
  EXPECT_EQ(parse_size("3.1M").value(), 3250586u);
  EXPECT_EQ(parse_size("0.1").value(), 1u);
}

TEST(ParseSize, Malformed) {
  for (const char* bad : {"", "M", "abc", "12Q", "1..2", "-5", "1.2.3", "5 M", "1e6", "99999999999999999999"})
    EXPECT_FALSE(parse_size(bad).ok()) << bad;
}

TEST(ParseDuration, UnitsAndPlainSeconds) {
  EXPECT_EQ(parse_duration("60s").value(), uint64_t{60'000'000'000});
  EXPECT_EQ(parse_duration("60").value(), uint64_t{60'000'000'000});
  EXPECT_EQ(parse_duration("100us").value(), uint64_t{100'000});
  EXPECT_EQ(parse_duration("500ms").value(), uint64_t{500'000'000});
  EXPECT_EQ(parse_duration("2m").value(), uint64_t{120'000'000'000});
  EXPECT_EQ(parse_duration("2min").value(), uint64_t{120'000'000'000});
  EXPECT_EQ(parse_duration("1h").value(), uint64_t{3'600'000'000'000});
  EXPECT_EQ(parse_duration("1.5S").value(), uint64_t{1'500'000'000});
  EXPECT_EQ(parse_duration(".25").value(), uint64_t{250'000'000});
  EXPECT_EQ(parse_duration("off").value(), 0u);
  EXPECT_EQ(parse_duration("0").value(), 0u);
  EXPECT_EQ(parse_duration("0ms").value(), 0u);
}

TEST(ParseDuration, Malformed) {
  for (const char* bad : {"", "s", "abc", "10x", "-1s", "1..2s", "5 s", "1e3", "60sec", "99999999999999999999"})
    EXPECT_FALSE(parse_duration(bad).ok()) << bad;
}

TEST(ConfigLoad, MalformedDurationIsNamed) {
  setenv("RDSM_HANG_REPORT", "soon", 1);
  auto c = config_load();
  unsetenv("RDSM_HANG_REPORT");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("RDSM_HANG_REPORT=\"soon\" is not valid"), std::string::npos)
      << c.error().message();
  setenv("RDSM_HANG_REPORT", "1500ms", 1);
  auto d = config_load();
  unsetenv("RDSM_HANG_REPORT");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().hang_report, uint64_t{1'500'000'000});
}

TEST(ConfigLoad, MalformedVariableIsNamed) {
  setenv("SHMEM_SYMMETRIC_SIZE", "12Q", 1);
  auto c = config_load();
  unsetenv("SHMEM_SYMMETRIC_SIZE");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("SHMEM_SYMMETRIC_SIZE"), std::string::npos) << c.error().message();
}

TEST(ConfigLoad, ChoiceAndFlag) {
  setenv("RDSM_PROGRESS_THREAD", "sometimes", 1);
  auto bad = config_load();
  unsetenv("RDSM_PROGRESS_THREAD");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("auto|on|off"), std::string::npos) << bad.error().message();

  setenv("SHMEM_DEBUG", "yes", 1);
  setenv("RDSM_PROGRESS_THREAD", "OFF", 1);
  auto good = config_load();
  unsetenv("SHMEM_DEBUG");
  unsetenv("RDSM_PROGRESS_THREAD");
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(good.value().debug);
  EXPECT_EQ(good.value().progress_thread, "off");
}

TEST(ConfigLoad, DefaultsAndSources) {
  auto c = config_load();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value().symmetric_size, uint64_t{512} << 20);
  bool found = false;
  for (const auto& e : rdsm::detail::config_describe()) {
    if (std::string(e.variable) == "SHMEM_SYMMETRIC_SIZE") {
      found = true;
      EXPECT_FALSE(e.from_environment);
    }
  }
  EXPECT_TRUE(found);
}

TEST(ConfigLoad, OpenShmemSwitchesTakeAnyValue) {
  // OpenSHMEM lists "Any" as the value of SHMEM_DEBUG, SHMEM_INFO and SHMEM_VERSION: never an error.
  for (const char* on : {"1", "abc", "2", "all", "yes"}) {
    setenv("SHMEM_INFO", on, 1);
    auto c = config_load();
    unsetenv("SHMEM_INFO");
    ASSERT_TRUE(c.ok()) << on << ": " << c.error().message();
    EXPECT_TRUE(c.value().info) << on;
  }
  for (const char* off : {"0", "no", "off", "false", ""}) {
    setenv("SHMEM_VERSION", off, 1);
    auto c = config_load();
    unsetenv("SHMEM_VERSION");
    ASSERT_TRUE(c.ok()) << off;
    EXPECT_FALSE(c.value().version) << off;
  }
  setenv("RDSM_SHARE_HEAP", "abc", 1);  // an rdsm flag stays strict
  auto strict = config_load();
  unsetenv("RDSM_SHARE_HEAP");
  EXPECT_FALSE(strict.ok());
}

TEST(ConfigLoad, DeprecatedSmaNamesAreRead) {
  setenv("SMA_SYMMETRIC_SIZE", "2M", 1);
  setenv("SMA_DEBUG", "1", 1);
  auto c = config_load();
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c.value().symmetric_size, uint64_t{2} << 20);
  EXPECT_TRUE(c.value().debug);
  setenv("SHMEM_SYMMETRIC_SIZE", "4M", 1);  // the SHMEM_ name wins when both are set
  auto both = config_load();
  unsetenv("SHMEM_SYMMETRIC_SIZE");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both.value().symmetric_size, uint64_t{4} << 20);
  setenv("SMA_SYMMETRIC_SIZE", "12Q", 1);  // a malformed value names the variable it came from
  auto bad = config_load();
  unsetenv("SMA_SYMMETRIC_SIZE");
  unsetenv("SMA_DEBUG");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("SMA_SYMMETRIC_SIZE=\"12Q\""), std::string::npos) << bad.error().message();
}
