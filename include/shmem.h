/* OpenSHMEM 1.6 C API of rdsm (every 1.5 name kept; 1.6 additions in shmem16.h): heap, RMA, atomics, signals, sync. */
#ifndef RDSM_SHMEM_H
#define RDSM_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_API __attribute__((visibility("default")))
/* No routine lets a C++ exception out: C callers have no frames to unwind. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define SHMEM_NOEXCEPT noexcept
#elif defined(__cplusplus)
#define SHMEM_NOEXCEPT throw()
#else
#define SHMEM_NOEXCEPT
#endif

/* ---- Library constants ---------------------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "rdsm"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Comparison operators for wait_until / test / signal_wait_until. */
#define SHMEM_CMP_EQ 1
#define SHMEM_CMP_NE 2
#define SHMEM_CMP_GT 3
#define SHMEM_CMP_GE 4
#define SHMEM_CMP_LT 5
#define SHMEM_CMP_LE 6
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* Signal update operators for put-with-signal. */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Hints for shmem_malloc_with_hints. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* ---- Type tables: X(TYPE, TYPENAME), one row per type the specification lists ------------- */
/* Standard RMA types (every RMA and signal routine). */
#define RDSM_SHMEM_RMA_TYPES(X)                                                                 \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)                    \
  X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)        \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)         \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
  X(size_t, size) X(ptrdiff_t, ptrdiff)
/* Standard AMO types (compare_swap, fetch_inc, inc, fetch_add, add). */
#define RDSM_SHMEM_AMO_TYPES(X)                                                                 \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)      \
  X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
/* Extended AMO types (fetch, set, swap): the standard ones plus float and double. */
#define RDSM_SHMEM_EXT_AMO_TYPES(X) X(float, float) X(double, double) RDSM_SHMEM_AMO_TYPES(X)
/* Bitwise AMO types (and, or, xor and their fetching forms). */
#define RDSM_SHMEM_BITWISE_AMO_TYPES(X)                                                         \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)
/* Point-to-point synchronization types (wait_until, test and their variants). */
#define RDSM_SHMEM_SYNC_TYPES(X)                                                                \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)     \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)               \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)   \
  X(ptrdiff_t, ptrdiff)
/* Sized RMA forms: X(bits). */
#define RDSM_SHMEM_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* ---- Setup, exit and query -------------------------------------------------------------------- */
/* Starts the library (collective): every PE must call it before any other routine. Errors end the job. */
SHMEM_API void shmem_init(void) SHMEM_NOEXCEPT;
/* Starts the library asking for a thread level; returns 0 on success and the level in *provided. */
SHMEM_API int shmem_init_thread(int requested, int *provided) SHMEM_NOEXCEPT;
SHMEM_API void shmem_query_thread(int *provided) SHMEM_NOEXCEPT;
/* Completes all operations, synchronizes and releases every resource (collective). */
SHMEM_API void shmem_finalize(void) SHMEM_NOEXCEPT;
SHMEM_API int shmem_my_pe(void) SHMEM_NOEXCEPT;
SHMEM_API int shmem_n_pes(void) SHMEM_NOEXCEPT;
/* 1 if `pe` is a PE of the job, 0 otherwise. */
SHMEM_API int shmem_pe_accessible(int pe) SHMEM_NOEXCEPT;
/* 1 if `addr` is symmetric and `pe` valid, so it can be the target of RMA/AMO on `pe`. */
SHMEM_API int shmem_addr_accessible(const void *addr, int pe) SHMEM_NOEXCEPT;
/* A load/store pointer to `pe`'s copy of symmetric `dest`, or NULL when that PE's memory is not mapped. */
SHMEM_API void *shmem_ptr(const void *dest, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_info_get_version(int *major, int *minor) SHMEM_NOEXCEPT;
SHMEM_API void shmem_info_get_name(char *name) SHMEM_NOEXCEPT;
/* Profiling control (levels 0-2 and user values); a no-op in the library, for profiling tools. */
SHMEM_API void shmem_pcontrol(const int level, ...) SHMEM_NOEXCEPT;
/* Ends every PE of the job with exit status `status`. Does not return. */
SHMEM_API void shmem_global_exit(int status) SHMEM_NOEXCEPT __attribute__((noreturn));

/* ---- Memory management (collective; each ends or begins with a barrier) --------------------- */
SHMEM_API void *shmem_malloc(size_t size) SHMEM_NOEXCEPT;
SHMEM_API void *shmem_malloc_with_hints(size_t size, long hints) SHMEM_NOEXCEPT;
SHMEM_API void *shmem_calloc(size_t count, size_t size) SHMEM_NOEXCEPT;
SHMEM_API void *shmem_align(size_t alignment, size_t size) SHMEM_NOEXCEPT;
SHMEM_API void *shmem_realloc(void *ptr, size_t size) SHMEM_NOEXCEPT;
SHMEM_API void shmem_free(void *ptr) SHMEM_NOEXCEPT;

/* ---- RMA: put returns when `source` may be reused; get when `dest` holds the data; the _nbi forms
 * return at once and complete at the next shmem_quiet. ------------------------------------------- */
#define RDSM_DECL_RMA(T, N)                                                                         \
  SHMEM_API void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_##N##_p(T *dest, T value, int pe) SHMEM_NOEXCEPT;                             \
  SHMEM_API T shmem_##N##_g(const T *source, int pe) SHMEM_NOEXCEPT;                                 \
  SHMEM_API void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                  int pe) SHMEM_NOEXCEPT;                                             \
  SHMEM_API void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                  int pe) SHMEM_NOEXCEPT;                                             \
  SHMEM_API void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                        uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;          \
  SHMEM_API void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                            uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_RMA_TYPES(RDSM_DECL_RMA)
