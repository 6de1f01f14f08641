// OpenSHMEM 1.6 point-to-point additions: shmem_ibput/shmem_ibget (typed, sized, context forms, C++ overloads),
// shmem_signal_set/_add, shmem_pe_quiet, communication sessions and shmem_team_ptr.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

constexpr size_t kMaxBytes = 64 * 16 * 16;  // nblocks * stride * largest element
alignas(16) unsigned char g_dest[kMaxBytes];
alignas(16) unsigned char g_src[kMaxBytes];
uint64_t g_sig[4];
int64_t g_table[64];

// Every block-strided form seen through bytes: (dest, source, dst, sst, bsize, nblocks, pe).
using ib_fn = void (*)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
struct ib_form {
  const char* name;
  size_t elem;
  ib_fn put;
  ib_fn get;
};

#define RDSM_TYPED_IB(T, N)                                                                                     \
  ib_form{#N, sizeof(T),                                                                                        \
          [](void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t n, int pe) {                \
            shmem_##N##_ibput(static_cast<T*>(d), static_cast<const T*>(s), dst, sst, b, n, pe);                \
          },                                                                                                    \
          [](void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t n, int pe) {                \
            shmem_ctx_##N##_ibget(SHMEM_CTX_DEFAULT, static_cast<T*>(d), static_cast<const T*>(s), dst, sst, b, n, \
                                  pe);                                                                          \
          }},
#define RDSM_SIZED_IB(B) ib_form{"ib" #B, B / 8, shmem_ibput##B, shmem_ibget##B},

const std::vector<ib_form>& ib_forms() {
  static const std::vector<ib_form> all = {RDSM_SHMEM_SIZES(RDSM_SIZED_IB) RDSM_SHMEM_RMA_TYPES(RDSM_TYPED_IB)};
  return all;
}

unsigned char byte_at(int pe, size_t block, size_t byte) {
  return static_cast<unsigned char>(1 + (pe * 37 + block * 11 + byte * 3) % 250);
}

// Fills `buf` as PE pe's source: block i at element i*stride, `bsize` elements; the rest 0.
void fill_blocks(unsigned char* buf, int pe, size_t elem, ptrdiff_t stride, size_t bsize, size_t nblocks) {
  std::memset(buf, 0, kMaxBytes);
  for (size_t i = 0; i < nblocks; ++i)
    for (size_t b = 0; b < bsize * elem; ++b) buf[i * stride * elem + b] = byte_at(pe, i, b);
}

// Checks `buf` holds PE pe's blocks at stride `stride` and zero everywhere else.
void expect_blocks(const unsigned char* buf, int pe, size_t elem, ptrdiff_t stride, size_t bsize, size_t nblocks,
                   const char* what) {
  for (size_t i = 0; i < nblocks; ++i)
    for (size_t e = 0; e < static_cast<size_t>(stride) * elem; ++e) {
      const unsigned char want = e < bsize * elem ? byte_at(pe, i, e) : 0;
      ASSERT_EQ(buf[i * stride * elem + e], want) << what << " block " << i << " byte " << e;
    }
}

TEST(Spec16, IbputAndIbgetMoveStridedBlocksForEveryForm) {
  const size_t nblocks = 16, bsize = 3;
  const ptrdiff_t sst = 5, dst = 4;  // different strides on both sides, gaps between blocks
  for (const ib_form& f : ib_forms()) {
    SCOPED_TRACE(f.name);
    std::vector<unsigned char> local(kMaxBytes);
    fill_blocks(local.data(), me(), f.elem, sst, bsize, nblocks);
    std::memset(g_dest, 0, sizeof g_dest);
    shmem_barrier_all();
    f.put(g_dest, local.data(), dst, sst, bsize, nblocks, right());  // private source, symmetric dest
    shmem_barrier_all();
    expect_blocks(g_dest, left(), f.elem, dst, bsize, nblocks, "ibput");

    fill_blocks(g_src, me(), f.elem, sst, bsize, nblocks);
    shmem_barrier_all();
    std::memset(local.data(), 0, local.size());
    f.get(local.data(), g_src, dst, sst, bsize, nblocks, right());  // symmetric source, private dest
    expect_blocks(local.data(), right(), f.elem, dst, bsize, nblocks, "ibget");
    shmem_barrier_all();
  }
}

