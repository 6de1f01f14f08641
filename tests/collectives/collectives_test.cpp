// Team collectives: broadcast (every root, both sides of the 64 KiB switch: members copy from the root on one
// host, the root scatters over TCP, where the heap is not mapped), collect (different sizes
// per PE), fcollect, alltoall and alltoalls (strides), mem and every typed form, on the world, a strided team
// and the rows and columns of a 2-D split. Each result is compared with a locally computed reference, and
// the byte after the expected data must stay untouched.
#include <algorithm>
#include <vector>

#include "coll_test_util.hpp"

using namespace colltest;

namespace {

// Largest message: several MiB over shared memory, less over TCP (emulated RMA, oversubscribed cores).
size_t big_bytes() { return on_tcp() ? (1u << 20) + 13 : (3u << 20) + 13; }

struct buffers {
  unsigned char* src;
  unsigned char* dst;
  size_t cap;
};

// Symmetric buffers shared by all tests (allocated collectively on first use: every PE runs the same tests).
buffers& bufs() {
  static buffers b{nullptr, nullptr, 0};
  if (b.src == nullptr) {
    b.cap = big_bytes() + 4096;
    b.src = static_cast<unsigned char*>(shmem_malloc(b.cap));
    b.dst = static_cast<unsigned char*>(shmem_malloc(b.cap));
    EXPECT_NE(b.src, nullptr);
    EXPECT_NE(b.dst, nullptr);
  }
  return b;
}

std::vector<team_case>& teams() {
  static std::vector<team_case> cases = make_team_cases();
  return cases;
}
[[maybe_unused]] const auto* const teams_teardown = testing::AddGlobalTestEnvironment(new team_cases_teardown(teams));

// Message sizes for a team: 0, 1, small, both sides of 64 KiB; the big one only on the world.
std::vector<size_t> sizes_for(const team_case& c) {
  std::vector<size_t> s = {0, 1, 7, 1000, 65535, 65536, 65536 + 17};
  if (c.name == "world") s.push_back(big_bytes());
  return s;
}

void fill(unsigned char* p, size_t n, unsigned char v) { std::memset(p, v, n); }

}  // namespace

TEST(Broadcast, MemEveryRootEverySize) {
  buffers& b = bufs();
  for_each_team(teams(), [&](team_case& c) {
    const int n = shmem_team_n_pes(c.team);
    for (size_t bytes : sizes_for(c)) {
      const int roots = bytes == big_bytes() && on_tcp() ? 1 : n;
      for (int root = 0; root < roots; ++root) {
        const int wroot = c.members[root];
        for (size_t i = 0; i < bytes; ++i) b.src[i] = byte_of(me(), i, 3);  // only the root's matters
        fill(b.dst, bytes + 1, sentinel);
        std::vector<unsigned char> want(bytes);
        for (size_t i = 0; i < bytes; ++i) want[i] = byte_of(wroot, i, 3);
        ASSERT_EQ(shmem_team_sync(c.team), 0);  // every dest ready before anyone broadcasts
        ASSERT_EQ(shmem_broadcastmem(c.team, b.dst, b.src, bytes, root), 0);
        long d = first_diff(b.dst, want);
        EXPECT_EQ(d, -1) << bytes << " bytes from team root " << root << " (world " << wroot << ")";
        EXPECT_EQ(b.dst[bytes], sentinel) << "wrote past " << bytes << " bytes";
        if (root == 0) {
          // The source is left alone on every PE.
          EXPECT_TRUE(bytes == 0 || b.src[bytes - 1] == byte_of(me(), bytes - 1, 3));
        }
      }
    }
  });
}

TEST(Broadcast, RepeatedWithoutRefillAlternatesRoots) {
  // Back-to-back broadcasts into the same dest (each member checks, then syncs before the next).
  buffers& b = bufs();
  const int reps = on_tcp() ? 10 : 50;
  for_each_team(teams(), [&](team_case& c) {
    const int n = shmem_team_n_pes(c.team);
    long* src = reinterpret_cast<long*>(b.src);
    long* dst = reinterpret_cast<long*>(b.dst);
    for (int r = 0; r < reps; ++r) {
      const int root = r % n;
      for (int i = 0; i < 4; ++i) src[i] = 1000L * r + 10L * me() + i;
      ASSERT_EQ(shmem_team_sync(c.team), 0);
      ASSERT_EQ(shmem_long_broadcast(c.team, dst, src, 4, root), 0);
      for (int i = 0; i < 4; ++i) EXPECT_EQ(dst[i], 1000L * r + 10L * c.members[root] + i) << "rep " << r;
    }
    ASSERT_EQ(shmem_team_sync(c.team), 0);
  });
}

