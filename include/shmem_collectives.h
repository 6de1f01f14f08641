/* OpenSHMEM 1.5 teams, contexts and collectives of rdsm (included by shmem.h). */
#ifndef RDSM_SHMEM_COLLECTIVES_H
#define RDSM_SHMEM_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The complex types of the reductions. C++ and C before C99 have no _Complex: GCC and Clang accept it there as
 * an extension, and __extension__ keeps -Wpedantic quiet about it in programs that include this header. */
#if defined(__GNUC__)
__extension__ typedef double _Complex rdsm_shmem_complexd;
__extension__ typedef float _Complex rdsm_shmem_complexf;
#else
typedef double _Complex rdsm_shmem_complexd;
typedef float _Complex rdsm_shmem_complexf;
#endif

/* ---- Teams ------------------------------------------------------------------------------------ */
typedef struct rdsm_team *shmem_team_t;
typedef struct {
  int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

SHMEM_API extern shmem_team_t SHMEM_TEAM_WORLD;
/* The PEs whose symmetric memory this PE can load and store (shmem_ptr works for all of them). */
SHMEM_API extern shmem_team_t SHMEM_TEAM_SHARED;
#if defined(__cplusplus) && __cplusplus >= 201103L
#define SHMEM_TEAM_INVALID (static_cast<shmem_team_t>(nullptr)) /* no old-style cast in C++ code */
#else
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#endif

SHMEM_API int shmem_team_my_pe(shmem_team_t team) SHMEM_NOEXCEPT;
SHMEM_API int shmem_team_n_pes(shmem_team_t team) SHMEM_NOEXCEPT;
SHMEM_API int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config) SHMEM_NOEXCEPT;
SHMEM_API int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) SHMEM_NOEXCEPT;
/* Collective over the parent; team PE i is parent PE start + stride*i (a negative stride counts down); PEs
 * outside the new team get SHMEM_TEAM_INVALID. 0 on success. A parent of SHMEM_TEAM_INVALID creates no team:
 * the new handles become SHMEM_TEAM_INVALID and the result is nonzero. */
SHMEM_API int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                       const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team) SHMEM_NOEXCEPT;
SHMEM_API int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                                  long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                                  long yaxis_mask, shmem_team_t *yaxis_team) SHMEM_NOEXCEPT;
SHMEM_API void shmem_team_destroy(shmem_team_t team) SHMEM_NOEXCEPT;
/* shmem_ptr with the PE numbered in `team`. */
SHMEM_API void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe) SHMEM_NOEXCEPT;
/* Returns when every member has called it; does not complete outstanding operations. Returns nonzero at once
 * for SHMEM_TEAM_INVALID. */
SHMEM_API int shmem_team_sync(shmem_team_t team) SHMEM_NOEXCEPT;

/* ---- Contexts: independent streams of RMA/AMO/signal operations -------------------------------- */
typedef struct rdsm_ctx *shmem_ctx_t;
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)
SHMEM_API extern shmem_ctx_t SHMEM_CTX_DEFAULT;
/* Routines given SHMEM_CTX_INVALID perform no operation (fetching ones return 0; get leaves dest alone). */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define SHMEM_CTX_INVALID (static_cast<shmem_ctx_t>(nullptr))
#else
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#endif
SHMEM_API int shmem_ctx_create(long options, shmem_ctx_t *ctx) SHMEM_NOEXCEPT;
/* A context whose PE numbers are those of `team`. */
SHMEM_API int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_destroy(shmem_ctx_t ctx) SHMEM_NOEXCEPT;
/* The team of a context (SHMEM_TEAM_WORLD for shmem_ctx_create's). For SHMEM_CTX_INVALID, *team becomes
 * SHMEM_TEAM_INVALID and the result is nonzero. */
SHMEM_API int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_fence(shmem_ctx_t ctx) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_quiet(shmem_ctx_t ctx) SHMEM_NOEXCEPT;

#define RDSM_DECL_CTX_RMA(T, N)                                                                          \
  SHMEM_API void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT;              \
  SHMEM_API T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe) SHMEM_NOEXCEPT;                  \
  SHMEM_API void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                      size_t nelems, int pe) SHMEM_NOEXCEPT;                               \
  SHMEM_API void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                      size_t nelems, int pe) SHMEM_NOEXCEPT;                               \
  SHMEM_API void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,       \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_RMA_TYPES(RDSM_DECL_CTX_RMA)
