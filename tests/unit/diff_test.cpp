// Byte-exact diffs of a page against its twin (src/dsm/diff.hpp): the runs found, checked against a byte by
// byte reference, because a run one byte too wide overwrites another writer's byte at the home.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "dsm/diff.hpp"

using rdsm::detail::dsm::for_each_changed_run;

namespace {

using runs = std::vector<std::pair<size_t, size_t>>;

constexpr size_t page = 4096;

struct diff {
  runs found;
  size_t bytes = 0;
};

diff changed(const std::vector<char>& now, const std::vector<char>& was) {
  diff d;
  d.bytes = for_each_changed_run(now.data(), was.data(), now.size(), [&](size_t at, size_t n) {
    d.found.emplace_back(at, n);
  });
  return d;
}

// The reference: maximal runs of differing bytes, one byte at a time.
runs reference(const std::vector<char>& now, const std::vector<char>& was) {
  runs r;
  for (size_t i = 0; i < now.size(); ++i) {
    if (now[i] == was[i]) continue;
    if (!r.empty() && r.back().first + r.back().second == i) ++r.back().second;
    else r.emplace_back(i, 1);
  }
  return r;
}

std::vector<char> twin_of(size_t n) {
  std::vector<char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(i * 7 + 3);
  return v;
}

TEST(ChangedRuns, NoChangeNoRun) {
  const std::vector<char> was = twin_of(page);
  const diff d = changed(was, was);
  EXPECT_TRUE(d.found.empty());
  EXPECT_EQ(d.bytes, 0u);
}

TEST(ChangedRuns, AByteStoredWithItsOwnValueIsNoChange) {
  const std::vector<char> was = twin_of(page);
  std::vector<char> now = was;
  now[100] = was[100];
  EXPECT_TRUE(changed(now, was).found.empty());
}

TEST(ChangedRuns, OneByteAnywhereIsOneRunOfOneByte) {
  const std::vector<char> was = twin_of(page);
  std::vector<char> now = was;
  for (size_t i = 0; i < page; ++i) {
    now[i] = static_cast<char>(~was[i]);
    const diff d = changed(now, was);
    ASSERT_EQ(d.found, (runs{{i, 1}})) << "byte " << i;
    ASSERT_EQ(d.bytes, 1u);
    now[i] = was[i];
  }
}

TEST(ChangedRuns, RunsAtThePagesStartAndEnd) {
  const std::vector<char> was = twin_of(page);
  std::vector<char> now = was;
  for (size_t i = 0; i < 3; ++i) now[i] = static_cast<char>(~was[i]);
  for (size_t i = page - 6; i < page; ++i) now[i] = static_cast<char>(~was[i]);
  const diff d = changed(now, was);
  EXPECT_EQ(d.found, (runs{{0, 3}, {page - 6, 6}}));
  EXPECT_EQ(d.bytes, 9u);
}

TEST(ChangedRuns, AdjacentWordsMakeOneRun) {
  const std::vector<char> was = twin_of(page);
  std::vector<char> now = was;
  now[7] = static_cast<char>(~was[7]);  // the last byte of one 8-byte word and the first of the next
  now[8] = static_cast<char>(~was[8]);
  EXPECT_EQ(changed(now, was).found, (runs{{7, 2}}));
  for (size_t i = 16; i < 40; ++i) now[i] = static_cast<char>(~was[i]);  // three whole words
  EXPECT_EQ(changed(now, was).found, (runs{{7, 2}, {16, 24}}));
  now[9] = static_cast<char>(~was[9]);
  now[11] = static_cast<char>(~was[11]);  // a gap of one unchanged byte splits runs
  const diff d = changed(now, was);
  EXPECT_EQ(d.found, (runs{{7, 3}, {11, 1}, {16, 24}}));
  EXPECT_EQ(d.bytes, 28u);
}

TEST(ChangedRuns, InterleavedWritersBytesStayApart) {
  // Two writers of alternate bytes of the same words: each one's diff names only its own bytes.
  const std::vector<char> was = twin_of(page);
  std::vector<char> now = was;
  for (size_t i = 0; i < page; i += 2) now[i] = static_cast<char>(~was[i]);
  const diff d = changed(now, was);
  ASSERT_EQ(d.found.size(), page / 2);
  for (size_t k = 0; k < d.found.size(); ++k) EXPECT_EQ(d.found[k], std::make_pair(2 * k, size_t{1}));
  EXPECT_EQ(d.bytes, page / 2);
}

TEST(ChangedRuns, AWholePageIsOneRun) {
  const std::vector<char> was = twin_of(page);
  std::vector<char> now(page);
  for (size_t i = 0; i < page; ++i) now[i] = static_cast<char>(~was[i]);
  const diff d = changed(now, was);
  EXPECT_EQ(d.found, (runs{{0, page}}));
  EXPECT_EQ(d.bytes, page);
}

TEST(ChangedRuns, LengthsThatAreNotWholeWords) {
  for (size_t n : {size_t{1}, size_t{7}, size_t{9}, size_t{13}, size_t{15}}) {
    const std::vector<char> was = twin_of(n);
    std::vector<char> now = was;
    now[n - 1] = static_cast<char>(~was[n - 1]);
    EXPECT_EQ(changed(now, was).found, (runs{{n - 1, 1}})) << n << " bytes";
    now[0] = static_cast<char>(~was[0]);
    EXPECT_EQ(changed(now, was).found, reference(now, was)) << n << " bytes";
  }
}

TEST(ChangedRuns, RandomChangesMatchTheReference) {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 500; ++trial) {
    const std::vector<char> was = twin_of(page);
    std::vector<char> now = was;
    const int writes = static_cast<int>(rng() % 64);
    for (int w = 0; w < writes; ++w) {
      const size_t at = rng() % page;
      const size_t len = std::min<size_t>(page - at, 1 + rng() % 24);
      for (size_t i = at; i < at + len; ++i)
        now[i] = static_cast<char>(rng() % 4 == 0 ? was[i] : ~was[i]);  // some stores write the same value
    }
    const runs expected = reference(now, was);
    const diff d = changed(now, was);
    ASSERT_EQ(d.found, expected) << "trial " << trial;
    size_t bytes = 0;
    for (const auto& r : expected) bytes += r.second;
    ASSERT_EQ(d.bytes, bytes) << "trial " << trial;
  }
}

}  // namespace