TEST(Broadcast, BigOnFourPesDistinctRootsInPlaceSource) {
  // The root broadcasting from its own dest (dest == source on the root): members copy it while the root's
  // copy is a no-op (one host), or the scatter path (TCP).
  buffers& b = bufs();
  const size_t bytes = 200000 + 3;
  for_each_team(teams(), [&](team_case& c) {
    const int n = shmem_team_n_pes(c.team);
    const int root = n - 1;
    const int wroot = c.members[root];
    if (me() == wroot)
      for (size_t i = 0; i < bytes; ++i) b.dst[i] = byte_of(wroot, i, 9);
    else
      fill(b.dst, bytes, sentinel);
    std::vector<unsigned char> want(bytes);
    for (size_t i = 0; i < bytes; ++i) want[i] = byte_of(wroot, i, 9);
    ASSERT_EQ(shmem_team_sync(c.team), 0);
    ASSERT_EQ(shmem_broadcastmem(c.team, b.dst, b.dst, bytes, root), 0);
    EXPECT_EQ(first_diff(b.dst, want), -1);
    ASSERT_EQ(shmem_team_sync(c.team), 0);
  });
}

TEST(Collect, MemDifferentSizesPerPe) {
  buffers& b = bufs();
  for_each_team(teams(), [&](team_case& c) {
    const int n = shmem_team_n_pes(c.team);
    const int tme = shmem_team_my_pe(c.team);
    std::vector<size_t> bases = {0, 1, 100, 65536 / static_cast<size_t>(n)};
    if (c.name == "world") bases.push_back(big_bytes() / static_cast<size_t>(n) - 64);
    for (size_t base : bases)
      for (int shape = 0; shape < 3; ++shape) {
        // shape 0: base + 3i; shape 1: the odd members give nothing; shape 2: only the last gives data.
        auto size_of = [&](int i) -> size_t {
          if (shape == 0) return base + 3 * static_cast<size_t>(i);
          if (shape == 1) return i % 2 ? 0 : base + 1;
          return i == n - 1 ? base + 5 : 0;
        };
        size_t total = 0;
        std::vector<unsigned char> want;
        for (int i = 0; i < n; ++i) {
          for (size_t k = 0; k < size_of(i); ++k) want.push_back(byte_of(c.members[i], k, shape));
          total += size_of(i);
        }
        ASSERT_LE(total + 1, b.cap);
        for (size_t k = 0; k < size_of(tme); ++k) b.src[k] = byte_of(me(), k, shape);
        fill(b.dst, total + 1, sentinel);
        ASSERT_EQ(shmem_team_sync(c.team), 0);
        ASSERT_EQ(shmem_collectmem(c.team, b.dst, b.src, size_of(tme)), 0);
        EXPECT_EQ(first_diff(b.dst, want), -1) << "base " << base << " shape " << shape;
        EXPECT_EQ(b.dst[total], sentinel) << "base " << base << " shape " << shape;
      }
  });
}

TEST(Fcollect, MemEverySize) {
  buffers& b = bufs();
  for_each_team(teams(), [&](team_case& c) {
    const int n = shmem_team_n_pes(c.team);
    std::vector<size_t> sizes = {0, 1, 13, 65536 / static_cast<size_t>(n), 65536};
    if (c.name == "world") sizes.push_back(big_bytes() / static_cast<size_t>(n) - 64);
    for (size_t bytes : sizes) {
      for (size_t k = 0; k < bytes; ++k) b.src[k] = byte_of(me(), k, 1);
      fill(b.dst, bytes * n + 1, sentinel);
      std::vector<unsigned char> want;
      for (int i = 0; i < n; ++i)
        for (size_t k = 0; k < bytes; ++k) want.push_back(byte_of(c.members[i], k, 1));
      ASSERT_EQ(shmem_team_sync(c.team), 0);
      ASSERT_EQ(shmem_fcollectmem(c.team, b.dst, b.src, bytes), 0);
      EXPECT_EQ(first_diff(b.dst, want), -1) << bytes << " bytes each";
      EXPECT_EQ(b.dst[bytes * n], sentinel) << bytes << " bytes each";
    }
  });
}

