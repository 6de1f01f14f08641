// Teams: the predefined teams, split_strided (valid, degenerate, negative-stride and invalid arguments),
// split_2d with several xranges, translate_pe, get_config, slot reuse over many creations, slot exhaustion,
// and team_sync.
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "coll_test_util.hpp"

using namespace colltest;

namespace {

// Checks a team this PE got from a split against the world PEs that should form it (in team order), then
// proves the team works: an fcollect of world PE numbers over it must list exactly those PEs.
void check_team(shmem_team_t t, const std::vector<int>& members, const char* what) {
  SCOPED_TRACE(what);
  auto it = std::find(members.begin(), members.end(), me());
  if (it == members.end()) {
    EXPECT_EQ(t, SHMEM_TEAM_INVALID) << "non-member got a team";
    EXPECT_EQ(shmem_team_my_pe(t), -1);
    EXPECT_EQ(shmem_team_n_pes(t), -1);
    return;
  }
  ASSERT_NE(t, SHMEM_TEAM_INVALID) << "member got SHMEM_TEAM_INVALID";
  const int n = static_cast<int>(members.size());
  EXPECT_EQ(shmem_team_n_pes(t), n);
  EXPECT_EQ(shmem_team_my_pe(t), static_cast<int>(it - members.begin()));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), members[i]) << "team PE " << i;
    EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, members[i], t), i) << "world PE " << members[i];
  }
  for (int pe = 0; pe < npes(); ++pe)
    if (std::find(members.begin(), members.end(), pe) == members.end()) {
      EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, t), -1) << "world PE " << pe << " is not a member";
    }
  EXPECT_EQ(shmem_team_translate_pe(t, n, SHMEM_TEAM_WORLD), -1);
  EXPECT_EQ(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD), -1);

  // Globals are symmetric: a static array serves as the fcollect's dest.
  static int g_dest[64 + 1];
  static int g_src;
  for (int i = 0; i <= 64; ++i) g_dest[i] = -7;
  g_src = me();
  ASSERT_EQ(shmem_team_sync(t), 0);
  ASSERT_EQ(shmem_int_fcollect(t, g_dest, &g_src, 1), 0);
  for (int i = 0; i < n; ++i) EXPECT_EQ(g_dest[i], members[i]) << "fcollect slot " << i;
  EXPECT_EQ(g_dest[n], -7) << "fcollect wrote past the team's blocks";
  ASSERT_EQ(shmem_team_sync(t), 0);
}

}  // namespace

TEST(Teams, World) {
  EXPECT_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me());
  EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes());
  for (int i = 0; i < npes(); ++i) EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, i, SHMEM_TEAM_WORLD), i);
  shmem_team_config_t cfg{-5};
  EXPECT_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
  EXPECT_EQ(cfg.num_contexts, 0);
  EXPECT_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
  EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1);
  EXPECT_NE(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
}

TEST(Teams, SharedHoldsThePesWhoseMemoryIsMapped) {
  const int n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  const int mine = shmem_team_my_pe(SHMEM_TEAM_SHARED);
  ASSERT_GE(mine, 0);
  ASSERT_LT(mine, n);
  EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, mine, SHMEM_TEAM_WORLD), me());
  // The PEs of this PE's host (RDSM_HOST_ID tells hosts apart, as the multi-host tests set it), in world
  // order; only this PE when the heaps of a host are not mapped (RDSM_SHARE_HEAP=0).
  static long host_of[64];
  static long my_host;
  ASSERT_LE(npes(), 64);
  const char* id = std::getenv("RDSM_HOST_ID");
  my_host = static_cast<long>(std::hash<std::string>{}(id != nullptr ? id : "") & 0x7fffffffffffffff);
  shmem_barrier_all();
  ASSERT_EQ(shmem_fcollectmem(SHMEM_TEAM_WORLD, host_of, &my_host, sizeof(long)), 0);
  const char* share = std::getenv("RDSM_SHARE_HEAP");
  const bool unshared = share != nullptr && std::strcmp(share, "0") == 0;
  std::vector<int> expected;
  for (int pe = 0; pe < npes(); ++pe)
    if (unshared ? pe == me() : host_of[pe] == my_host) expected.push_back(pe);
  ASSERT_EQ(n, static_cast<int>(expected.size()));
  for (int i = 0; i < n; ++i) EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD), expected[i]);
  static long word;
  word = 1000 + me();
  shmem_barrier_all();
  for (int i = 0; i < n; ++i) {
    const int world = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
    ASSERT_GE(world, 0);
    auto* p = static_cast<long*>(shmem_ptr(&word, world));
    ASSERT_NE(p, nullptr) << "shared-team PE " << i << " (world " << world << ") is not load/store accessible";
    EXPECT_EQ(*p, 1000 + world);
  }
  ASSERT_EQ(shmem_team_sync(SHMEM_TEAM_SHARED), 0);
  shmem_barrier_all();
}

