// Contexts: shmem_ctx_create and shmem_team_create_ctx (PE numbers of a team context are team-relative), the
// ctx forms of put/get/p/g/iput/iget, atomics and put_signal, ctx_fence / ctx_quiet, ctx_get_team, destroy,
// and SHMEM_CTX_DEFAULT.
#include <algorithm>
#include <vector>

#include "coll_test_util.hpp"

using namespace colltest;

namespace {

long g_slots[64];     // g_slots[w] on a PE: written by world PE w
long g_data[64];
long g_flag;
uint64_t g_sig;
long g_counter;
int g_icounter;
unsigned g_bits;

void clear_all() {
  std::fill(std::begin(g_slots), std::end(g_slots), 0L);
  std::fill(std::begin(g_data), std::end(g_data), 0L);
  g_flag = 0;
  g_sig = 0;
  g_counter = 0;
  g_icounter = 0;
  g_bits = 0;
  shmem_barrier_all();
}

// World PEs 1..n-1 (team PE i = world PE i+1), or the world itself on one PE.
shmem_team_t shifted_team(int* base) {
  const int n = npes();
  shmem_team_t t = SHMEM_TEAM_INVALID;
  *base = n > 1 ? 1 : 0;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, *base, 1, n - *base, nullptr, 0, &t), 0);
  return t;
}

}  // namespace

TEST(Contexts, CreateAndDestroyManyReturns) {
  // Destroying a context completes its operations and returns; its slot can be reused, and so can its handle's
  // memory once more than 64 others were destroyed (teams.cpp's handle quarantine).
  for (int i = 0; i < 80; ++i) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    ASSERT_EQ(shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &ctx), 0) << "context " << i;
    shmem_ctx_long_atomic_add(ctx, &g_counter, 1, (me() + 1) % npes());
    shmem_ctx_destroy(ctx);
  }
  shmem_barrier_all();
  EXPECT_EQ(g_counter, 80);
  g_counter = 0;
  shmem_barrier_all();
}

TEST(Contexts, DefaultContextUsesWorldNumbering) {
  clear_all();
  shmem_team_t t = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t), 0);
  EXPECT_EQ(t, SHMEM_TEAM_WORLD);
  const int n = npes(), right = (me() + 1) % n;
  shmem_ctx_long_p(SHMEM_CTX_DEFAULT, &g_slots[me()], 500 + me(), right);
  shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
  shmem_barrier_all();
  const int left = (me() + n - 1) % n;
  EXPECT_EQ(g_slots[left], 500 + left);
  EXPECT_EQ(shmem_ctx_long_g(SHMEM_CTX_DEFAULT, &g_slots[me()], right), 500 + me());
  shmem_ctx_destroy(SHMEM_CTX_DEFAULT);  // invalid: one warning, and the default context stays usable
  EXPECT_EQ(shmem_ctx_long_g(SHMEM_CTX_DEFAULT, &g_slots[me()], right), 500 + me());
  EXPECT_NE(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t), 0);
  shmem_barrier_all();
}