TEST(Alltoall, MemEveryBlockSize) {
  buffers& b = bufs();
  for_each_team(teams(), [&](team_case& c) {
    const int n = shmem_team_n_pes(c.team);
    const int tme = shmem_team_my_pe(c.team);
    std::vector<size_t> sizes = {0, 1, 9, 65536 / static_cast<size_t>(n), 65536 + 8};
    if (c.name == "world") sizes.push_back(big_bytes() / static_cast<size_t>(n) - 64);
    for (size_t block : sizes) {
      if (block * n + 1 > b.cap) continue;
      // Block j of my source is for team PE j: byte_of(me, k, salt j).
      for (int j = 0; j < n; ++j)
        for (size_t k = 0; k < block; ++k) b.src[j * block + k] = byte_of(me(), k, 20 + j);
      fill(b.dst, block * n + 1, sentinel);
      std::vector<unsigned char> want;
      for (int i = 0; i < n; ++i)
        for (size_t k = 0; k < block; ++k) want.push_back(byte_of(c.members[i], k, 20 + tme));
      ASSERT_EQ(shmem_team_sync(c.team), 0);
      ASSERT_EQ(shmem_alltoallmem(c.team, b.dst, b.src, block), 0);
      EXPECT_EQ(first_diff(b.dst, want), -1) << block << " bytes per block";
      EXPECT_EQ(b.dst[block * n], sentinel) << block << " bytes per block";
    }
  });
}

TEST(Alltoalls, StridesTypedAndMem) {
  buffers& b = bufs();
  struct strides {
    ptrdiff_t dst, sst;
  };
  const strides all[] = {{1, 1}, {2, 1}, {1, 3}, {3, 2}};
  for_each_team(teams(), [&](team_case& c) {
    const int n = shmem_team_n_pes(c.team);
    const int tme = shmem_team_my_pe(c.team);
    for (const strides& s : all)
      for (size_t nelems : {size_t{0}, size_t{1}, size_t{5}, size_t{on_tcp() ? 40u : 300u}}) {
        SCOPED_TRACE("dst " + std::to_string(s.dst) + " sst " + std::to_string(s.sst) + " nelems " +
                     std::to_string(nelems));
        auto val = [&](int from_world, int to_team, size_t k) { return 1 + from_world * 100000L + to_team * 1000L + (long)k; };
        long* src = reinterpret_cast<long*>(b.src);
        long* dst = reinterpret_cast<long*>(b.dst);
        const size_t src_len = n * nelems * s.sst + 1, dst_len = n * nelems * s.dst + 1;
        ASSERT_LE(std::max(src_len, dst_len) * sizeof(long), b.cap);
        for (size_t i = 0; i < src_len; ++i) src[i] = -1;  // gaps: must not be sent
        for (int j = 0; j < n; ++j)
          for (size_t k = 0; k < nelems; ++k) src[(j * nelems + k) * s.sst] = val(me(), j, k);
        for (size_t i = 0; i < dst_len; ++i) dst[i] = -2;
        ASSERT_EQ(shmem_team_sync(c.team), 0);
        ASSERT_EQ(shmem_long_alltoalls(c.team, dst, src, s.dst, s.sst, nelems), 0);
        int bad = 0;
        for (size_t i = 0; i < dst_len; ++i) {
          long want = -2;
          if (i % s.dst == 0 && i / s.dst < n * nelems) {
            const size_t e = i / s.dst;
            want = val(c.members[e / nelems], tme, e % nelems);
          }
          if (dst[i] != want && bad++ < 3) ADD_FAILURE() << "dest[" << i << "] = " << dst[i] << ", want " << want;
        }
        EXPECT_EQ(bad, 0);

        // The mem form (elements are bytes) with the same strides.
        for (size_t i = 0; i < src_len; ++i) b.src[i] = 0xAA;
        for (int j = 0; j < n; ++j)
          for (size_t k = 0; k < nelems; ++k) b.src[(j * nelems + k) * s.sst] = byte_of(me(), k, 40 + j);
        fill(b.dst, dst_len, sentinel);
        ASSERT_EQ(shmem_team_sync(c.team), 0);
        ASSERT_EQ(shmem_alltoallsmem(c.team, b.dst, b.src, s.dst, s.sst, nelems), 0);
        bad = 0;
        for (size_t i = 0; i < dst_len; ++i) {
          unsigned char want = sentinel;
          if (i % s.dst == 0 && i / s.dst < n * nelems) {
            const size_t e = i / s.dst;
            want = byte_of(c.members[e / nelems], e % nelems, 40 + tme);
          }
          if (b.dst[i] != want && bad++ < 3) ADD_FAILURE() << "mem dest[" << i << "] = " << int(b.dst[i]);
        }
        EXPECT_EQ(bad, 0);
      }
  });
}