// ibput returns when the source may be reused, not when the data has left: overwriting the source right after
// the call must not change what arrives. Large blocks are sent from the user's buffer by UCX (zero copy, or
// queued when resources run short), so an ibput that only started its transfers would let the overwrite through.
TEST(Spec16, IbputSourceMayBeReusedOnReturn) {
  constexpr size_t kBlock = 128 * 1024 / sizeof(long), kBlocks = 4;
  long* dest = static_cast<long*>(shmem_malloc(2 * kBlock * kBlocks * sizeof(long)));
  ASSERT_NE(dest, nullptr);
  std::vector<long> src(2 * kBlock * kBlocks);
  const int rounds = reps(20, 5);
  for (int r = 0; r < rounds; ++r) {
    std::memset(dest, 0, 2 * kBlock * kBlocks * sizeof(long));
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<long>(i) + 1000L * me() + 100000L * r;
    shmem_barrier_all();
    shmem_long_ibput(dest, src.data(), 2 * kBlock, 2 * kBlock, kBlock, kBlocks, right());
    std::fill(src.begin(), src.end(), -1L);  // reuse at once
    shmem_barrier_all();
    for (size_t b = 0; b < kBlocks; ++b)
      for (size_t e = 0; e < kBlock; e += 61) {
        const size_t i = b * 2 * kBlock + e;
        ASSERT_EQ(dest[i], static_cast<long>(i) + 1000L * left() + 100000L * r) << "round " << r << " index " << i;
        ASSERT_EQ(dest[i + kBlock], 0) << "gap between blocks written, index " << i + kBlock;
      }
    shmem_barrier_all();
  }
  shmem_free(dest);
}

TEST(Spec16, IbputOnATeamContextAndTheCxxOverloadsNumberPesInTheTeam) {
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes() - 1, -1, npes(), nullptr, 0, &rev), 0);
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  ASSERT_EQ(shmem_team_create_ctx(rev, 0, &ctx), 0);
  static long dest[32];
  long src[32];
  for (int i = 0; i < 32; ++i) src[i] = 1000L * me() + i;
  std::memset(dest, 0, sizeof dest);
  shmem_barrier_all();
  // Team PE 0 is world PE npes-1: every PE writes blocks of 2 from its src (stride 4) to that PE's slot me.
  shmem_ibput(ctx, dest + me() * 2, src, static_cast<ptrdiff_t>(npes()) * 2, 4, 2, 32 / (2 * npes()) / 2, 0);
  shmem_ctx_quiet(ctx);
  shmem_ibput(SHMEM_CTX_INVALID, dest, src, 1, 1, 1, 1, 0);  // no operation
  shmem_barrier_all();
  if (me() == npes() - 1) {
    const size_t nblocks = 32 / (2 * npes()) / 2;
    for (int pe = 0; pe < npes(); ++pe)
      for (size_t i = 0; i < nblocks; ++i)
        for (int b = 0; b < 2; ++b)
          EXPECT_EQ(dest[i * npes() * 2 + pe * 2 + b], 1000L * pe + static_cast<long>(i * 4 + b));
  }
  long back[8] = {0};
  shmem_ibget(ctx, back, dest, 2, 2, 1, 4, 0);  // from team PE 0, one element of every other pair
  for (int i = 0; i < 4; ++i) {
    const int k = 2 * i, block = k / (npes() * 2), pe = k % (npes() * 2) / 2;
    EXPECT_EQ(back[k], 1000L * pe + block * 4);
    EXPECT_EQ(back[k + 1], 0);
  }
  shmem_barrier_all();
  shmem_ctx_destroy(ctx);
  shmem_team_destroy(rev);
}

