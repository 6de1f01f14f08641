/* C++ overloads of the OpenSHMEM type-generic names (included by shmem.h when compiling C++): shmem_put, shmem_g,
 * shmem_atomic_fetch_add, shmem_wait_until, shmem_broadcast, shmem_sum_reduce, ... for every type of the
 * specification's tables, with the context-first forms (shmem_put(ctx, dest, source, nelems, pe)) of the RMA,
 * signaling and AMO routines. Each forwards to the typed C routine. The C11 _Generic macros of shmem_generic.h
 * are the C counterpart; both use its type tables, which name each distinct C type once (int64_t is long on
 * LP64, so one overload serves both). Define RDSM_SHMEM_NO_CXX_OVERLOADS before including shmem.h to omit them. */
#ifndef RDSM_SHMEM_CXX_H
#define RDSM_SHMEM_CXX_H

#if defined(__cplusplus) && !defined(RDSM_SHMEM_NO_CXX_OVERLOADS)

#include <stddef.h>
#include <stdint.h>

#include "shmem_generic.h"

/* Overloads need C++ linkage, also when a program includes shmem.h inside extern "C" { }. */
extern "C++" {

#define RDSM_CXX_UNPAREN(...) __VA_ARGS__
/* shmem_<op>(params) forwarding to shmem_<N>_<op>(args). */
#define RDSM_CXX_ONE(R, op, N, params, args) \
  inline R shmem_##op(RDSM_CXX_UNPAREN params) { return shmem_##N##_##op(RDSM_CXX_UNPAREN args); }
/* The same and its context-first form forwarding to shmem_ctx_<N>_<op>(ctx, args). */
#define RDSM_CXX_PAIR(R, op, N, params, args)                                                     \
  RDSM_CXX_ONE(R, op, N, params, args)                                                            \
  inline R shmem_##op(shmem_ctx_t ctx, RDSM_CXX_UNPAREN params) {                                 \
    return shmem_ctx_##N##_##op(ctx, RDSM_CXX_UNPAREN args);                                      \
  }

/* ---- RMA, signaling and team collectives (standard RMA types) ----------------------------------------------- */
#define RDSM_CXX_RMA(T, N)                                                                                        \
  RDSM_CXX_PAIR(void, put, N, (T * dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe))      \
  RDSM_CXX_PAIR(void, get, N, (T * dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe))      \
  RDSM_CXX_PAIR(void, put_nbi, N, (T * dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe))  \
  RDSM_CXX_PAIR(void, get_nbi, N, (T * dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe))  \
  RDSM_CXX_PAIR(void, p, N, (T * dest, T value, int pe), (dest, value, pe))                                        \
  RDSM_CXX_PAIR(T, g, N, (const T *source, int pe), (source, pe))                                                  \
  RDSM_CXX_PAIR(void, iput, N, (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),  \
                (dest, source, dst, sst, nelems, pe))                                                              \
  RDSM_CXX_PAIR(void, iget, N, (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),  \
                (dest, source, dst, sst, nelems, pe))                                                              \
  RDSM_CXX_PAIR(void, ibput, N,                                                                                    \
                (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe),   \
                (dest, source, dst, sst, bsize, nblocks, pe))                                                      \
  RDSM_CXX_PAIR(void, ibget, N,                                                                                    \
                (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe),   \
                (dest, source, dst, sst, bsize, nblocks, pe))                                                      \
  RDSM_CXX_PAIR(void, put_signal, N,                                                                               \
                (T * dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), \
                (dest, source, nelems, sig_addr, signal, sig_op, pe))                                              \
  RDSM_CXX_PAIR(void, put_signal_nbi, N,                                                                           \
                (T * dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), \
                (dest, source, nelems, sig_addr, signal, sig_op, pe))                                              \
  RDSM_CXX_ONE(int, broadcast, N, (shmem_team_t team, T * dest, const T *source, size_t nelems, int PE_root),      \
               (team, dest, source, nelems, PE_root))                                                              \
  RDSM_CXX_ONE(int, collect, N, (shmem_team_t team, T * dest, const T *source, size_t nelems),                     \
               (team, dest, source, nelems))                                                                       \
  RDSM_CXX_ONE(int, fcollect, N, (shmem_team_t team, T * dest, const T *source, size_t nelems),                    \
               (team, dest, source, nelems))                                                                       \
  RDSM_CXX_ONE(int, alltoall, N, (shmem_team_t team, T * dest, const T *source, size_t nelems),                    \
               (team, dest, source, nelems))                                                                       \
  RDSM_CXX_ONE(int, alltoalls, N,                                                                                  \
               (shmem_team_t team, T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems),        \
               (team, dest, source, dst, sst, nelems))
RDSM_GENERIC_RMA_TYPES(RDSM_CXX_RMA)
#undef RDSM_CXX_RMA