#undef RDSM_DECL_RMA

#define RDSM_DECL_SIZED(B)                                                                          \
  SHMEM_API void shmem_put##B(void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_get##B(void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                               int pe) SHMEM_NOEXCEPT;                                                \
  SHMEM_API void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                               int pe) SHMEM_NOEXCEPT;                                                \
  SHMEM_API void shmem_put##B##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                       uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;           \
  SHMEM_API void shmem_put##B##_signal_nbi(void *dest, const void *source, size_t nelems,            \
                                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_SIZES(RDSM_DECL_SIZED)
#undef RDSM_DECL_SIZED

SHMEM_API void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_getmem(void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                   uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;

/* ---- Signals ------------------------------------------------------------------------------------ */
SHMEM_API uint64_t shmem_signal_fetch(const uint64_t *sig_addr) SHMEM_NOEXCEPT;
/* Waits until `*sig_addr cmp cmp_value` holds and returns the signal's value. */
SHMEM_API uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) SHMEM_NOEXCEPT;

/* ---- Atomic memory operations (atomic with respect to every other rdsm AMO on the same word) -- */
#define RDSM_DECL_EXT_AMO(T, N)                                                                    \
  SHMEM_API T shmem_##N##_atomic_fetch(const T *source, int pe) SHMEM_NOEXCEPT;                     \
  SHMEM_API void shmem_##N##_atomic_set(T *dest, T value, int pe) SHMEM_NOEXCEPT;                   \
  SHMEM_API T shmem_##N##_atomic_swap(T *dest, T value, int pe) SHMEM_NOEXCEPT;                     \
  SHMEM_API void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_EXT_AMO_TYPES(RDSM_DECL_EXT_AMO)
#undef RDSM_DECL_EXT_AMO

#define RDSM_DECL_AMO(T, N)                                                                        \
  SHMEM_API T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) SHMEM_NOEXCEPT;     \
  SHMEM_API T shmem_##N##_atomic_fetch_inc(T *dest, int pe) SHMEM_NOEXCEPT;                         \
  SHMEM_API void shmem_##N##_atomic_inc(T *dest, int pe) SHMEM_NOEXCEPT;                            \
  SHMEM_API T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe) SHMEM_NOEXCEPT;                \
  SHMEM_API void shmem_##N##_atomic_add(T *dest, T value, int pe) SHMEM_NOEXCEPT;                   \
  SHMEM_API void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) SHMEM_NOEXCEPT;        \
  SHMEM_API void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_AMO_TYPES(RDSM_DECL_AMO)
#undef RDSM_DECL_AMO