TEST(Spec16, SignalAddSumsAndSignalSetOverwritesWithoutData) {
  std::memset(g_sig, 0, sizeof g_sig);
  shmem_barrier_all();
  shmem_signal_add(&g_sig[0], uint64_t{1} << me(), 0);
  shmem_signal_add(SHMEM_CTX_DEFAULT, &g_sig[1], 3, 0);  // C++ overload of the C11 context form
  shmem_ctx_signal_add(SHMEM_CTX_INVALID, &g_sig[1], 100, 0);
  shmem_quiet();
  shmem_barrier_all();
  if (me() == 0) {
    EXPECT_EQ(shmem_signal_fetch(&g_sig[0]), (uint64_t{1} << npes()) - 1);
    EXPECT_EQ(shmem_signal_fetch(&g_sig[1]), 3u * static_cast<uint64_t>(npes()));
  }
  // Rounds of set around the ring: each PE sets its right neighbour's word to round*64 + me + 1 and waits for its
  // own. A PE waits only for its left neighbour, so it may be up to npes-1 rounds ahead of its right one: the word
  // holds this round's value or a later round's, always with the low bits left+1. An add instead of a set would
  // leave a sum of rounds, whose low bits differ.
  const int rounds = reps(200, 20);
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
  const uint64_t tag = static_cast<uint64_t>(left()) + 1;
  for (int r = 1; r <= rounds; ++r) {
    const uint64_t v = static_cast<uint64_t>(r) * 64 + static_cast<uint64_t>(me()) + 1;
    if (r % 2) {  // complete each set: two updates of one word from different contexts are not ordered
      shmem_signal_set(&g_sig[2], v, right());
      shmem_quiet();
    } else {
      shmem_ctx_signal_set(ctx, &g_sig[2], v, right());
      shmem_ctx_quiet(ctx);
    }
    const uint64_t want = static_cast<uint64_t>(r) * 64 + tag;
    const uint64_t got = shmem_signal_wait_until(&g_sig[2], SHMEM_CMP_GE, want);
    ASSERT_EQ(got % 64, tag) << "round " << r << " got " << got;
    ASSERT_LT(got / 64, static_cast<uint64_t>(r + npes())) << "round " << r << " got " << got;
  }
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  shmem_ctx_destroy(ctx);
}

TEST(Spec16, PeQuietCompletesPutsToThosePesBeforeTheSignal) {
  const int rounds = reps(100, 10);
  std::vector<unsigned char> local(kMaxBytes);
  std::memset(g_sig, 0, sizeof g_sig);
  shmem_barrier_all();
  const int targets[2] = {left(), right()};  // the PE written to is second: every listed PE counts
  for (int r = 1; r <= rounds; ++r) {
    std::memset(local.data(), r & 0xff, local.size());
    shmem_putmem_nbi(g_dest, local.data(), local.size(), right());
    if (r % 2) {
      shmem_pe_quiet(targets, 2);
    } else {
      shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, targets + 1, 1);
    }
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, targets, 2);  // no operation
    shmem_pe_quiet(nullptr, 0);                        // no PEs: target_pes is not read
    shmem_signal_set(&g_sig[3], static_cast<uint64_t>(r), right());
    shmem_signal_wait_until(&g_sig[3], SHMEM_CMP_EQ, static_cast<uint64_t>(r));
    for (size_t i = 0; i < sizeof g_dest; i += 97) ASSERT_EQ(g_dest[i], static_cast<unsigned char>(r & 0xff));
    shmem_barrier_all();  // the left neighbour may overwrite g_dest only once this PE checked it
  }
}

