/* The routines OpenSHMEM 1.6 added to 1.5 (included by shmem.h): strided-block RMA, signal updates without data,
 * per-PE quiet, communication sessions, inclusive and exclusive sum scans and the initialization query. */
#ifndef RDSM_SHMEM16_H
#define RDSM_SHMEM16_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Setup ------------------------------------------------------------------------------------------------ */
/* *initialized becomes nonzero between an initialization routine and the shmem_finalize that matches it, zero
 * otherwise. Any thread, at any time (before shmem_init too). Initialization routines may be called several times:
 * the library stays initialized until shmem_finalize has been called as often. */
SHMEM_API void shmem_query_initialized(int *initialized) SHMEM_NOEXCEPT;

/* ---- Strided-block RMA: block i (bsize contiguous elements) moves from source + i*sst to dest + i*dst (strides
 * in elements). ibput returns when source may be reused, ibget when dest holds every block. -------------------- */
#define RDSM_DECL_IB(T, N)                                                                                         \
  SHMEM_API void shmem_##N##_ibput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,            \
                                   size_t nblocks, int pe) SHMEM_NOEXCEPT;                                         \
  SHMEM_API void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                       size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT;                       \
  SHMEM_API void shmem_##N##_ibget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,            \
                                   size_t nblocks, int pe) SHMEM_NOEXCEPT;                                         \
  SHMEM_API void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                       size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_RMA_TYPES(RDSM_DECL_IB)
#undef RDSM_DECL_IB
#define RDSM_DECL_IB_SIZED(B)                                                                                      \
  SHMEM_API void shmem_ibput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,         \
                                size_t nblocks, int pe) SHMEM_NOEXCEPT;                                            \
  SHMEM_API void shmem_ctx_ibput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                    size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT;                          \
  SHMEM_API void shmem_ibget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,         \
                                size_t nblocks, int pe) SHMEM_NOEXCEPT;                                            \
  SHMEM_API void shmem_ctx_ibget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                    size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_SIZES(RDSM_DECL_IB_SIZED)
#undef RDSM_DECL_IB_SIZED

/* ---- Signals without data: set or add to the 64-bit signal word at sig_addr on pe, with the atomicity of a
 * put-with-signal's update. Complete at the next quiet on the context, like a non-fetching AMO. ---------------- */
SHMEM_API void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;

/* ---- Per-PE completion: when it returns, the puts, AMOs, signals and nbi operations the context issued to the
 * npes PEs of target_pes (PE numbers of the context's team) are complete and visible to every PE. npes 0: returns
 * at once without reading target_pes. rdsm completes all of the context's operations (a superset, as the
 * specification's notes allow), so the cost is that of shmem_ctx_quiet. -------------------------------------- */
SHMEM_API void shmem_pe_quiet(const int *target_pes, size_t npes) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes) SHMEM_NOEXCEPT;

/* ---- Sessions: hints that a context will issue a batch of operations (options SHMEM_CTX_SESSION_BATCH;
 * config->total_ops, read when config_mask has SHMEM_CTX_SESSION_TOTAL_OPS, the expected number of RMA calls).
 * They never change results, completion or ordering; rdsm applies no optimization for them. Not collective; any
 * thread. SHMEM_CTX_INVALID: no operation. A stop without a session does nothing. ---------------------------- */
typedef struct {
  size_t total_ops;
} shmem_ctx_session_config_t;
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
SHMEM_API void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,
                                       long config_mask) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_session_stop(shmem_ctx_t ctx) SHMEM_NOEXCEPT;

/* ---- Scans (collective over team): dest[j] on team PE i is the sum of source[j] over team PEs 0..i (inscan)
 * or 0..i-1 (exscan; zero on PE 0). source and dest are the same or disjoint. 0 on success; nonzero at once for
 * SHMEM_TEAM_INVALID. ------------------------------------------------------------------------------------------ */
#define RDSM_DECL_SCAN(T, N)                                                                                       \
  SHMEM_API int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems) SHMEM_NOEXCEPT;  \
  SHMEM_API int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems) SHMEM_NOEXCEPT;
RDSM_SHMEM_REDUCE_ARITH_TYPES(RDSM_DECL_SCAN)
#undef RDSM_DECL_SCAN

#ifdef __cplusplus
}
#endif

#endif /* RDSM_SHMEM16_H */