TEST(Teams, SplitStridedEveryShape) {
  const int n = npes();
  int created = 0;
  for (int stride = 1; stride <= 3; ++stride)
    for (int start = 0; start < n; ++start)
      for (int size = 1; start + (size - 1) * stride < n; ++size) {
        shmem_team_t t = SHMEM_TEAM_INVALID;
        ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t), 0)
            << start << "/" << stride << "/" << size;
        std::vector<int> members;
        for (int i = 0; i < size; ++i) members.push_back(start + i * stride);
        std::string what = "start " + std::to_string(start) + " stride " + std::to_string(stride) + " size " +
                           std::to_string(size);
        check_team(t, members, what.c_str());
        shmem_team_destroy(t);
        ++created;
        shmem_barrier_all();
      }
  EXPECT_GT(created, 0);
}

TEST(Teams, SplitStridedSizeOneWithStrideZero) {
  const int n = npes();
  shmem_team_t t = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 0, 1, nullptr, 0, &t), 0);
  check_team(t, {n - 1}, "stride 0 size 1");
  shmem_team_destroy(t);
}

TEST(Teams, SplitStridedNegativeStrideNumbersTheTeamDownwards) {
  // Team PE i is parent PE start + stride*i: with a negative stride the team runs downwards through the parent.
  const int n = npes();
  struct args {
    int start, stride, size;
  };
  const args shapes[] = {{n - 1, -1, n}, {n - 1, -2, (n + 1) / 2}, {n - 2, -1, n - 1}, {n - 1, -3, (n + 2) / 3}};
  for (const args& a : shapes) {
    if (a.size < 1 || a.start < 0) continue;
    shmem_team_t t = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, a.start, a.stride, a.size, nullptr, 0, &t), 0);
    std::vector<int> members;
    for (int i = 0; i < a.size; ++i) members.push_back(a.start + a.stride * i);
    const std::string what =
        "start " + std::to_string(a.start) + " stride " + std::to_string(a.stride) + " size " + std::to_string(a.size);
    check_team(t, members, what.c_str());
    if (t != SHMEM_TEAM_INVALID && a.stride == -1 && a.size == n) {
      // A split of the reversed team counts in its numbering: team PEs 0, 2, .. are world PEs n-1, n-3, ..
      shmem_team_t child = SHMEM_TEAM_INVALID;
      ASSERT_EQ(shmem_team_split_strided(t, 0, 2, (n + 1) / 2, nullptr, 0, &child), 0);
      std::vector<int> cm;
      for (int i = 0; i < (n + 1) / 2; ++i) cm.push_back(n - 1 - 2 * i);
      check_team(child, cm, "every other PE of the reversed world");
      shmem_team_destroy(child);
    }
    shmem_team_destroy(t);
    shmem_barrier_all();
  }
}

TEST(Teams, SplitStridedInvalidArgumentsFailEverywhereWithoutHanging) {
  const int n = npes();
  struct args {
    int start, stride, size;
  };
  const args bad[] = {{-1, 1, 1}, {n, 1, 1}, {0, 1, 0}, {0, 1, n + 1}, {0, 0, 2}, {1, 2, n},
                      {n - 1, 1, 2}, {0, -1, 2}, {0, 1, -3}};
  for (const args& a : bad) {
    shmem_team_t t = SHMEM_TEAM_WORLD;  // must be overwritten
    EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_WORLD, a.start, a.stride, a.size, nullptr, 0, &t), 0)
        << a.start << "/" << a.stride << "/" << a.size;
    EXPECT_EQ(t, SHMEM_TEAM_INVALID) << a.start << "/" << a.stride << "/" << a.size;
    shmem_barrier_all();
  }
  // The world still works and slots were not leaked: a valid split right after succeeds.
  shmem_team_t t = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &t), 0);
  std::vector<int> all;
  for (int i = 0; i < n; ++i) all.push_back(i);
  check_team(t, all, "valid after invalid");
  shmem_team_destroy(t);
}

