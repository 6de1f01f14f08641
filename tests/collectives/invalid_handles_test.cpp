// The invalid handles: every routine that takes a context performs no operation on SHMEM_CTX_INVALID, and the
// team routines given SHMEM_TEAM_INVALID do nothing and report it (nonzero, -1, NULL or an invalid handle).
#include <algorithm>
#include <cstdint>

#include "../support/every_collective.hpp"
#include "coll_test_util.hpp"

using namespace colltest;

namespace {

constexpr unsigned char untouched = 0x5A;
alignas(64) unsigned char g_target[1024];  // symmetric: what a context operation would change on the peer
uint64_t g_sig;

// Every typed, sized and mem shmem_ctx_* RMA, signal and AMO routine on SHMEM_CTX_INVALID against the right
// neighbour's g_target, with local buffers holding `untouched`; returns how many fetched a nonzero value or
// changed a local buffer.
int call_every_context_routine() {
  const shmem_ctx_t bad = SHMEM_CTX_INVALID;
  const int r = (me() + 1) % npes();
  alignas(64) unsigned char local[256];
  std::fill(std::begin(local), std::end(local), untouched);
  int changed = 0;
#define RDSM_CALL_RMA(T, N)                                                                      \
  {                                                                                              \
    T* d = reinterpret_cast<T*>(g_target);                                                       \
    T* l = reinterpret_cast<T*>(local);                                                          \
    const T s[4] = {static_cast<T>(1), static_cast<T>(2), static_cast<T>(3), static_cast<T>(4)}; \
    shmem_ctx_##N##_put(bad, d, s, 4, r);                                                        \
    shmem_ctx_##N##_put_nbi(bad, d, s, 4, r);                                                    \
    shmem_ctx_##N##_p(bad, d, s[0], r);                                                          \
    shmem_ctx_##N##_iput(bad, d, s, 2, 1, 2, r);                                                 \
    shmem_ctx_##N##_put_signal(bad, d, s, 4, &g_sig, 1, SHMEM_SIGNAL_SET, r);                    \
    shmem_ctx_##N##_put_signal_nbi(bad, d, s, 4, &g_sig, 1, SHMEM_SIGNAL_ADD, r);                \
    shmem_ctx_##N##_get(bad, l, d, 4, r);                                                        \
    shmem_ctx_##N##_get_nbi(bad, l, d, 4, r);                                                    \
    shmem_ctx_##N##_iget(bad, l, d, 1, 2, 2, r);                                                 \
    changed += shmem_ctx_##N##_g(bad, d, r) != static_cast<T>(0);                                \
  }
  RDSM_SHMEM_RMA_TYPES(RDSM_CALL_RMA)
#undef RDSM_CALL_RMA
#define RDSM_CALL_SIZED(B)                                                                \
  shmem_ctx_put##B(bad, g_target, local, 2, r);                                           \
  shmem_ctx_put##B##_nbi(bad, g_target, local, 2, r);                                     \
  shmem_ctx_iput##B(bad, g_target, local, 2, 1, 2, r);                                    \
  shmem_ctx_put##B##_signal(bad, g_target, local, 2, &g_sig, 1, SHMEM_SIGNAL_SET, r);     \
  shmem_ctx_put##B##_signal_nbi(bad, g_target, local, 2, &g_sig, 1, SHMEM_SIGNAL_ADD, r); \
  shmem_ctx_get##B(bad, local, g_target, 2, r);                                           \
  shmem_ctx_get##B##_nbi(bad, local, g_target, 2, r);                                     \
  shmem_ctx_iget##B(bad, local, g_target, 1, 2, 2, r);
  RDSM_SHMEM_SIZES(RDSM_CALL_SIZED)
#undef RDSM_CALL_SIZED
  unsigned char ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  shmem_ctx_putmem(bad, g_target, ones, 8, r);
  shmem_ctx_putmem_nbi(bad, g_target, ones, 8, r);
  shmem_ctx_putmem_signal(bad, g_target, ones, 8, &g_sig, 1, SHMEM_SIGNAL_SET, r);
  shmem_ctx_putmem_signal_nbi(bad, g_target, ones, 8, &g_sig, 1, SHMEM_SIGNAL_ADD, r);
  shmem_ctx_getmem(bad, local, g_target, 8, r);
  shmem_ctx_getmem_nbi(bad, local, g_target, 8, r);
#define RDSM_CALL_EXT_AMO(T, N)                                                                \
  {                                                                                            \
    T* d = reinterpret_cast<T*>(g_target);                                                     \
    T* f = reinterpret_cast<T*>(local);                                                        \
    changed += shmem_ctx_##N##_atomic_fetch(bad, d, r) != static_cast<T>(0);                   \
    shmem_ctx_##N##_atomic_set(bad, d, static_cast<T>(1), r);                                  \
    changed += shmem_ctx_##N##_atomic_swap(bad, d, static_cast<T>(1), r) != static_cast<T>(0); \
    shmem_ctx_##N##_atomic_fetch_nbi(bad, f, d, r);                                            \
    shmem_ctx_##N##_atomic_swap_nbi(bad, f, d, static_cast<T>(1), r);                          \
  }
  RDSM_SHMEM_EXT_AMO_TYPES(RDSM_CALL_EXT_AMO)
#undef RDSM_CALL_EXT_AMO
#define RDSM_CALL_AMO(T, N)                                                                                        \
  {                                                                                                                \
    T* d = reinterpret_cast<T*>(g_target);                                                                         \
    T* f = reinterpret_cast<T*>(local);                                                                            \
    changed +=                                                                                                     \
        shmem_ctx_##N##_atomic_compare_swap(bad, d, static_cast<T>(0), static_cast<T>(1), r) != static_cast<T>(0); \
    changed += shmem_ctx_##N##_atomic_fetch_inc(bad, d, r) != static_cast<T>(0);                                   \
    shmem_ctx_##N##_atomic_inc(bad, d, r);                                                                         \
    changed += shmem_ctx_##N##_atomic_fetch_add(bad, d, static_cast<T>(1), r) != static_cast<T>(0);                \
    shmem_ctx_##N##_atomic_add(bad, d, static_cast<T>(1), r);                                                      \
    shmem_ctx_##N##_atomic_compare_swap_nbi(bad, f, d, static_cast<T>(0), static_cast<T>(1), r);                   \
    shmem_ctx_##N##_atomic_fetch_inc_nbi(bad, f, d, r);                                                            \
    shmem_ctx_##N##_atomic_fetch_add_nbi(bad, f, d, static_cast<T>(1), r);                                         \
  }
  RDSM_SHMEM_AMO_TYPES(RDSM_CALL_AMO)
#undef RDSM_CALL_AMO
#define RDSM_CALL_BITWISE_AMO(T, N)                                                                 \
  {                                                                                                 \
    T* d = reinterpret_cast<T*>(g_target);                                                          \
    T* f = reinterpret_cast<T*>(local);                                                             \
    changed += shmem_ctx_##N##_atomic_fetch_and(bad, d, static_cast<T>(1), r) != static_cast<T>(0); \
    changed += shmem_ctx_##N##_atomic_fetch_or(bad, d, static_cast<T>(1), r) != static_cast<T>(0);  \
    changed += shmem_ctx_##N##_atomic_fetch_xor(bad, d, static_cast<T>(1), r) != static_cast<T>(0); \
    shmem_ctx_##N##_atomic_and(bad, d, static_cast<T>(1), r);                                       \
    shmem_ctx_##N##_atomic_or(bad, d, static_cast<T>(1), r);                                        \
    shmem_ctx_##N##_atomic_xor(bad, d, static_cast<T>(1), r);                                       \
    shmem_ctx_##N##_atomic_fetch_and_nbi(bad, f, d, static_cast<T>(1), r);                          \
    shmem_ctx_##N##_atomic_fetch_or_nbi(bad, f, d, static_cast<T>(1), r);                           \
    shmem_ctx_##N##_atomic_fetch_xor_nbi(bad, f, d, static_cast<T>(1), r);                          \
  }
  RDSM_SHMEM_BITWISE_AMO_TYPES(RDSM_CALL_BITWISE_AMO)
#undef RDSM_CALL_BITWISE_AMO
  shmem_ctx_fence(bad);
  shmem_ctx_quiet(bad);
  shmem_ctx_destroy(bad);
  changed += static_cast<int>(
      std::count_if(std::begin(local), std::end(local), [](unsigned char b) { return b != untouched; }));
  return changed;
}

}  // namespace