#undef RDSM_DECL_CTX_RMA

#define RDSM_DECL_CTX_SIZED(B)                                                                           \
  SHMEM_API void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                   size_t nelems, int pe) SHMEM_NOEXCEPT;                                  \
  SHMEM_API void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                   size_t nelems, int pe) SHMEM_NOEXCEPT;                                  \
  SHMEM_API void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                               uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_SIZES(RDSM_DECL_CTX_SIZED)
#undef RDSM_DECL_CTX_SIZED
SHMEM_API void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;

#define RDSM_DECL_CTX_EXT_AMO(T, N)                                                                      \
  SHMEM_API T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) SHMEM_NOEXCEPT;      \
  SHMEM_API void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT;      \
  SHMEM_API void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_EXT_AMO_TYPES(RDSM_DECL_CTX_EXT_AMO)
#undef RDSM_DECL_CTX_EXT_AMO
#define RDSM_DECL_CTX_AMO(T, N)                                                                          \
  SHMEM_API T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) SHMEM_NOEXCEPT;          \
  SHMEM_API void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) SHMEM_NOEXCEPT;             \
  SHMEM_API T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, \
                                                         int pe) SHMEM_NOEXCEPT;                           \
  SHMEM_API void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_AMO_TYPES(RDSM_DECL_CTX_AMO)
#undef RDSM_DECL_CTX_AMO
#define RDSM_DECL_CTX_BITWISE_AMO(T, N)                                                                  \
  SHMEM_API T shmem_ctx_##N##_atomic_fetch_and(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API T shmem_ctx_##N##_atomic_fetch_or(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT;  \
  SHMEM_API T shmem_ctx_##N##_atomic_fetch_xor(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_atomic_and(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API void shmem_ctx_##N##_atomic_or(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT;     \
  SHMEM_API void shmem_ctx_##N##_atomic_xor(shmem_ctx_t ctx, T *dest, T value, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API void shmem_ctx_##N##_atomic_fetch_and_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_atomic_fetch_or_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_atomic_fetch_xor_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_BITWISE_AMO_TYPES(RDSM_DECL_CTX_BITWISE_AMO)
#undef RDSM_DECL_CTX_BITWISE_AMO

/* ---- Team collectives (return 0 on success). dest must be ready on every member before any member
 * calls; no member returns before every member has entered. On SHMEM_TEAM_INVALID (a PE outside a sub-team)
 * they perform no operation and return nonzero. ----------------------------------------------------------- */
SHMEM_API int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root) SHMEM_NOEXCEPT;
SHMEM_API int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) SHMEM_NOEXCEPT;
SHMEM_API int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) SHMEM_NOEXCEPT;
SHMEM_API int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems) SHMEM_NOEXCEPT;
SHMEM_API int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                 size_t nelems) SHMEM_NOEXCEPT;
#define RDSM_DECL_COLL(T, N)                                                                              \
  SHMEM_API int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root) SHMEM_NOEXCEPT; \
  SHMEM_API int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems) SHMEM_NOEXCEPT; \
  SHMEM_API int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems) SHMEM_NOEXCEPT; \
  SHMEM_API int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems) SHMEM_NOEXCEPT; \
  SHMEM_API int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                      size_t nelems) SHMEM_NOEXCEPT;
RDSM_SHMEM_RMA_TYPES(RDSM_DECL_COLL)
#undef RDSM_DECL_COLL

/* Reduction types, X(TYPE, TYPENAME), per operator family of the specification. */
#define RDSM_SHMEM_REDUCE_BITWISE_TYPES(X)                                                               \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)         \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)  \
  X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define RDSM_SHMEM_REDUCE_MINMAX_TYPES(X)                                                                \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)    \
  X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)          \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)             \
  X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)          \
  X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double) X(long double, longdouble)
#define RDSM_SHMEM_REDUCE_ARITH_TYPES(X) \
  RDSM_SHMEM_REDUCE_MINMAX_TYPES(X) X(rdsm_shmem_complexd, complexd) X(rdsm_shmem_complexf, complexf)
#define RDSM_DECL_REDUCE(T, N, OP) \
  SHMEM_API int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) SHMEM_NOEXCEPT;