TEST(Spec16, PeQuietOnATeamContextTakesTeamPeNumbers) {
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes() - 1, -1, npes(), nullptr, 0, &rev), 0);
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  ASSERT_EQ(shmem_team_create_ctx(rev, 0, &ctx), 0);
  std::memset(g_sig, 0, sizeof g_sig);
  std::memset(g_dest, 0, sizeof g_dest);
  shmem_barrier_all();
  const int rounds = reps(100, 10);
  const int target = 0;  // team PE 0 is world PE npes-1
  std::vector<unsigned char> local(64);
  for (int r = 1; r <= rounds; ++r) {
    if (me() == 0) {
      std::memset(local.data(), r & 0xff, local.size());
      shmem_ctx_putmem_nbi(ctx, g_dest, local.data(), local.size(), target);
      shmem_ctx_pe_quiet(ctx, &target, 1);
      shmem_signal_set(&g_sig[0], static_cast<uint64_t>(r), npes() - 1);  // default context, world numbering
    } else if (me() == npes() - 1) {
      shmem_signal_wait_until(&g_sig[0], SHMEM_CMP_EQ, static_cast<uint64_t>(r));
      for (size_t i = 0; i < local.size(); ++i) ASSERT_EQ(g_dest[i], static_cast<unsigned char>(r & 0xff));
    }
    shmem_barrier_all();
  }
  shmem_ctx_destroy(ctx);
  shmem_team_destroy(rev);
}

TEST(Spec16, SessionsAreHintsThatLeaveEveryResultUnchanged) {
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  ASSERT_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
  std::memset(g_table, 0, sizeof g_table);
  shmem_barrier_all();
  const int updates = reps(2000, 200);
  shmem_ctx_session_config_t config{static_cast<size_t>(updates)};
  shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &config, SHMEM_CTX_SESSION_TOTAL_OPS);
  shmem_ctx_session_start(ctx, 0, nullptr, 0);  // a second start combines (nothing new here)
  shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, &config, SHMEM_CTX_SESSION_TOTAL_OPS);
  shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, nullptr, 0);
  uint64_t x = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(me() + 1);
  for (int i = 0; i < updates; ++i) {  // GUPS-like: each PE xors its number into random slots everywhere
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    shmem_ctx_int64_atomic_xor(ctx, &g_table[x % 64], int64_t{1} << me(),
                              static_cast<int>((x >> 8) % static_cast<uint64_t>(npes())));
  }
  shmem_ctx_session_stop(ctx);
  shmem_ctx_session_stop(ctx);  // already stopped: no effect
  shmem_ctx_session_stop(SHMEM_CTX_INVALID);
  shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  // Replay every PE's sequence to know what each slot of this PE must hold.
  std::vector<int64_t> want(64, 0);
  for (int pe = 0; pe < npes(); ++pe) {
    uint64_t y = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(pe + 1);
    for (int i = 0; i < updates; ++i) {
      y ^= y << 13, y ^= y >> 7, y ^= y << 17;
      if (static_cast<int>((y >> 8) % static_cast<uint64_t>(npes())) == me()) want[y % 64] ^= int64_t{1} << pe;
    }
  }
  for (int s = 0; s < 64; ++s) EXPECT_EQ(g_table[s], want[s]) << "slot " << s;
  shmem_barrier_all();
  shmem_ctx_destroy(ctx);
}

TEST(Spec16, TeamPtrNumbersThePeInTheTeam) {
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes() - 1, -1, npes(), nullptr, 0, &rev), 0);
  for (int i = 0; i < npes(); ++i) {
    EXPECT_EQ(shmem_team_ptr(SHMEM_TEAM_WORLD, g_table, i), shmem_ptr(g_table, i));
    EXPECT_EQ(shmem_team_ptr(rev, g_table, i), shmem_ptr(g_table, npes() - 1 - i));
  }
  EXPECT_EQ(shmem_team_ptr(SHMEM_TEAM_INVALID, g_table, 0), nullptr);
  // A store through the pointer reaches the peer (put when its memory is not mapped here).
  g_table[0] = 0;
  shmem_barrier_all();
  if (me() == 0) {
    auto* p = static_cast<int64_t*>(shmem_team_ptr(rev, g_table, 0));
    if (p != nullptr) {
      __atomic_store_n(p, int64_t{4242}, __ATOMIC_RELEASE);
    } else {
      shmem_int64_p(g_table, 4242, npes() - 1);
    }
  }
  shmem_barrier_all();
  if (me() == npes() - 1) {
    EXPECT_EQ(g_table[0], 4242);
  }
  shmem_barrier_all();
  shmem_team_destroy(rev);
}

}  // namespace