/* ---- AMO ---------------------------------------------------------------------------------------------------- */
#define RDSM_CXX_EXT_AMO(T, N)                                                                                    \
  RDSM_CXX_PAIR(T, atomic_fetch, N, (const T *source, int pe), (source, pe))                                       \
  RDSM_CXX_PAIR(void, atomic_set, N, (T * dest, T value, int pe), (dest, value, pe))                               \
  RDSM_CXX_PAIR(T, atomic_swap, N, (T * dest, T value, int pe), (dest, value, pe))                                 \
  RDSM_CXX_PAIR(void, atomic_fetch_nbi, N, (T * fetch, const T *source, int pe), (fetch, source, pe))              \
  RDSM_CXX_PAIR(void, atomic_swap_nbi, N, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))
RDSM_GENERIC_EXT_AMO_TYPES(RDSM_CXX_EXT_AMO)
#undef RDSM_CXX_EXT_AMO

#define RDSM_CXX_AMO(T, N)                                                                                        \
  RDSM_CXX_PAIR(T, atomic_compare_swap, N, (T * dest, T cond, T value, int pe), (dest, cond, value, pe))           \
  RDSM_CXX_PAIR(T, atomic_fetch_inc, N, (T * dest, int pe), (dest, pe))                                            \
  RDSM_CXX_PAIR(void, atomic_inc, N, (T * dest, int pe), (dest, pe))                                               \
  RDSM_CXX_PAIR(T, atomic_fetch_add, N, (T * dest, T value, int pe), (dest, value, pe))                            \
  RDSM_CXX_PAIR(void, atomic_add, N, (T * dest, T value, int pe), (dest, value, pe))                               \
  RDSM_CXX_PAIR(void, atomic_compare_swap_nbi, N, (T * fetch, T * dest, T cond, T value, int pe),                  \
                (fetch, dest, cond, value, pe))                                                                    \
  RDSM_CXX_PAIR(void, atomic_fetch_inc_nbi, N, (T * fetch, T * dest, int pe), (fetch, dest, pe))                   \
  RDSM_CXX_PAIR(void, atomic_fetch_add_nbi, N, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))
RDSM_GENERIC_AMO_TYPES(RDSM_CXX_AMO)
#undef RDSM_CXX_AMO

#define RDSM_CXX_BITWISE_AMO(T, N)                                                                                \
  RDSM_CXX_PAIR(T, atomic_fetch_and, N, (T * dest, T value, int pe), (dest, value, pe))                            \
  RDSM_CXX_PAIR(T, atomic_fetch_or, N, (T * dest, T value, int pe), (dest, value, pe))                             \
  RDSM_CXX_PAIR(T, atomic_fetch_xor, N, (T * dest, T value, int pe), (dest, value, pe))                            \
  RDSM_CXX_PAIR(void, atomic_and, N, (T * dest, T value, int pe), (dest, value, pe))                               \
  RDSM_CXX_PAIR(void, atomic_or, N, (T * dest, T value, int pe), (dest, value, pe))                                \
  RDSM_CXX_PAIR(void, atomic_xor, N, (T * dest, T value, int pe), (dest, value, pe))                               \
  RDSM_CXX_PAIR(void, atomic_fetch_and_nbi, N, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))   \
  RDSM_CXX_PAIR(void, atomic_fetch_or_nbi, N, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))    \
  RDSM_CXX_PAIR(void, atomic_fetch_xor_nbi, N, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))
RDSM_GENERIC_BITWISE_TYPES(RDSM_CXX_BITWISE_AMO)
#undef RDSM_CXX_BITWISE_AMO

/* ---- Point-to-point synchronization ------------------------------------------------------------------------- */
#define RDSM_CXX_SYNC(T, N)                                                                                       \
  RDSM_CXX_ONE(void, wait_until_all, N, (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value),       \
               (ivars, nelems, status, cmp, cmp_value))                                                            \
  RDSM_CXX_ONE(size_t, wait_until_any, N, (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value),     \
               (ivars, nelems, status, cmp, cmp_value))                                                            \
  RDSM_CXX_ONE(size_t, wait_until_some, N,                                                                         \
               (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value),               \
               (ivars, nelems, indices, status, cmp, cmp_value))                                                   \
  RDSM_CXX_ONE(void, wait_until_all_vector, N,                                                                     \
               (T * ivars, size_t nelems, const int *status, int cmp, const T *cmp_values),                           \
               (ivars, nelems, status, cmp, cmp_values))                                                           \
  RDSM_CXX_ONE(size_t, wait_until_any_vector, N,                                                                   \
               (T * ivars, size_t nelems, const int *status, int cmp, const T *cmp_values),                           \
               (ivars, nelems, status, cmp, cmp_values))                                                           \
  RDSM_CXX_ONE(size_t, wait_until_some_vector, N,                                                                  \
               (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp, const T *cmp_values),          \
               (ivars, nelems, indices, status, cmp, cmp_values))                                                  \
  RDSM_CXX_ONE(int, test, N, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value))                             \
  RDSM_CXX_ONE(int, test_all, N, (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value),              \
               (ivars, nelems, status, cmp, cmp_value))                                                            \
  RDSM_CXX_ONE(size_t, test_any, N, (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value),           \
               (ivars, nelems, status, cmp, cmp_value))                                                            \
  RDSM_CXX_ONE(size_t, test_some, N,                                                                               \
               (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value),               \
               (ivars, nelems, indices, status, cmp, cmp_value))                                                   \
  RDSM_CXX_ONE(int, test_all_vector, N, (T * ivars, size_t nelems, const int *status, int cmp, const T *cmp_values),  \
               (ivars, nelems, status, cmp, cmp_values))                                                           \
  RDSM_CXX_ONE(size_t, test_any_vector, N, (T * ivars, size_t nelems, const int *status, int cmp, const T *cmp_values),\
               (ivars, nelems, status, cmp, cmp_values))                                                           \
  RDSM_CXX_ONE(size_t, test_some_vector, N,                                                                        \
               (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp, const T *cmp_values),          \
               (ivars, nelems, indices, status, cmp, cmp_values))