TEST(Contexts, CreatedContextRmaAtomicsSignal) {
  clear_all();
  const long opts[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE | SHMEM_CTX_PRIVATE};
  const int n = npes(), right = (me() + 1) % n, left = (me() + n - 1) % n;
  long round = 0;
  for (long o : opts) {
    ++round;
    SCOPED_TRACE("options " + std::to_string(o));
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    ASSERT_EQ(shmem_ctx_create(o, &ctx), 0);
    ASSERT_NE(ctx, SHMEM_CTX_INVALID);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_ctx_get_team(ctx, &t), 0);
    EXPECT_EQ(t, SHMEM_TEAM_WORLD);

    // put / put_nbi / iput to the right neighbour, then quiet on the context.
    long src[8];
    for (int i = 0; i < 8; ++i) src[i] = round * 1000 + me() * 10 + i;
    shmem_ctx_long_put(ctx, g_data, src, 4, right);
    shmem_ctx_long_put_nbi(ctx, g_data + 4, src + 4, 4, right);
    shmem_ctx_long_iput(ctx, g_data + 8, src, 2, 1, 4, right);  // g_data[8,10,12,14]
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < 8; ++i) EXPECT_EQ(g_data[i], round * 1000 + left * 10 + i) << "put " << i;
    for (int i = 0; i < 4; ++i) EXPECT_EQ(g_data[8 + 2 * i], round * 1000 + left * 10 + i) << "iput " << i;
    // get / get_nbi / iget / g from the right neighbour (which holds my data).
    long got[8] = {};
    shmem_ctx_long_get(ctx, got, g_data, 4, right);
    shmem_ctx_long_get_nbi(ctx, got + 4, g_data + 4, 4, right);
    shmem_ctx_quiet(ctx);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], round * 1000 + me() * 10 + i) << "get " << i;
    long strided[4] = {};
    shmem_ctx_long_iget(ctx, strided, g_data + 8, 1, 2, 4, right);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(strided[i], round * 1000 + me() * 10 + i) << "iget " << i;
    EXPECT_EQ(shmem_ctx_long_g(ctx, &g_data[3], right), round * 1000 + me() * 10 + 3);
    shmem_ctx_putmem(ctx, &g_slots[me()], &src[0], sizeof(long), right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    EXPECT_EQ(g_slots[left], round * 1000 + left * 10);

    // Atomics on PE 0 through the context.
    if (me() == 0) g_counter = 0;
    shmem_barrier_all();
    long before = shmem_ctx_long_atomic_fetch_add(ctx, &g_counter, me() + 1, 0);
    EXPECT_GE(before, 0);
    shmem_ctx_long_atomic_inc(ctx, &g_counter, 0);
    shmem_ctx_long_atomic_add(ctx, &g_counter, 10, 0);
    shmem_ctx_int_atomic_fetch_inc(ctx, &g_icounter, 0);
    shmem_ctx_uint_atomic_or(ctx, &g_bits, 1u << me(), 0);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    const long want = static_cast<long>(n) * (n + 1) / 2 + 11L * n;
    EXPECT_EQ(shmem_ctx_long_atomic_fetch(ctx, &g_counter, 0), want);
    EXPECT_EQ(shmem_ctx_int_atomic_fetch(ctx, &g_icounter, 0), static_cast<int>(round) * n);
    EXPECT_EQ(shmem_ctx_uint_atomic_fetch(ctx, &g_bits, 0), (1u << n) - 1);
    shmem_barrier_all();
    if (me() == 0) {
      // compare_swap and swap from one PE only: deterministic.
      const long cur = n == 1 ? want : 0;  // PE 0 holds the sum; any other PE still 0
      EXPECT_EQ(shmem_ctx_long_atomic_compare_swap(ctx, &g_counter, cur, -5, n - 1), cur);
      EXPECT_EQ(shmem_ctx_long_g(ctx, &g_counter, n - 1), -5);
      shmem_ctx_long_atomic_set(ctx, &g_counter, 42, n - 1);
      EXPECT_EQ(shmem_ctx_long_atomic_swap(ctx, &g_counter, 43, n - 1), 42);
      EXPECT_EQ(shmem_ctx_long_atomic_compare_swap(ctx, &g_counter, 43, 44, n - 1), 43);
      EXPECT_EQ(shmem_ctx_long_atomic_compare_swap(ctx, &g_counter, 43, 45, n - 1), 44);  // no swap
      EXPECT_EQ(shmem_ctx_long_g(ctx, &g_counter, n - 1), 44);
    }
    shmem_barrier_all();
    if (me() == n - 1) g_counter = 0;
    g_bits = 0;

    // put_signal (SET) and fence ordering through the context.
    long payload[4];
    for (int i = 0; i < 4; ++i) payload[i] = round * 77 + me() + i;
    shmem_ctx_long_put_signal(ctx, g_data + 16, payload, 4, &g_sig, static_cast<uint64_t>(round), SHMEM_SIGNAL_SET,
                              right);
    EXPECT_EQ(shmem_signal_wait_until(&g_sig, SHMEM_CMP_EQ, static_cast<uint64_t>(round)), static_cast<uint64_t>(round));
    for (int i = 0; i < 4; ++i) EXPECT_EQ(g_data[16 + i], round * 77 + left + i) << "put_signal data";
    shmem_barrier_all();
    shmem_ctx_long_put(ctx, g_data + 20, payload, 4, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_long_p(ctx, &g_flag, round, right);
    shmem_long_wait_until(&g_flag, SHMEM_CMP_EQ, round);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(g_data[20 + i], round * 77 + left + i) << "data before flag (fence)";
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
  }
}

