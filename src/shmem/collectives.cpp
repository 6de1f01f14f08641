// OpenSHMEM team collectives and reductions, and the deprecated active-set forms.

#include <shmemx.h>

#include <cstring>
#include <type_traits>
#include <vector>

#include "core/group.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "shmem/context.hpp"

using namespace rdsm::detail;

static_assert(SHMEM_SYNC_SIZE == group_sync_longs && SHMEM_BCAST_SYNC_SIZE == group_sync_longs,
              "pSync arrays hold a group's synchronization words");

namespace {

// Runs a team collective as op(fn, group) and returns 0. On SHMEM_TEAM_INVALID it does nothing and returns
// nonzero: 1.5 leaves that case undefined, and this lets a PE outside a sub-team pass its invalid handle on
// while the members run the collective.
template <class F>
int on_team(const char* fn, shmem_team_t t, F&& op) {
  runtime::checked(fn);
  if (t == SHMEM_TEAM_INVALID) return -1;
  group& g = core_team(fn, t)->g;
  if (g.me < 0) fatal("%s: this PE is not a member of the team", fn);
  op(fn, g);
  return 0;
}

// A collective's buffers, checked on every member before any data moves (OpenSHMEM requires both symmetric on
// every PE): `dest_bytes` of dest and `source_bytes` of source each within one symmetric object.
void check_buffers(const char* fn, const void* dest, size_t dest_bytes, const void* source, size_t source_bytes) {
  check_symmetric(fn, "dest", dest, dest_bytes);
  check_symmetric(fn, "source", source, source_bytes);
}

// The same buffer size for both, `nelems` elements of `elem_bytes` (broadcast, reductions, scans, collect's
// own block); `count_arg` names the count.
size_t check_buffers(const char* fn, const void* dest, const void* source, size_t nelems, size_t elem_bytes,
                     const char* count_arg = "nelems") {
  const size_t bytes = bytes_of(fn, count_arg, nelems, elem_bytes);
  check_buffers(fn, dest, bytes, source, bytes);
  return bytes;
}

// fcollect and alltoall: dest (alltoall: source too) holds one block of `nelems` elements per member.
size_t check_blocks(const char* fn, const group& g, const void* dest, const void* source, size_t nelems,
                    size_t elem_bytes, bool source_blocks) {
  const size_t block = bytes_of(fn, "nelems", nelems, elem_bytes);
  const size_t all = bytes_of(fn, "nelems", nelems, elem_bytes * static_cast<size_t>(g.size));
  check_buffers(fn, dest, all, source, source_blocks ? all : block);
  return block;
}

// alltoalls: element k of block j at index (j*nelems + k)*stride, for j below the team's size; strides step
// forward (a negative one would reach before the object).
void check_strided_blocks(const char* fn, const group& g, const void* dest, const void* source, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t elem_bytes) {
  if (dst < 0 || sst < 0)
    fatal("%s: %s %td is negative; the strides of shmem_alltoalls step forward through dest and source, in "
          "elements (1 for contiguous ones)",
          fn, dst < 0 ? "dst" : "sst", dst < 0 ? dst : sst);
  bytes_of(fn, "nelems", nelems, elem_bytes * static_cast<size_t>(g.size));  // a count that overflows, named
  const size_t elems = nelems * static_cast<size_t>(g.size);                   // in each of dest and source
  check_strided_symmetric(fn, "dest", "dst", dest, dst, 1, elems, elem_bytes);
  check_strided_symmetric(fn, "source", "sst", source, sst, 1, elems, elem_bytes);
}

int check_root(const char* fn, const group& g, int root) {
  if (root < 0 || root >= g.size) fatal("%s: PE_root %d out of range [0, %d) of the team", fn, root, g.size);
  return root;
}

// Reduction operators as element-wise combines. Integer sums and products wrap around, as the hardware
// does: they are computed in an unsigned type at least as wide as int (a signed overflow, or one of a
// short promoted to int, would be undefined behaviour).
template <class T>
constexpr bool wraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
using wide_unsigned = std::make_unsigned_t<decltype(T{} + T{})>;
template <class T>
struct op_sum {
  static T apply(T a, T b) {
    if constexpr (wraps<T>)
      return static_cast<T>(static_cast<wide_unsigned<T>>(a) + static_cast<wide_unsigned<T>>(b));
    else
      return a + b;
  }
};
template <class T>
struct op_prod {
  static T apply(T a, T b) {
    if constexpr (wraps<T>)
      return static_cast<T>(static_cast<wide_unsigned<T>>(a) * static_cast<wide_unsigned<T>>(b));
    else
      return a * b;
  }
};
template <class T>
struct op_max {
  static T apply(T a, T b) { return a > b ? a : b; }
};
template <class T>
struct op_min {
  static T apply(T a, T b) { return a < b ? a : b; }
};
template <class T>
struct op_and {
  static T apply(T a, T b) { return a & b; }
};
template <class T>
struct op_or {
  static T apply(T a, T b) { return a | b; }
};
template <class T>
struct op_xor {
  static T apply(T a, T b) { return a ^ b; }
};

template <class T, template <class> class Op>
void combine(void* acc, const void* in, size_t n) {
  auto* a = static_cast<T*>(acc);
  const auto* b = static_cast<const T*>(in);
  for (size_t i = 0; i < n; ++i) a[i] = Op<T>::apply(a[i], b[i]);
}

// long double has one format per architecture: a job of x86-64 and aarch64 PEs cannot combine its values.
template <class T>
void check_representation(const char* fn) {
  if constexpr (std::is_same_v<T, long double>)
    if (runtime::get().long_double_differs())
      fatal("%s: long double has different formats on this job's PEs (x86-64: 80-bit extended, aarch64: 128-bit "
            "quad), so their values cannot be combined; reduce double instead",
            fn);
}

template <class T, template <class> class Op>
void reduce(const char* fn, group& g, T* dest, const T* source, size_t n) {
  check_representation<T>(fn);
  check_buffers(fn, dest, source, n, sizeof(T), "nreduce");
  group_reduce(fn, g, dest, source, n, sizeof(T), &combine<T, Op>);
}

// OpenSHMEM 1.6 sum scans: team PE i sums the sources of team PEs 0..i (inclusive) or 0..i-1 (exclusive). The
// first sync makes every member's source readable, the second keeps dest (which may be the source) untouched
// until every member has read the sources it needs.
template <class T>
void scan(const char* fn, group& g, T* dest, const T* source, size_t n, bool inclusive) {
  check_representation<T>(fn);
  check_buffers(fn, dest, source, n, sizeof(T));
  std::vector<T> sum(n, T());
  std::vector<T> in(n);
  group_sync(fn, g);
  const int last = inclusive ? g.me : g.me - 1;
  for (int k = 0; k <= last && n > 0; ++k) {
    get(fn, in.data(), source, n * sizeof(T), g.pe(k), false);
    for (size_t j = 0; j < n; ++j) sum[j] = op_sum<T>::apply(sum[j], in[j]);
  }
  group_sync(fn, g);
  if (n > 0) std::memcpy(dest, sum.data(), n * sizeof(T));
}

}  // namespace

