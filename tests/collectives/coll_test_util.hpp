// Helpers shared by the multi-PE tests of teams, contexts and collectives: TCP detection, test values,
// and a set of teams (world, strided, 2-D rows and columns) to run every collective on.
#pragma once

#include <gtest/gtest.h>
#include <shmem.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../support/long_double.hpp"

namespace colltest {

inline int me() { return shmem_my_pe(); }
inline int npes() { return shmem_n_pes(); }

// True when the job runs over UCX's TCP transport (RMA and AMOs emulated): sizes and repeats are lowered.
inline bool on_tcp() {
  const char* tls = std::getenv("UCX_TLS");
  return tls != nullptr && std::strstr(tls, "tcp") != nullptr;
}

using rdsm_test::long_double_alike;

// A byte for position i of a block owned by world PE pe; never 0 (0xEE is the "untouched" sentinel).
inline unsigned char byte_of(int pe, size_t i, int salt = 0) {
  return static_cast<unsigned char>(1 + (static_cast<size_t>(pe) * 131 + i * 7 + i / 251 + salt * 17) % 230);
}
constexpr unsigned char sentinel = 0xEE;

// A value for element i of PE pe in 1..100, exact in every RMA type (char included); 0 is never produced.
template <class T>
inline T enc(int pe, size_t i, int salt = 0) {
  return static_cast<T>(1 + (pe * 29 + static_cast<int>(i) * 7 + salt * 13) % 100);
}

// Index of the first byte where got differs from want, or -1.
inline long first_diff(const unsigned char* got, const std::vector<unsigned char>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) return static_cast<long>(i);
  return -1;
}

// A team to run collectives on, with the world PEs of its members (empty handle on non-members).
struct team_case {
  std::string name;
  shmem_team_t team = SHMEM_TEAM_INVALID;
  std::vector<int> members;  // world PE of team PE i
  bool owned = false;
  bool member() const { return team != SHMEM_TEAM_INVALID; }
};

// World; parent PEs 1,3,5.. (stride 2); a reversed set (negative stride); rows and columns of a 2-D split
// with xrange 2 (on 3 PEs: rows {0,1},{2}; columns {0,2},{1}). Collective over the world.
inline std::vector<team_case> make_team_cases() {
  const int n = npes();
  std::vector<team_case> cases;
  team_case w{"world", SHMEM_TEAM_WORLD, {}, false};
  for (int i = 0; i < n; ++i) w.members.push_back(i);
  cases.push_back(w);

  if (n >= 2) {
    team_case s{"stride2", SHMEM_TEAM_INVALID, {}, true};
    const int size = n / 2;
    EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, size, nullptr, 0, &s.team), 0);
    for (int i = 0; i < size; ++i) s.members.push_back(1 + 2 * i);
    cases.push_back(s);
  }
  if (n >= 2) {
    team_case r{"reversed", SHMEM_TEAM_INVALID, {}, true};  // team PE i is world PE n-1-i
    EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &r.team), 0);
    for (int i = 0; i < n; ++i) r.members.push_back(n - 1 - i);
    cases.push_back(r);
  }
  team_case x{"row", SHMEM_TEAM_INVALID, {}, true}, y{"column", SHMEM_TEAM_INVALID, {}, true};
  EXPECT_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, nullptr, 0, &x.team, nullptr, 0, &y.team), 0);
  const int row = me() / 2, col = me() % 2;
  for (int pe = row * 2; pe < std::min(n, row * 2 + 2); ++pe) x.members.push_back(pe);
  for (int pe = col; pe < n; pe += 2) y.members.push_back(pe);
  cases.push_back(x);
  cases.push_back(y);
  for (auto& c : cases) {
    bool in = false;
    for (int pe : c.members) in |= pe == me();
    EXPECT_EQ(c.member(), in) << c.name;
    if (c.member()) {
      EXPECT_EQ(shmem_team_n_pes(c.team), static_cast<int>(c.members.size())) << c.name;
    }
  }
  return cases;
}

inline void destroy_team_cases(std::vector<team_case>& cases) {
  for (auto& c : cases)
    if (c.owned && c.member()) shmem_team_destroy(c.team);
  cases.clear();
}

// Destroys a program's team cases after its last test, whatever order the tests ran in (gtest's global
// tear-down runs on every PE before main's shmem_finalize). Register it at namespace scope:
//   [[maybe_unused]] const auto* const teardown = testing::AddGlobalTestEnvironment(new team_cases_teardown(teams));
class team_cases_teardown final : public testing::Environment {
 public:
  explicit team_cases_teardown(std::vector<team_case>& (*cases)()) : cases_(cases) {}
  void TearDown() override {
    destroy_team_cases(cases_());
    shmem_barrier_all();
  }

 private:
  std::vector<team_case>& (*cases_)();
};

// Runs body(team_case) on each team this PE belongs to; world barrier between teams (non-members wait).
template <class F>
inline void for_each_team(std::vector<team_case>& cases, F&& body) {
  for (auto& c : cases) {
    if (c.member()) {
      SCOPED_TRACE("team " + c.name);
      body(c);
    }
    shmem_barrier_all();
  }
}

}  // namespace colltest