#define RDSM_DECL_BITWISE_AMO(T, N)                                                                \
  SHMEM_API T shmem_##N##_atomic_fetch_and(T *dest, T value, int pe) SHMEM_NOEXCEPT;                \
  SHMEM_API T shmem_##N##_atomic_fetch_or(T *dest, T value, int pe) SHMEM_NOEXCEPT;                 \
  SHMEM_API T shmem_##N##_atomic_fetch_xor(T *dest, T value, int pe) SHMEM_NOEXCEPT;                \
  SHMEM_API void shmem_##N##_atomic_and(T *dest, T value, int pe) SHMEM_NOEXCEPT;                   \
  SHMEM_API void shmem_##N##_atomic_or(T *dest, T value, int pe) SHMEM_NOEXCEPT;                    \
  SHMEM_API void shmem_##N##_atomic_xor(T *dest, T value, int pe) SHMEM_NOEXCEPT;                   \
  SHMEM_API void shmem_##N##_atomic_fetch_and_nbi(T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_##N##_atomic_fetch_or_nbi(T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_##N##_atomic_fetch_xor_nbi(T *fetch, T *dest, T value, int pe) SHMEM_NOEXCEPT;
RDSM_SHMEM_BITWISE_AMO_TYPES(RDSM_DECL_BITWISE_AMO)
#undef RDSM_DECL_BITWISE_AMO

/* ---- Ordering and collective synchronization ------------------------------------------------ */
/* Orders puts, AMOs and signals to each PE issued before it before those issued after it. */
SHMEM_API void shmem_fence(void) SHMEM_NOEXCEPT;
/* Completes every put, AMO, signal and nbi operation issued before it. */
SHMEM_API void shmem_quiet(void) SHMEM_NOEXCEPT;
/* Completes all operations, then waits until every PE has arrived. */
SHMEM_API void shmem_barrier_all(void) SHMEM_NOEXCEPT;
/* Waits until every PE has arrived (does not complete outstanding operations). */
SHMEM_API void shmem_sync_all(void) SHMEM_NOEXCEPT;

/* ---- Point-to-point synchronization on local symmetric variables ----------------------------- */
/* `status` (may be NULL) excludes element i when status[i] != 0. The _any forms return the index
 * satisfied, or SIZE_MAX when every element is excluded; _some return how many indices were stored. */
#define RDSM_DECL_SYNC(T, N)                                                                         \
  SHMEM_API void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) SHMEM_NOEXCEPT;                \
  SHMEM_API void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) SHMEM_NOEXCEPT; \
  SHMEM_API size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,     \
                                              T cmp_value) SHMEM_NOEXCEPT;                             \
  SHMEM_API size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                               int cmp, T cmp_value) SHMEM_NOEXCEPT;                   \
  SHMEM_API void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                                   const T *cmp_values) SHMEM_NOEXCEPT;                      \
  SHMEM_API size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                                     const T *cmp_values) SHMEM_NOEXCEPT;                    \
  SHMEM_API size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,        \
                                                      const int *status, int cmp, const T *cmp_values) SHMEM_NOEXCEPT; \
  SHMEM_API int shmem_##N##_test(T *ivar, int cmp, T cmp_value) SHMEM_NOEXCEPT;                       \
  SHMEM_API int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) SHMEM_NOEXCEPT; \
  SHMEM_API size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) SHMEM_NOEXCEPT; \
  SHMEM_API size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                         int cmp, T cmp_value) SHMEM_NOEXCEPT;                         \
  SHMEM_API int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,     \
                                            const T *cmp_values) SHMEM_NOEXCEPT;                             \
  SHMEM_API size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                               const T *cmp_values) SHMEM_NOEXCEPT;                          \
  SHMEM_API size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                                const int *status, int cmp, const T *cmp_values) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_##N##_wait(T *ivar, T cmp_value) SHMEM_NOEXCEPT;
RDSM_SHMEM_SYNC_TYPES(RDSM_DECL_SYNC)
#undef RDSM_DECL_SYNC
/* Deprecated untyped form (long): waits while *ivar == cmp_value. */
SHMEM_API void shmem_wait(long *ivar, long cmp_value) SHMEM_NOEXCEPT;