extern "C" {

int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root) noexcept {
  return on_team(__func__, team, [&](const char* fn, group& g) {
    group_broadcast(fn, g, dest, source, check_buffers(fn, dest, source, nelems, 1), check_root(fn, g, PE_root),
                    true);
  });
}
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) noexcept {
  return on_team(__func__, team, [&](const char* fn, group& g) {
    group_collect(fn, g, dest, source, check_buffers(fn, dest, source, nelems, 1));
  });
}
int shmemx_collectmem_bounded(shmem_team_t team, void* dest, size_t dest_bytes, const void* source,
                              size_t nelems) noexcept {
  return on_team(__func__, team, [&](const char* fn, group& g) {
    group_collect(fn, g, dest, source, check_buffers(fn, dest, source, nelems, 1), dest_bytes);
  });
}
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) noexcept {
  return on_team(__func__, team, [&](const char* fn, group& g) {
    group_fcollect(fn, g, dest, source, check_blocks(fn, g, dest, source, nelems, 1, false));
  });
}
int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems) noexcept {
  return on_team(__func__, team, [&](const char* fn, group& g) {
    group_alltoall(fn, g, dest, source, check_blocks(fn, g, dest, source, nelems, 1, true));
  });
}
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems) noexcept {
  return on_team(__func__, team, [&](const char* fn, group& g) {
    check_strided_blocks(fn, g, dest, source, dst, sst, nelems, 1);
    group_alltoalls(fn, g, dest, source, dst, sst, nelems, 1);
  });
}