TEST(Teams, SplitOfASubTeamUsesParentNumbering) {
  const int n = npes();
  if (n < 3) GTEST_SKIP() << "needs 3 PEs";
  // parent: world PEs 1..n-1; child: parent PEs 1, 2 (n=4: and 3 excluded) -> world PEs 2, 3.
  shmem_team_t parent = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, n - 1, nullptr, 0, &parent), 0);
  std::vector<int> pm;
  for (int i = 1; i < n; ++i) pm.push_back(i);
  check_team(parent, pm, "parent");
  if (parent != SHMEM_TEAM_INVALID) {
    shmem_team_t child = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_team_split_strided(parent, 1, 1, n - 2, nullptr, 0, &child), 0);
    if (me() >= 2) {
      ASSERT_NE(child, SHMEM_TEAM_INVALID);
      EXPECT_EQ(shmem_team_my_pe(child), me() - 2);
      EXPECT_EQ(shmem_team_n_pes(child), n - 2);
      for (int i = 0; i < n - 2; ++i) {
        EXPECT_EQ(shmem_team_translate_pe(child, i, SHMEM_TEAM_WORLD), i + 2);
        EXPECT_EQ(shmem_team_translate_pe(child, i, parent), i + 1);
      }
      EXPECT_EQ(shmem_team_translate_pe(parent, 0, child), -1);  // world PE 1 is not in the child
      ASSERT_EQ(shmem_team_sync(child), 0);
      shmem_team_destroy(child);
    } else {
      EXPECT_EQ(child, SHMEM_TEAM_INVALID);
    }
    // A 2-D split of the sub-team: parent PEs in rows of 2.
    shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_team_split_2d(parent, 2, nullptr, 0, &x, nullptr, 0, &y), 0);
    const int pme = me() - 1;
    ASSERT_NE(x, SHMEM_TEAM_INVALID);
    ASSERT_NE(y, SHMEM_TEAM_INVALID);
    EXPECT_EQ(shmem_team_translate_pe(x, 0, SHMEM_TEAM_WORLD), 1 + (pme / 2) * 2);
    EXPECT_EQ(shmem_team_translate_pe(y, 0, SHMEM_TEAM_WORLD), 1 + pme % 2);
    EXPECT_EQ(shmem_team_my_pe(x), pme % 2);
    EXPECT_EQ(shmem_team_my_pe(y), pme / 2);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
    shmem_team_destroy(parent);
  } else {
    EXPECT_EQ(me(), 0);
  }
  shmem_barrier_all();
}

TEST(Teams, Split2dRowsAndColumns) {
  const int n = npes();
  for (int xrange : {1, 2, 3, n + 2}) {
    SCOPED_TRACE("xrange " + std::to_string(xrange));
    shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    shmem_team_config_t xc{2}, yc{5};
    ASSERT_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, &xc, SHMEM_TEAM_NUM_CONTEXTS, &x, &yc,
                                  SHMEM_TEAM_NUM_CONTEXTS, &y),
              0);
    const int xr = std::min(xrange, n);
    const int row = me() / xr, col = me() % xr;
    std::vector<int> rm, cm;
    for (int pe = row * xr; pe < std::min(n, (row + 1) * xr); ++pe) rm.push_back(pe);
    for (int pe = col; pe < n; pe += xr) cm.push_back(pe);
    check_team(x, rm, "row");
    check_team(y, cm, "column");
    shmem_team_config_t got{-1};
    EXPECT_EQ(shmem_team_get_config(x, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    EXPECT_EQ(got.num_contexts, 2);
    EXPECT_EQ(shmem_team_get_config(y, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    EXPECT_EQ(got.num_contexts, 5);
    // translate between the two axes: only this PE is in both.
    for (int i = 0; i < static_cast<int>(rm.size()); ++i)
      EXPECT_EQ(shmem_team_translate_pe(x, i, y), rm[i] == me() ? shmem_team_my_pe(y) : -1) << "row PE " << i;
    shmem_team_destroy(x);
    shmem_team_destroy(y);
    shmem_barrier_all();
  }
  shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
  EXPECT_NE(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, nullptr, 0, &x, nullptr, 0, &y), 0);
  EXPECT_EQ(x, SHMEM_TEAM_INVALID);
  EXPECT_EQ(y, SHMEM_TEAM_INVALID);
  shmem_barrier_all();
}

TEST(Teams, GetConfigReturnsTheCreationConfig) {
  shmem_team_config_t cfg{3};
  shmem_team_t t = SHMEM_TEAM_INVALID, u = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes(), &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t), 0);
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes(), &cfg, 0, &u), 0);  // mask 0: ignored
  shmem_team_config_t got{-1};
  EXPECT_EQ(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
  EXPECT_EQ(got.num_contexts, 3);
  got.num_contexts = -1;
  EXPECT_EQ(shmem_team_get_config(u, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
  EXPECT_EQ(got.num_contexts, 0);
  got.num_contexts = -1;
  EXPECT_EQ(shmem_team_get_config(t, 0, &got), 0);  // mask 0: nothing written
  EXPECT_EQ(got.num_contexts, -1);
  EXPECT_EQ(shmem_team_get_config(t, 0, nullptr), 0);  // 1.6: mask 0 with a null config is no error
  EXPECT_NE(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, nullptr), 0);  // undefined: refused
  shmem_team_destroy(t);
  shmem_team_destroy(u);
}

TEST(Teams, DestroyReusesSlotsOverManyCreations) {
  const int n = npes();
  std::vector<int> all;
  for (int i = 0; i < n; ++i) all.push_back(i);
  const int rounds = on_tcp() ? 70 : 150;
  for (int r = 0; r < rounds; ++r) {
    shmem_team_t a = SHMEM_TEAM_INVALID, b = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &a), 0) << "round " << r;
    // Alternate: sometimes hold two overlapping teams at once (distinct slots).
    if (r % 3 == 0) {
      ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 1, 1, nullptr, 0, &b), 0);
    }
    if (r % 10 == 0) {
      check_team(a, all, "reused slot");
      if (r % 3 == 0) {
        check_team(b, {n - 1}, "second team");
      }
    } else {
      static long word, sum;
      word = r + me();
      ASSERT_EQ(shmem_team_sync(a), 0);
      ASSERT_EQ(shmem_long_sum_reduce(a, &sum, &word, 1), 0);
      EXPECT_EQ(sum, static_cast<long>(r) * n + static_cast<long>(n) * (n - 1) / 2) << "round " << r;
    }
    shmem_team_destroy(b);
    shmem_team_destroy(a);
  }
}