TEST(InvalidHandles, EveryContextRoutineDoesNothingOnCtxInvalid) {
  std::fill(std::begin(g_target), std::end(g_target), untouched);
  g_sig = 0;
  shmem_barrier_all();
  EXPECT_EQ(call_every_context_routine(), 0) << "a fetch returned nonzero or a local buffer changed";
  shmem_barrier_all();
  EXPECT_EQ(std::count_if(std::begin(g_target), std::end(g_target), [](unsigned char b) { return b != untouched; }),
            0)
      << "a context operation reached this PE's memory";
  EXPECT_EQ(g_sig, 0u) << "a signal reached this PE";
  shmem_barrier_all();
}

TEST(InvalidHandles, TeamRoutinesOnTeamInvalidDoNothingAndSayNonzero) {
  static long src[4] = {1, 2, 3, 4}, dst[16];
  std::fill(std::begin(dst), std::end(dst), -7L);
  shmem_barrier_all();
  const shmem_team_t bad = SHMEM_TEAM_INVALID;
  EXPECT_NE(shmem_team_sync(bad), 0);
  EXPECT_EQ(every_team_collective(bad, dst, src, 4), every_team_collective_calls) << "a collective returned 0";
  for (long v : dst) EXPECT_EQ(v, -7L) << "a collective on SHMEM_TEAM_INVALID wrote dest";
  EXPECT_EQ(shmem_team_my_pe(bad), -1);
  EXPECT_EQ(shmem_team_n_pes(bad), -1);
  EXPECT_EQ(shmem_team_ptr(bad, dst, 0), nullptr);
  shmem_team_config_t cfg{-3};
  EXPECT_NE(shmem_team_get_config(bad, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
  EXPECT_EQ(cfg.num_contexts, -3);
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  EXPECT_NE(shmem_team_create_ctx(bad, 0, &ctx), 0);
  EXPECT_EQ(ctx, SHMEM_CTX_INVALID);
  shmem_team_destroy(bad);
  shmem_barrier_all();
}

TEST(InvalidHandles, PesOutsideASubTeamPassItsHandleToCollectives) {
  // World PEs 0..k-1 form the team; the others hold SHMEM_TEAM_INVALID and call the same collectives.
  const int k = (npes() + 1) / 2;
  shmem_team_t t = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, k, nullptr, 0, &t), 0);
  static long one = 1, sum;
  sum = -1;
  const bool member = me() < k;
  EXPECT_EQ(shmem_long_sum_reduce(t, &sum, &one, 1) == 0, member);
  EXPECT_EQ(shmem_team_sync(t) == 0, member);
  EXPECT_EQ(sum, member ? k : -1);
  shmem_team_destroy(t);
  shmem_barrier_all();
}