#define RDSM_DEF_COLL(T, N)                                                                                 \
  int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, int PE_root) noexcept {      \
    return on_team(__func__, team, [&](const char* fn, group& g) {                                          \
      const size_t bytes = check_buffers(fn, dest, source, nelems, sizeof(T));                              \
      group_broadcast(fn, g, dest, source, bytes, check_root(fn, g, PE_root), true);                        \
    });                                                                                                     \
  }                                                                                                         \
  int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {                    \
    return on_team(__func__, team,                                                                          \
                   [&](const char* fn, group& g) {                                                          \
                     group_collect(fn, g, dest, source, check_buffers(fn, dest, source, nelems, sizeof(T)));  \
                   });                                                                                      \
  }                                                                                                         \
  int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {                   \
    return on_team(__func__, team,                                                                          \
                   [&](const char* fn, group& g) {                                                          \
                     group_fcollect(fn, g, dest, source, check_blocks(fn, g, dest, source, nelems, sizeof(T), false)); \
                   });                                                                                      \
  }                                                                                                         \
  int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {                   \
    return on_team(__func__, team,                                                                          \
                   [&](const char* fn, group& g) {                                                          \
                     group_alltoall(fn, g, dest, source, check_blocks(fn, g, dest, source, nelems, sizeof(T), true)); \
                   });                                                                                      \
  }                                                                                                         \
  int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,      \
                            size_t nelems) noexcept {                                                                \
    return on_team(__func__, team, [&](const char* fn, group& g) {                                          \
      check_strided_blocks(fn, g, dest, source, dst, sst, nelems, sizeof(T));                               \
      group_alltoalls(fn, g, dest, source, dst, sst, nelems, sizeof(T));                                    \
    });                                                                                                     \
  }
RDSM_SHMEM_RMA_TYPES(RDSM_DEF_COLL)

#define RDSM_DEF_REDUCE(T, N, OP)                                                                           \
  int shmem_##N##_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce) noexcept {             \
    return on_team(__func__, team,                                                                          \
                   [&](const char* fn, group& g) { reduce<T, op_##OP>(fn, g, dest, source, nreduce); });    \
  }
#define RDSM_DEF_REDUCE_BITWISE(T, N) RDSM_DEF_REDUCE(T, N, and) RDSM_DEF_REDUCE(T, N, or) RDSM_DEF_REDUCE(T, N, xor)
#define RDSM_DEF_REDUCE_MINMAX(T, N) RDSM_DEF_REDUCE(T, N, max) RDSM_DEF_REDUCE(T, N, min)
#define RDSM_DEF_REDUCE_ARITH(T, N) RDSM_DEF_REDUCE(T, N, sum) RDSM_DEF_REDUCE(T, N, prod)
RDSM_SHMEM_REDUCE_BITWISE_TYPES(RDSM_DEF_REDUCE_BITWISE)
RDSM_SHMEM_REDUCE_MINMAX_TYPES(RDSM_DEF_REDUCE_MINMAX)
RDSM_SHMEM_REDUCE_ARITH_TYPES(RDSM_DEF_REDUCE_ARITH)

#define RDSM_DEF_SCAN(T, N)                                                                                 \
  int shmem_##N##_sum_inscan(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {                 \
    return on_team(__func__, team, [&](const char* fn, group& g) { scan(fn, g, dest, source, nelems, true); }); \
  }                                                                                                         \
  int shmem_##N##_sum_exscan(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {                 \
    return on_team(__func__, team, [&](const char* fn, group& g) { scan(fn, g, dest, source, nelems, false); }); \
  }
RDSM_SHMEM_REDUCE_ARITH_TYPES(RDSM_DEF_SCAN)