TEST(Contexts, TeamContextUsesTeamPeNumbers) {
  clear_all();
  int base = 0;
  shmem_team_t t = shifted_team(&base);
  const int n = npes();
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  if (t == SHMEM_TEAM_INVALID) {
    // Non-members cannot make a context on the team.
    EXPECT_NE(shmem_team_create_ctx(t, 0, &ctx), 0);
    EXPECT_EQ(ctx, SHMEM_CTX_INVALID);
  } else {
    ASSERT_EQ(shmem_team_create_ctx(t, 0, &ctx), 0);
    ASSERT_NE(ctx, SHMEM_CTX_INVALID);
    shmem_team_t back = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_ctx_get_team(ctx, &back), 0);
    EXPECT_EQ(back, t);
    const int tn = shmem_team_n_pes(t), tme = shmem_team_my_pe(t);
    const int tright = (tme + 1) % tn;
    // Put to team PE tright: lands on world PE base + tright, in the slot of my world number.
    shmem_ctx_long_p(ctx, &g_slots[me()], 900 + me(), tright);
    long v = 300 + me();
    shmem_ctx_long_put_nbi(ctx, &g_data[me()], &v, 1, tright);
    shmem_ctx_long_atomic_add(ctx, &g_counter, me() + 1, 0);  // team PE 0 = world PE base
    shmem_ctx_long_put_signal(ctx, &g_data[32 + me()], &v, 1, &g_sig, 1, SHMEM_SIGNAL_ADD, tright);
    shmem_ctx_quiet(ctx);
  }
  shmem_barrier_all();
  // Check on every PE (members and not) exactly what arrived.
  for (int w = 0; w < n; ++w) {
    long want_slot = 0, want_data = 0;
    // world PE w (a member when w >= base) sent to world PE base + (w - base + 1) % (n - base).
    if (w >= base && base + (w - base + 1) % (n - base) == me()) {
      want_slot = 900 + w;
      want_data = 300 + w;
    }
    EXPECT_EQ(g_slots[w], want_slot) << "slot of world PE " << w;
    EXPECT_EQ(g_data[w], want_data) << "data of world PE " << w;
    EXPECT_EQ(g_data[32 + w], want_data) << "put_signal data of world PE " << w;
  }
  long counter_sum = 0;
  for (int w = base; w < n; ++w) counter_sum += w + 1;
  EXPECT_EQ(g_counter, me() == base ? counter_sum : 0);
  EXPECT_EQ(g_sig, me() >= base ? 1u : 0u);
  if (t != SHMEM_TEAM_INVALID) {
    // get through the team context: team PE 0's slot array.
    const int tn = shmem_team_n_pes(t);
    for (int i = 0; i < tn; ++i) {
      const int w = base + i;
      const int sender = base + (i - 1 + tn) % tn;  // world PE that wrote into w
      EXPECT_EQ(shmem_ctx_long_g(ctx, &g_slots[sender], i), 900 + sender) << "team PE " << i;
      long x = 0;
      shmem_ctx_long_get(ctx, &x, &g_data[sender], 1, i);
      EXPECT_EQ(x, 300 + sender) << "team PE " << i << " (world " << w << ")";
      EXPECT_EQ(shmem_ctx_long_atomic_fetch(ctx, &g_counter, i), i == 0 ? counter_sum : 0L) << "team PE " << i;
    }
    shmem_ctx_destroy(ctx);
  }
  shmem_barrier_all();
  shmem_team_destroy(t);
  shmem_barrier_all();
}

TEST(Contexts, ContextOnStridedTeamAndManyContexts) {
  clear_all();
  const int n = npes();
  // Even world PEs; team PE i = world 2i.
  shmem_team_t t = SHMEM_TEAM_INVALID;
  const int size = (n + 1) / 2;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, size, nullptr, 0, &t), 0);
  if (t != SHMEM_TEAM_INVALID) {
    std::vector<shmem_ctx_t> ctxs(8, SHMEM_CTX_INVALID);
    for (auto& c : ctxs) ASSERT_EQ(shmem_team_create_ctx(t, SHMEM_CTX_PRIVATE, &c), 0);
    const int last = size - 1;
    for (size_t k = 0; k < ctxs.size(); ++k)
      shmem_ctx_long_atomic_add(ctxs[k], &g_data[k], me() + 1, last);  // team PE last = world 2*last
    for (auto c : ctxs) shmem_ctx_quiet(c);
    ASSERT_EQ(shmem_team_sync(t), 0);
    if (me() == 2 * last) {
      long want = 0;
      for (int i = 0; i < size; ++i) want += 2 * i + 1;
      for (size_t k = 0; k < ctxs.size(); ++k) EXPECT_EQ(shmem_long_atomic_fetch(&g_data[k], me()), want) << k;
    }
    for (auto c : ctxs) shmem_ctx_destroy(c);
  }
  shmem_barrier_all();
  // Odd PEs (not in the team) got nothing.
  if (me() % 2 == 1) {
    for (int k = 0; k < 8; ++k) EXPECT_EQ(g_data[k], 0) << k;
  }
  shmem_team_destroy(t);
  shmem_barrier_all();
}