TEST(Teams, ExhaustingSlotsFailsCleanlyAndDestroyFreesThem) {
  const int n = npes();
  std::vector<shmem_team_t> held;
  int rc = 0;
  for (int i = 0; i < 100; ++i) {
    shmem_team_t t = SHMEM_TEAM_WORLD;
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &t);
    if (rc != 0) {
      EXPECT_EQ(t, SHMEM_TEAM_INVALID);
      break;
    }
    ASSERT_NE(t, SHMEM_TEAM_INVALID);
    held.push_back(t);
  }
  EXPECT_NE(rc, 0) << "100 live teams: the slot pool should have run out";
  EXPECT_GE(held.size(), 8u);  // at least a useful number of concurrent teams
  // Every held team still works.
  static long one = 1, count;
  for (shmem_team_t t : held) {
    count = 0;
    ASSERT_EQ(shmem_long_sum_reduce(t, &count, &one, 1), 0);
    EXPECT_EQ(count, n);
  }
  for (shmem_team_t t : held) shmem_team_destroy(t);
  shmem_team_t t = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &t), 0);
  EXPECT_NE(t, SHMEM_TEAM_INVALID);
  shmem_team_destroy(t);
}

TEST(Teams, TeamSyncWaitsForEveryMember) {
  // Members other than team PE 0 arrive late, each after a fetching (hence complete) atomic add on team PE
  // 0's counter; team PE 0 must see every add when its team_sync returns.
  const int n = npes();
  shmem_team_t t = SHMEM_TEAM_INVALID;
  const int size = (n + 1) / 2;  // world PEs 0, 2, ..
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, size, nullptr, 0, &t), 0);
  static long counter;
  counter = 0;
  shmem_barrier_all();
  if (t != SHMEM_TEAM_INVALID) {
    const int rounds = 5;
    for (int r = 1; r <= rounds; ++r) {
      if (shmem_team_my_pe(t) != 0) {
        usleep(20000);
        shmem_long_atomic_fetch_add(&counter, 1, 0);
      }
      ASSERT_EQ(shmem_team_sync(t), 0);
      if (shmem_team_my_pe(t) == 0) {
        EXPECT_EQ(shmem_long_atomic_fetch(&counter, 0), static_cast<long>(r) * (size - 1));
      }
      ASSERT_EQ(shmem_team_sync(t), 0);
    }
    ASSERT_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);
  } else {
    ASSERT_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);
  }
  shmem_team_destroy(t);
  shmem_barrier_all();
}