// Deprecated active-set forms: the pSync array holds the group's counters, which are zero again when
// every member has returned (as the specification requires of pSync).
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync) noexcept {
  group g = active_set(__func__, PE_start, logPE_stride, PE_size, pSync);
  group_barrier(__func__, g);
}
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync) noexcept {
  group g = active_set(__func__, PE_start, logPE_stride, PE_size, pSync);
  group_sync(__func__, g);
}

#define RDSM_DEF_LEGACY_SIZED(B)                                                                            \
  void shmem_broadcast##B(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,         \
                          int logPE_stride, int PE_size, long* pSync) noexcept {                                      \
    group g = active_set(__func__, PE_start, logPE_stride, PE_size, pSync);                                  \
    const size_t bytes = check_buffers(__func__, dest, source, nelems, B / 8);                               \
    group_broadcast(__func__, g, dest, source, bytes, check_root(__func__, g, PE_root), false);              \
  }                                                                                                         \
  void shmem_collect##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,      \
                        int PE_size, long* pSync) noexcept {                                                          \
    group g = active_set(__func__, PE_start, logPE_stride, PE_size, pSync);                                \
    group_collect(__func__, g, dest, source, check_buffers(__func__, dest, source, nelems, B / 8));          \
  }                                                                                                         \
  void shmem_fcollect##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,     \
                         int PE_size, long* pSync) noexcept {                                                         \
    group g = active_set(__func__, PE_start, logPE_stride, PE_size, pSync);                                \
    group_fcollect(__func__, g, dest, source, check_blocks(__func__, g, dest, source, nelems, B / 8, false)); \
  }                                                                                                         \
  void shmem_alltoall##B(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,     \
                         int PE_size, long* pSync) noexcept {                                                         \
    group g = active_set(__func__, PE_start, logPE_stride, PE_size, pSync);                                \
    group_alltoall(__func__, g, dest, source, check_blocks(__func__, g, dest, source, nelems, B / 8, true)); \
  }                                                                                                         \
  void shmem_alltoalls##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,      \
                          int PE_start, int logPE_stride, int PE_size, long* pSync) noexcept {                        \
    group g = active_set(__func__, PE_start, logPE_stride, PE_size, pSync);                                \
    check_strided_blocks(__func__, g, dest, source, dst, sst, nelems, B / 8);                                \
    group_alltoalls(__func__, g, dest, source, dst, sst, nelems, B / 8);                                     \
  }
RDSM_SHMEM_LEGACY_SIZES(RDSM_DEF_LEGACY_SIZED)

#define RDSM_DEF_TO_ALL(T, N, OP)                                                                           \
  void shmem_##N##_##OP##_to_all(T* dest, const T* source, int nreduce, int PE_start, int logPE_stride,    \
                                 int PE_size, T*, long* pSync) noexcept {                                             \
    group g = active_set(__func__, PE_start, logPE_stride, PE_size, pSync);                                \
    if (nreduce < 0) fatal("%s: nreduce %d is negative; check the element count", __func__, nreduce);        \
    reduce<T, op_##OP>(__func__, g, dest, source, static_cast<size_t>(nreduce));                            \
  }
#define RDSM_DEF_TO_ALL_BITWISE(T, N) RDSM_DEF_TO_ALL(T, N, and) RDSM_DEF_TO_ALL(T, N, or) RDSM_DEF_TO_ALL(T, N, xor)
#define RDSM_DEF_TO_ALL_MINMAX(T, N) RDSM_DEF_TO_ALL(T, N, max) RDSM_DEF_TO_ALL(T, N, min)
#define RDSM_DEF_TO_ALL_ARITH(T, N) RDSM_DEF_TO_ALL(T, N, sum) RDSM_DEF_TO_ALL(T, N, prod)
RDSM_SHMEM_TO_ALL_BITWISE_TYPES(RDSM_DEF_TO_ALL_BITWISE)
RDSM_SHMEM_TO_ALL_MINMAX_TYPES(RDSM_DEF_TO_ALL_MINMAX)
RDSM_SHMEM_TO_ALL_ARITH_TYPES(RDSM_DEF_TO_ALL_ARITH)

}  // extern "C"