#define RDSM_DECL_REDUCE_BITWISE(T, N) RDSM_DECL_REDUCE(T, N, and) RDSM_DECL_REDUCE(T, N, or) RDSM_DECL_REDUCE(T, N, xor)
#define RDSM_DECL_REDUCE_MINMAX(T, N) RDSM_DECL_REDUCE(T, N, max) RDSM_DECL_REDUCE(T, N, min)
#define RDSM_DECL_REDUCE_ARITH(T, N) RDSM_DECL_REDUCE(T, N, sum) RDSM_DECL_REDUCE(T, N, prod)
RDSM_SHMEM_REDUCE_BITWISE_TYPES(RDSM_DECL_REDUCE_BITWISE)
RDSM_SHMEM_REDUCE_MINMAX_TYPES(RDSM_DECL_REDUCE_MINMAX)
RDSM_SHMEM_REDUCE_ARITH_TYPES(RDSM_DECL_REDUCE_ARITH)

/* ---- Deprecated active-set collectives (PE_start, logPE_stride, PE_size, pSync) ------------------ */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE 208
#define SHMEM_BCAST_SYNC_SIZE 208
#define SHMEM_COLLECT_SYNC_SIZE 208
#define SHMEM_REDUCE_SYNC_SIZE 208
#define SHMEM_ALLTOALL_SYNC_SIZE 208
#define SHMEM_ALLTOALLS_SYNC_SIZE 208
#define SHMEM_SYNC_SIZE 208
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
/* Not in the specification (which has no underscore forms for alltoall), but programs written for other
 * implementations use them. */
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
SHMEM_API void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) SHMEM_NOEXCEPT;
/* Deprecated active-set form. shmem_sync(team) is the 1.5 team form of shmem_team_sync: in C11 the name is a macro
 * that picks the form by argument count (shmem_generic.h), in C++ an overload (shmem_cxx.h). */
SHMEM_API void (shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync) SHMEM_NOEXCEPT;
#define RDSM_DECL_LEGACY_SIZED(B)                                                                        \
  SHMEM_API void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, \
                                    int logPE_stride, int PE_size, long *pSync) SHMEM_NOEXCEPT;            \
  SHMEM_API void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                                  int PE_size, long *pSync) SHMEM_NOEXCEPT;                                \
  SHMEM_API void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                                   int PE_size, long *pSync) SHMEM_NOEXCEPT;                               \
  SHMEM_API void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                                   int PE_size, long *pSync) SHMEM_NOEXCEPT;                               \
  SHMEM_API void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                    int PE_start, int logPE_stride, int PE_size, long *pSync) SHMEM_NOEXCEPT;
#define RDSM_SHMEM_LEGACY_SIZES(X) X(32) X(64)
RDSM_SHMEM_LEGACY_SIZES(RDSM_DECL_LEGACY_SIZED)
#undef RDSM_DECL_LEGACY_SIZED
#define RDSM_SHMEM_TO_ALL_BITWISE_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define RDSM_SHMEM_TO_ALL_MINMAX_TYPES(X) \
  RDSM_SHMEM_TO_ALL_BITWISE_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
#define RDSM_SHMEM_TO_ALL_ARITH_TYPES(X) \
  RDSM_SHMEM_TO_ALL_MINMAX_TYPES(X) X(rdsm_shmem_complexd, complexd) X(rdsm_shmem_complexf, complexf)
#define RDSM_DECL_TO_ALL(T, N, OP)                                                                       \
  SHMEM_API void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, \
                                           int PE_size, T *pWrk, long *pSync) SHMEM_NOEXCEPT;
#define RDSM_DECL_TO_ALL_BITWISE(T, N) RDSM_DECL_TO_ALL(T, N, and) RDSM_DECL_TO_ALL(T, N, or) RDSM_DECL_TO_ALL(T, N, xor)
#define RDSM_DECL_TO_ALL_MINMAX(T, N) RDSM_DECL_TO_ALL(T, N, max) RDSM_DECL_TO_ALL(T, N, min)
#define RDSM_DECL_TO_ALL_ARITH(T, N) RDSM_DECL_TO_ALL(T, N, sum) RDSM_DECL_TO_ALL(T, N, prod)
RDSM_SHMEM_TO_ALL_BITWISE_TYPES(RDSM_DECL_TO_ALL_BITWISE)
RDSM_SHMEM_TO_ALL_MINMAX_TYPES(RDSM_DECL_TO_ALL_MINMAX)
RDSM_SHMEM_TO_ALL_ARITH_TYPES(RDSM_DECL_TO_ALL_ARITH)

#ifdef __cplusplus
}
#endif

#endif /* RDSM_SHMEM_COLLECTIVES_H */