/* ---- Distributed locks (symmetric long, initially 0) ------------------------------------------- */
SHMEM_API void shmem_set_lock(long *lock) SHMEM_NOEXCEPT;
SHMEM_API void shmem_clear_lock(long *lock) SHMEM_NOEXCEPT;
/* Returns 0 when the lock was acquired, 1 when another PE holds it. */
SHMEM_API int shmem_test_lock(long *lock) SHMEM_NOEXCEPT;

/* ---- Deprecated names kept for programs written for OpenSHMEM 1.0-1.3 ------------------------ */
SHMEM_API void start_pes(int npes) SHMEM_NOEXCEPT;
SHMEM_API int _my_pe(void) SHMEM_NOEXCEPT;
SHMEM_API int _num_pes(void) SHMEM_NOEXCEPT;
SHMEM_API void *shmalloc(size_t size) SHMEM_NOEXCEPT;
SHMEM_API void shfree(void *ptr) SHMEM_NOEXCEPT;
SHMEM_API void *shrealloc(void *ptr, size_t size) SHMEM_NOEXCEPT;
SHMEM_API void *shmemalign(size_t alignment, size_t size) SHMEM_NOEXCEPT;
SHMEM_API void shmem_clear_cache_inv(void) SHMEM_NOEXCEPT;
SHMEM_API void shmem_set_cache_inv(void) SHMEM_NOEXCEPT;
SHMEM_API void shmem_udcflush(void) SHMEM_NOEXCEPT;
SHMEM_API void shmem_clear_cache_line_inv(void *dest) SHMEM_NOEXCEPT;
SHMEM_API void shmem_set_cache_line_inv(void *dest) SHMEM_NOEXCEPT;
SHMEM_API void shmem_udcflush_line(void *dest) SHMEM_NOEXCEPT;
/* Deprecated untyped form (long): waits until `*ivar cmp cmp_value`. In C11 the name is type-generic. */
SHMEM_API void (shmem_wait_until)(long *ivar, int cmp, long cmp_value) SHMEM_NOEXCEPT;
#define RDSM_SHMEM_HAVE_LONG_WAIT_UNTIL 1
#define RDSM_DECL_OLD_AMO(T, N)                                                                    \
  SHMEM_API T shmem_##N##_cswap(T *dest, T cond, T value, int pe) SHMEM_NOEXCEPT;                   \
  SHMEM_API T shmem_##N##_finc(T *dest, int pe) SHMEM_NOEXCEPT;                                     \
  SHMEM_API void shmem_##N##_inc(T *dest, int pe) SHMEM_NOEXCEPT;                                   \
  SHMEM_API T shmem_##N##_fadd(T *dest, T value, int pe) SHMEM_NOEXCEPT;                            \
  SHMEM_API void shmem_##N##_add(T *dest, T value, int pe) SHMEM_NOEXCEPT;
#define RDSM_DECL_OLD_EXT_AMO(T, N)                                                                \
  SHMEM_API T shmem_##N##_fetch(const T *source, int pe) SHMEM_NOEXCEPT;                            \
  SHMEM_API void shmem_##N##_set(T *dest, T value, int pe) SHMEM_NOEXCEPT;                          \
  SHMEM_API T shmem_##N##_swap(T *dest, T value, int pe) SHMEM_NOEXCEPT;
#define RDSM_SHMEM_OLD_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define RDSM_SHMEM_OLD_EXT_AMO_TYPES(X) X(float, float) X(double, double) RDSM_SHMEM_OLD_AMO_TYPES(X)
RDSM_SHMEM_OLD_AMO_TYPES(RDSM_DECL_OLD_AMO)
RDSM_SHMEM_OLD_EXT_AMO_TYPES(RDSM_DECL_OLD_EXT_AMO)
#undef RDSM_DECL_OLD_AMO
#undef RDSM_DECL_OLD_EXT_AMO

#ifdef __cplusplus
}
#endif

#include "shmem_collectives.h"
#include "shmem16.h"
#include "shmem_generic.h"
#ifdef __cplusplus
#include "shmem_cxx.h"
#endif

#endif /* RDSM_SHMEM_H */