RDSM_GENERIC_SYNC_TYPES(RDSM_CXX_SYNC)
#undef RDSM_CXX_SYNC

/* shmem_wait_until: the deprecated C routine shmem_wait_until(long *, int, long) has the long overload's
 * signature, so once shmem.h declares it (and defines RDSM_SHMEM_HAVE_LONG_WAIT_UNTIL) it serves as that one. */
#define RDSM_CXX_WAIT_UNTIL(T, N) \
  RDSM_CXX_ONE(void, wait_until, N, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value))
#ifdef RDSM_SHMEM_HAVE_LONG_WAIT_UNTIL
RDSM_CXX_WAIT_UNTIL(short, short)
RDSM_CXX_WAIT_UNTIL(int, int)
RDSM_CXX_WAIT_UNTIL(long long, longlong)
RDSM_CXX_WAIT_UNTIL(unsigned short, ushort)
RDSM_CXX_WAIT_UNTIL(unsigned int, uint)
RDSM_CXX_WAIT_UNTIL(unsigned long, ulong)
RDSM_CXX_WAIT_UNTIL(unsigned long long, ulonglong)
#else
RDSM_GENERIC_SYNC_TYPES(RDSM_CXX_WAIT_UNTIL)
#endif
#undef RDSM_CXX_WAIT_UNTIL

/* ---- Team reductions: shmem_<op>_reduce(team, dest, source, nreduce) ---------------------------------------- */
#define RDSM_CXX_REDUCE(T, N, op)                                                                                 \
  RDSM_CXX_ONE(int, op, N, (shmem_team_t team, T * dest, const T *source, size_t nreduce),                \
               (team, dest, source, nreduce))
/* (op is the whole name: "and", "or" and "xor" are operator tokens in C++ and cannot be pasted.) */
#define RDSM_CXX_REDUCE_BITWISE(T, N) \
  RDSM_CXX_REDUCE(T, N, and_reduce) RDSM_CXX_REDUCE(T, N, or_reduce) RDSM_CXX_REDUCE(T, N, xor_reduce)
#define RDSM_CXX_REDUCE_MINMAX(T, N) RDSM_CXX_REDUCE(T, N, max_reduce) RDSM_CXX_REDUCE(T, N, min_reduce)
#define RDSM_CXX_REDUCE_ARITH(T, N)                                                                  \
  RDSM_CXX_REDUCE(T, N, sum_reduce) RDSM_CXX_REDUCE(T, N, prod_reduce) RDSM_CXX_REDUCE(T, N, sum_inscan) \
  RDSM_CXX_REDUCE(T, N, sum_exscan)
RDSM_GENERIC_REDUCE_BITWISE_TYPES(RDSM_CXX_REDUCE_BITWISE)
RDSM_GENERIC_REDUCE_MINMAX_TYPES(RDSM_CXX_REDUCE_MINMAX)
RDSM_GENERIC_REDUCE_ARITH_TYPES(RDSM_CXX_REDUCE_ARITH)
#undef RDSM_CXX_REDUCE_BITWISE
#undef RDSM_CXX_REDUCE_MINMAX
#undef RDSM_CXX_REDUCE_ARITH
#undef RDSM_CXX_REDUCE

/* ---- shmem_sync(team): the 1.5 team form beside the deprecated active-set routine of the same name ------------ */
inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }

/* ---- 1.6 shmem_signal_set / shmem_signal_add: the context-first forms ---------------------------------------- */
inline void shmem_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe) {
  shmem_ctx_signal_set(ctx, sig_addr, signal, pe);
}
inline void shmem_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe) {
  shmem_ctx_signal_add(ctx, sig_addr, signal, pe);
}

#undef RDSM_CXX_PAIR
#undef RDSM_CXX_ONE
#undef RDSM_CXX_UNPAREN

} /* extern "C++" */

#endif /* __cplusplus && !RDSM_SHMEM_NO_CXX_OVERLOADS */
#endif /* RDSM_SHMEM_CXX_H */