// ---- Every typed form of every collective (small counts), through the RMA type table ----------------------
namespace {

template <class T>
using bcast_fn = int (*)(shmem_team_t, T*, const T*, size_t, int);
template <class T>
using gather_fn = int (*)(shmem_team_t, T*, const T*, size_t);
template <class T>
using strided_fn = int (*)(shmem_team_t, T*, const T*, ptrdiff_t, ptrdiff_t, size_t);

template <class T>
void typed_collectives(const char* name, bcast_fn<T> bcast, gather_fn<T> collect, gather_fn<T> fcollect,
                       gather_fn<T> alltoall, strided_fn<T> alltoalls) {
  SCOPED_TRACE(name);
  if (std::is_same_v<T, long double> && !colltest::long_double_alike())
    GTEST_SKIP() << "long double differs between this job's architectures";
  buffers& b = bufs();
  T* src = reinterpret_cast<T*>(b.src);
  T* dst = reinterpret_cast<T*>(b.dst);
  const T none = static_cast<T>(0);  // enc never yields 0
  constexpr size_t K = 6;
  for_each_team(teams(), [&](team_case& c) {
    if (c.name != "world" && c.name != "column") return;  // the mem forms cover every team
    const int n = shmem_team_n_pes(c.team);
    const int tme = shmem_team_my_pe(c.team);
    auto reset = [&](size_t len) {
      for (size_t i = 0; i < len; ++i) dst[i] = none;
    };
    // broadcast from every root; the root's dest is written too (team form).
    for (int root = 0; root < n; ++root) {
      for (size_t i = 0; i < K; ++i) src[i] = enc<T>(me(), i, root);
      reset(K + 1);
      ASSERT_EQ(shmem_team_sync(c.team), 0);
      ASSERT_EQ(bcast(c.team, dst, src, K, root), 0);
      for (size_t i = 0; i < K; ++i) EXPECT_TRUE(dst[i] == enc<T>(c.members[root], i, root)) << "bcast " << i;
      EXPECT_TRUE(dst[K] == none);
    }
    // collect: team PE i gives i+1 elements.
    for (size_t i = 0; i <= static_cast<size_t>(tme); ++i) src[i] = enc<T>(me(), i, 1);
    const size_t total = static_cast<size_t>(n) * (n + 1) / 2;
    reset(total + 1);
    ASSERT_EQ(shmem_team_sync(c.team), 0);
    ASSERT_EQ(collect(c.team, dst, src, tme + 1), 0);
    for (int i = 0, at = 0; i < n; ++i)
      for (int k = 0; k <= i; ++k, ++at) EXPECT_TRUE(dst[at] == enc<T>(c.members[i], k, 1)) << "collect " << at;
    EXPECT_TRUE(dst[total] == none);
    // fcollect
    for (size_t i = 0; i < K; ++i) src[i] = enc<T>(me(), i, 2);
    reset(K * n + 1);
    ASSERT_EQ(shmem_team_sync(c.team), 0);
    ASSERT_EQ(fcollect(c.team, dst, src, K), 0);
    for (int i = 0; i < n; ++i)
      for (size_t k = 0; k < K; ++k) EXPECT_TRUE(dst[i * K + k] == enc<T>(c.members[i], k, 2)) << "fcollect";
    EXPECT_TRUE(dst[K * n] == none);
    // alltoall: block j goes to team PE j.
    for (int j = 0; j < n; ++j)
      for (size_t k = 0; k < K; ++k) src[j * K + k] = enc<T>(me(), k, 3 + j);
    reset(K * n + 1);
    ASSERT_EQ(shmem_team_sync(c.team), 0);
    ASSERT_EQ(alltoall(c.team, dst, src, K), 0);
    for (int i = 0; i < n; ++i)
      for (size_t k = 0; k < K; ++k) EXPECT_TRUE(dst[i * K + k] == enc<T>(c.members[i], k, 3 + tme)) << "alltoall";
    EXPECT_TRUE(dst[K * n] == none);
    // alltoalls with dst 2, sst 3.
    for (size_t i = 0; i < 3 * K * n; ++i) src[i] = none;
    for (int j = 0; j < n; ++j)
      for (size_t k = 0; k < K; ++k) src[(j * K + k) * 3] = enc<T>(me(), k, 7 + j);
    reset(2 * K * n + 1);
    ASSERT_EQ(shmem_team_sync(c.team), 0);
    ASSERT_EQ(alltoalls(c.team, dst, src, 2, 3, K), 0);
    for (int i = 0; i < n; ++i)
      for (size_t k = 0; k < K; ++k) {
        EXPECT_TRUE(dst[(i * K + k) * 2] == enc<T>(c.members[i], k, 7 + tme)) << "alltoalls";
        EXPECT_TRUE(dst[(i * K + k) * 2 + 1] == none) << "alltoalls gap";
      }
    ASSERT_EQ(shmem_team_sync(c.team), 0);
  });
}

}  // namespace

#define RDSM_TYPED_COLL_TEST(T, N)                                                                       \
  TEST(TypedCollectives, N) {                                                                            \
    typed_collectives<T>(#N, shmem_##N##_broadcast, shmem_##N##_collect, shmem_##N##_fcollect,             \
                         shmem_##N##_alltoall, shmem_##N##_alltoalls);                                   \
  }
RDSM_SHMEM_RMA_TYPES(RDSM_TYPED_COLL_TEST)
#undef RDSM_TYPED_COLL_TEST