TEST(InvalidHandles, CtxGetTeamOfCtxInvalidSetsTeamInvalid) {
  shmem_team_t t = SHMEM_TEAM_WORLD;  // must be overwritten
  EXPECT_NE(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t), 0);
  EXPECT_EQ(t, SHMEM_TEAM_INVALID);
}

TEST(InvalidHandles, SplitFromTeamInvalidCreatesNoTeam) {
  shmem_team_t t = SHMEM_TEAM_WORLD, x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;  // must be overwritten
  EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &t), 0);
  EXPECT_EQ(t, SHMEM_TEAM_INVALID);
  EXPECT_NE(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, nullptr, 0, &x, nullptr, 0, &y), 0);
  EXPECT_EQ(x, SHMEM_TEAM_INVALID);
  EXPECT_EQ(y, SHMEM_TEAM_INVALID);

  // Every PE splits the sub-team of world PEs 0..k-1 again: its members get teams, the others (holding
  // SHMEM_TEAM_INVALID) a nonzero result and no team, and nobody waits for them.
  const int k = (npes() + 1) / 2;
  const bool member = me() < k;
  shmem_team_t sub = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, k, nullptr, 0, &sub), 0);
  shmem_team_t last = SHMEM_TEAM_WORLD;
  EXPECT_EQ(shmem_team_split_strided(sub, k - 1, 1, 1, nullptr, 0, &last) == 0, member);
  EXPECT_EQ(last != SHMEM_TEAM_INVALID, me() == k - 1);
  x = y = SHMEM_TEAM_WORLD;
  EXPECT_EQ(shmem_team_split_2d(sub, 1, nullptr, 0, &x, nullptr, 0, &y) == 0, member);
  EXPECT_EQ(x != SHMEM_TEAM_INVALID, member);
  EXPECT_EQ(y != SHMEM_TEAM_INVALID, member);
  if (member) {
    EXPECT_EQ(shmem_team_n_pes(x), 1);
    EXPECT_EQ(shmem_team_n_pes(y), k);
  }
  shmem_team_destroy(x);
  shmem_team_destroy(y);
  shmem_team_destroy(last);
  shmem_team_destroy(sub);
  shmem_barrier_all();
}
