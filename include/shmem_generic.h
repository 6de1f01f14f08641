/* Type-generic names of the typed OpenSHMEM routines: the C11 _Generic macros (shmem_put, shmem_atomic_fetch_add,
 * shmem_broadcast, shmem_sum_reduce, ...) and the type tables they share with the C++ overloads of shmem_cxx.h. */
#ifndef RDSM_SHMEM_GENERIC_H
#define RDSM_SHMEM_GENERIC_H

/* ---- Type tables for generic selection and overloading: X(TYPE, TYPENAME), each distinct C type once ---------
 * The specification's tables also list aliases (int8_t .. uint64_t, size_t, ptrdiff_t); on LP64 they are the same
 * types as rows below (int64_t is long, size_t is unsigned long, ...), and a _Generic association or C++
 * overload may name each type only once. Rows named by a fixed-width typedef (int32_t, int64_t, ...) stand for
 * the spec rows that have no other spelling in that table (e.g. the bitwise AMOs take int32_t and int64_t but
 * not int and long). */
#define RDSM_GENERIC_RMA_TYPES(X)                                                                  \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char) X(signed char, schar)  \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)          \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                          \
  X(unsigned long long, ulonglong)
#define RDSM_GENERIC_AMO_TYPES(X)                                                                  \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong)   \
  X(unsigned long long, ulonglong)
#define RDSM_GENERIC_EXT_AMO_TYPES(X) X(float, float) X(double, double) RDSM_GENERIC_AMO_TYPES(X)
#define RDSM_GENERIC_BITWISE_TYPES(X)                                                              \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)  \
  X(int64_t, int64)
#define RDSM_GENERIC_SYNC_TYPES(X)                                                                 \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)        \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define RDSM_GENERIC_REDUCE_BITWISE_TYPES(X)                                                       \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)   \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)
#define RDSM_GENERIC_REDUCE_MINMAX_TYPES(X)                                                        \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong) \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)   \
  X(unsigned long long, ulonglong) X(float, float) X(double, double) X(long double, longdouble)
#define RDSM_GENERIC_REDUCE_ARITH_TYPES(X) \
  RDSM_GENERIC_REDUCE_MINMAX_TYPES(X) X(rdsm_shmem_complexd, complexd) X(rdsm_shmem_complexf, complexf)
/* Deprecated (1.4) AMO names: shmem_fetch, shmem_set, shmem_swap and shmem_cswap, shmem_finc, shmem_inc, ... */
#define RDSM_GENERIC_DEPR_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define RDSM_GENERIC_DEPR_EXT_AMO_TYPES(X) X(float, float) X(double, double) RDSM_GENERIC_DEPR_AMO_TYPES(X)

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* One association "T: shmem_N_<op>," (or "T: shmem_ctx_N_<op>,") per row; the controlling expression is an lvalue
 * of the pointee. */
#define RDSM_ASSOC_put(T, N) T : shmem_##N##_put,
#define RDSM_ASSOC_ctx_put(T, N) T : shmem_ctx_##N##_put,
#define RDSM_ASSOC_get(T, N) T : shmem_##N##_get,
#define RDSM_ASSOC_ctx_get(T, N) T : shmem_ctx_##N##_get,
#define RDSM_ASSOC_put_nbi(T, N) T : shmem_##N##_put_nbi,
#define RDSM_ASSOC_ctx_put_nbi(T, N) T : shmem_ctx_##N##_put_nbi,
#define RDSM_ASSOC_get_nbi(T, N) T : shmem_##N##_get_nbi,
#define RDSM_ASSOC_ctx_get_nbi(T, N) T : shmem_ctx_##N##_get_nbi,
#define RDSM_ASSOC_p(T, N) T : shmem_##N##_p,
#define RDSM_ASSOC_ctx_p(T, N) T : shmem_ctx_##N##_p,
#define RDSM_ASSOC_g(T, N) T : shmem_##N##_g,
#define RDSM_ASSOC_ctx_g(T, N) T : shmem_ctx_##N##_g,
#define RDSM_ASSOC_iput(T, N) T : shmem_##N##_iput,
#define RDSM_ASSOC_ibput(T, N) T : shmem_##N##_ibput,
#define RDSM_ASSOC_ctx_ibput(T, N) T : shmem_ctx_##N##_ibput,
#define RDSM_ASSOC_ibget(T, N) T : shmem_##N##_ibget,
#define RDSM_ASSOC_ctx_ibget(T, N) T : shmem_ctx_##N##_ibget,
#define RDSM_ASSOC_sum_inscan(T, N) T : shmem_##N##_sum_inscan,
#define RDSM_ASSOC_sum_exscan(T, N) T : shmem_##N##_sum_exscan,
#define RDSM_ASSOC_ctx_iput(T, N) T : shmem_ctx_##N##_iput,
#define RDSM_ASSOC_iget(T, N) T : shmem_##N##_iget,
#define RDSM_ASSOC_ctx_iget(T, N) T : shmem_ctx_##N##_iget,
#define RDSM_ASSOC_put_signal(T, N) T : shmem_##N##_put_signal,
#define RDSM_ASSOC_ctx_put_signal(T, N) T : shmem_ctx_##N##_put_signal,
#define RDSM_ASSOC_put_signal_nbi(T, N) T : shmem_##N##_put_signal_nbi,
#define RDSM_ASSOC_ctx_put_signal_nbi(T, N) T : shmem_ctx_##N##_put_signal_nbi,
#define RDSM_ASSOC_atomic_fetch(T, N) T : shmem_##N##_atomic_fetch,
#define RDSM_ASSOC_ctx_atomic_fetch(T, N) T : shmem_ctx_##N##_atomic_fetch,
#define RDSM_ASSOC_atomic_set(T, N) T : shmem_##N##_atomic_set,
#define RDSM_ASSOC_ctx_atomic_set(T, N) T : shmem_ctx_##N##_atomic_set,
#define RDSM_ASSOC_atomic_swap(T, N) T : shmem_##N##_atomic_swap,
#define RDSM_ASSOC_ctx_atomic_swap(T, N) T : shmem_ctx_##N##_atomic_swap,
#define RDSM_ASSOC_atomic_fetch_nbi(T, N) T : shmem_##N##_atomic_fetch_nbi,
#define RDSM_ASSOC_ctx_atomic_fetch_nbi(T, N) T : shmem_ctx_##N##_atomic_fetch_nbi,
#define RDSM_ASSOC_atomic_swap_nbi(T, N) T : shmem_##N##_atomic_swap_nbi,
#define RDSM_ASSOC_ctx_atomic_swap_nbi(T, N) T : shmem_ctx_##N##_atomic_swap_nbi,
#define RDSM_ASSOC_atomic_compare_swap(T, N) T : shmem_##N##_atomic_compare_swap,
#define RDSM_ASSOC_ctx_atomic_compare_swap(T, N) T : shmem_ctx_##N##_atomic_compare_swap,
#define RDSM_ASSOC_atomic_fetch_inc(T, N) T : shmem_##N##_atomic_fetch_inc,
#define RDSM_ASSOC_ctx_atomic_fetch_inc(T, N) T : shmem_ctx_##N##_atomic_fetch_inc,
#define RDSM_ASSOC_atomic_inc(T, N) T : shmem_##N##_atomic_inc,
#define RDSM_ASSOC_ctx_atomic_inc(T, N) T : shmem_ctx_##N##_atomic_inc,
#define RDSM_ASSOC_atomic_fetch_add(T, N) T : shmem_##N##_atomic_fetch_add,
#define RDSM_ASSOC_ctx_atomic_fetch_add(T, N) T : shmem_ctx_##N##_atomic_fetch_add,
#define RDSM_ASSOC_atomic_add(T, N) T : shmem_##N##_atomic_add,
#define RDSM_ASSOC_ctx_atomic_add(T, N) T : shmem_ctx_##N##_atomic_add,
#define RDSM_ASSOC_atomic_compare_swap_nbi(T, N) T : shmem_##N##_atomic_compare_swap_nbi,
#define RDSM_ASSOC_ctx_atomic_compare_swap_nbi(T, N) T : shmem_ctx_##N##_atomic_compare_swap_nbi,
#define RDSM_ASSOC_atomic_fetch_inc_nbi(T, N) T : shmem_##N##_atomic_fetch_inc_nbi,
#define RDSM_ASSOC_ctx_atomic_fetch_inc_nbi(T, N) T : shmem_ctx_##N##_atomic_fetch_inc_nbi,
#define RDSM_ASSOC_atomic_fetch_add_nbi(T, N) T : shmem_##N##_atomic_fetch_add_nbi,
#define RDSM_ASSOC_ctx_atomic_fetch_add_nbi(T, N) T : shmem_ctx_##N##_atomic_fetch_add_nbi,
#define RDSM_ASSOC_atomic_fetch_and(T, N) T : shmem_##N##_atomic_fetch_and,
#define RDSM_ASSOC_ctx_atomic_fetch_and(T, N) T : shmem_ctx_##N##_atomic_fetch_and,
#define RDSM_ASSOC_atomic_fetch_or(T, N) T : shmem_##N##_atomic_fetch_or,
#define RDSM_ASSOC_ctx_atomic_fetch_or(T, N) T : shmem_ctx_##N##_atomic_fetch_or,
#define RDSM_ASSOC_atomic_fetch_xor(T, N) T : shmem_##N##_atomic_fetch_xor,
#define RDSM_ASSOC_ctx_atomic_fetch_xor(T, N) T : shmem_ctx_##N##_atomic_fetch_xor,
#define RDSM_ASSOC_atomic_and(T, N) T : shmem_##N##_atomic_and,
#define RDSM_ASSOC_ctx_atomic_and(T, N) T : shmem_ctx_##N##_atomic_and,
#define RDSM_ASSOC_atomic_or(T, N) T : shmem_##N##_atomic_or,
#define RDSM_ASSOC_ctx_atomic_or(T, N) T : shmem_ctx_##N##_atomic_or,
#define RDSM_ASSOC_atomic_xor(T, N) T : shmem_##N##_atomic_xor,
#define RDSM_ASSOC_ctx_atomic_xor(T, N) T : shmem_ctx_##N##_atomic_xor,
#define RDSM_ASSOC_atomic_fetch_and_nbi(T, N) T : shmem_##N##_atomic_fetch_and_nbi,
#define RDSM_ASSOC_ctx_atomic_fetch_and_nbi(T, N) T : shmem_ctx_##N##_atomic_fetch_and_nbi,
#define RDSM_ASSOC_atomic_fetch_or_nbi(T, N) T : shmem_##N##_atomic_fetch_or_nbi,
#define RDSM_ASSOC_ctx_atomic_fetch_or_nbi(T, N) T : shmem_ctx_##N##_atomic_fetch_or_nbi,
#define RDSM_ASSOC_atomic_fetch_xor_nbi(T, N) T : shmem_##N##_atomic_fetch_xor_nbi,
#define RDSM_ASSOC_ctx_atomic_fetch_xor_nbi(T, N) T : shmem_ctx_##N##_atomic_fetch_xor_nbi,
#define RDSM_ASSOC_wait_until(T, N) T : shmem_##N##_wait_until,
#define RDSM_ASSOC_wait_until_all(T, N) T : shmem_##N##_wait_until_all,
#define RDSM_ASSOC_wait_until_any(T, N) T : shmem_##N##_wait_until_any,
#define RDSM_ASSOC_wait_until_some(T, N) T : shmem_##N##_wait_until_some,
#define RDSM_ASSOC_wait_until_all_vector(T, N) T : shmem_##N##_wait_until_all_vector,
#define RDSM_ASSOC_wait_until_any_vector(T, N) T : shmem_##N##_wait_until_any_vector,
#define RDSM_ASSOC_wait_until_some_vector(T, N) T : shmem_##N##_wait_until_some_vector,
#define RDSM_ASSOC_test(T, N) T : shmem_##N##_test,
#define RDSM_ASSOC_test_all(T, N) T : shmem_##N##_test_all,
#define RDSM_ASSOC_test_any(T, N) T : shmem_##N##_test_any,
#define RDSM_ASSOC_test_some(T, N) T : shmem_##N##_test_some,
#define RDSM_ASSOC_test_all_vector(T, N) T : shmem_##N##_test_all_vector,
#define RDSM_ASSOC_test_any_vector(T, N) T : shmem_##N##_test_any_vector,
#define RDSM_ASSOC_test_some_vector(T, N) T : shmem_##N##_test_some_vector,
#define RDSM_ASSOC_broadcast(T, N) T : shmem_##N##_broadcast,
#define RDSM_ASSOC_collect(T, N) T : shmem_##N##_collect,
#define RDSM_ASSOC_fcollect(T, N) T : shmem_##N##_fcollect,
#define RDSM_ASSOC_alltoall(T, N) T : shmem_##N##_alltoall,
#define RDSM_ASSOC_alltoalls(T, N) T : shmem_##N##_alltoalls,
#define RDSM_ASSOC_and_reduce(T, N) T : shmem_##N##_and_reduce,
#define RDSM_ASSOC_or_reduce(T, N) T : shmem_##N##_or_reduce,
#define RDSM_ASSOC_xor_reduce(T, N) T : shmem_##N##_xor_reduce,
#define RDSM_ASSOC_max_reduce(T, N) T : shmem_##N##_max_reduce,
#define RDSM_ASSOC_min_reduce(T, N) T : shmem_##N##_min_reduce,
#define RDSM_ASSOC_sum_reduce(T, N) T : shmem_##N##_sum_reduce,
#define RDSM_ASSOC_prod_reduce(T, N) T : shmem_##N##_prod_reduce,
#define RDSM_ASSOC_depr_fetch(T, N) T : shmem_##N##_fetch,
#define RDSM_ASSOC_depr_set(T, N) T : shmem_##N##_set,
#define RDSM_ASSOC_depr_swap(T, N) T : shmem_##N##_swap,
#define RDSM_ASSOC_depr_cswap(T, N) T : shmem_##N##_cswap,
#define RDSM_ASSOC_depr_finc(T, N) T : shmem_##N##_finc,
#define RDSM_ASSOC_depr_inc(T, N) T : shmem_##N##_inc,
#define RDSM_ASSOC_depr_fadd(T, N) T : shmem_##N##_fadd,
#define RDSM_ASSOC_depr_add(T, N) T : shmem_##N##_add,

/* Selects shmem_<TYPENAME>_<op> from the type the pointer `ptr` points to. */
#define RDSM_SELECT(table, op, ptr) _Generic(*(ptr), table(RDSM_ASSOC_##op) default: rdsm_generic_unsupported_type)

/* The first and second arguments of a call (a call has at least two). */
#define RDSM_ARG0_(a, ...) a
#define RDSM_ARG1_(a, b, ...) b
#define RDSM_ARG0(...) RDSM_ARG0_(__VA_ARGS__, ~)
#define RDSM_ARG1(...) RDSM_ARG1_(__VA_ARGS__, ~, ~)
/* Calls that may start with a context: the typed pointer is the second argument after a shmem_ctx_t, else the
 * first. Both branches stay valid expressions whatever the call, as _Generic requires. */
#define RDSM_CTX_PTR(...) \
  _Generic((RDSM_ARG0(__VA_ARGS__)), shmem_ctx_t: (RDSM_ARG1(__VA_ARGS__)), default: (RDSM_ARG0(__VA_ARGS__)))
/* shmem_ctx_<TYPENAME>_<op> when the first argument is a shmem_ctx_t, else shmem_<TYPENAME>_<op>. */
#define RDSM_SELECT_CTX(table, op, ...)                                                   \
  _Generic((RDSM_ARG0(__VA_ARGS__)), shmem_ctx_t: RDSM_SELECT(table, ctx_##op, RDSM_CTX_PTR(__VA_ARGS__)), \
           default: RDSM_SELECT(table, op, RDSM_CTX_PTR(__VA_ARGS__)))

/* RMA, signaling and AMO: shmem_<op>([ctx,] dest-or-fetch, ...). */
#define shmem_put(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, put, __VA_ARGS__)(__VA_ARGS__)
#define shmem_get(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, get, __VA_ARGS__)(__VA_ARGS__)
#define shmem_put_nbi(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, put_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_get_nbi(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, get_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_p(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, p, __VA_ARGS__)(__VA_ARGS__)
#define shmem_g(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, g, __VA_ARGS__)(__VA_ARGS__)
#define shmem_iput(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, iput, __VA_ARGS__)(__VA_ARGS__)
#define shmem_iget(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, iget, __VA_ARGS__)(__VA_ARGS__)
#define shmem_ibput(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, ibput, __VA_ARGS__)(__VA_ARGS__)
#define shmem_ibget(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, ibget, __VA_ARGS__)(__VA_ARGS__)
#define shmem_put_signal(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, put_signal, __VA_ARGS__)(__VA_ARGS__)
#define shmem_put_signal_nbi(...) RDSM_SELECT_CTX(RDSM_GENERIC_RMA_TYPES, put_signal_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch(...) RDSM_SELECT_CTX(RDSM_GENERIC_EXT_AMO_TYPES, atomic_fetch, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_set(...) RDSM_SELECT_CTX(RDSM_GENERIC_EXT_AMO_TYPES, atomic_set, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_swap(...) RDSM_SELECT_CTX(RDSM_GENERIC_EXT_AMO_TYPES, atomic_swap, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_EXT_AMO_TYPES, atomic_fetch_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_swap_nbi(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_EXT_AMO_TYPES, atomic_swap_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_compare_swap(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_AMO_TYPES, atomic_compare_swap, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_inc(...) RDSM_SELECT_CTX(RDSM_GENERIC_AMO_TYPES, atomic_fetch_inc, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_inc(...) RDSM_SELECT_CTX(RDSM_GENERIC_AMO_TYPES, atomic_inc, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_add(...) RDSM_SELECT_CTX(RDSM_GENERIC_AMO_TYPES, atomic_fetch_add, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_add(...) RDSM_SELECT_CTX(RDSM_GENERIC_AMO_TYPES, atomic_add, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_AMO_TYPES, atomic_compare_swap_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_AMO_TYPES, atomic_fetch_inc_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_AMO_TYPES, atomic_fetch_add_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_and(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_and, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_or(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_or, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_xor(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_xor, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_and(...) RDSM_SELECT_CTX(RDSM_GENERIC_BITWISE_TYPES, atomic_and, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_or(...) RDSM_SELECT_CTX(RDSM_GENERIC_BITWISE_TYPES, atomic_or, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_xor(...) RDSM_SELECT_CTX(RDSM_GENERIC_BITWISE_TYPES, atomic_xor, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_and_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_or_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) \
  RDSM_SELECT_CTX(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_xor_nbi, __VA_ARGS__)(__VA_ARGS__)

/* Point-to-point synchronization: shmem_<op>(ivar(s), ...). */
#define shmem_wait_until(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_all, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_any(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_any, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_some(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_some, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivar, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_all_vector, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivar, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_any_vector, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivar, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_some_vector, ivar)(ivar, __VA_ARGS__)
#define shmem_test(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test, ivar)(ivar, __VA_ARGS__)
#define shmem_test_all(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_all, ivar)(ivar, __VA_ARGS__)
#define shmem_test_any(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_any, ivar)(ivar, __VA_ARGS__)
#define shmem_test_some(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_some, ivar)(ivar, __VA_ARGS__)
#define shmem_test_all_vector(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_all_vector, ivar)(ivar, __VA_ARGS__)
#define shmem_test_any_vector(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_any_vector, ivar)(ivar, __VA_ARGS__)
#define shmem_test_some_vector(ivar, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_some_vector, ivar)(ivar, __VA_ARGS__)

/* Team collectives: shmem_<op>(team, dest, source, ...), selected by dest. */
#define shmem_broadcast(...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, broadcast, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_collect(...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, collect, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_fcollect(...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, fcollect, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_alltoall(...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, alltoall, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_alltoalls(...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, alltoalls, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)

/* Team reductions: shmem_<op>_reduce(team, dest, source, nreduce), selected by dest. */
#define shmem_and_reduce(...) \
  RDSM_SELECT(RDSM_GENERIC_REDUCE_BITWISE_TYPES, and_reduce, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_or_reduce(...) \
  RDSM_SELECT(RDSM_GENERIC_REDUCE_BITWISE_TYPES, or_reduce, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_xor_reduce(...) \
  RDSM_SELECT(RDSM_GENERIC_REDUCE_BITWISE_TYPES, xor_reduce, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_max_reduce(...) \
  RDSM_SELECT(RDSM_GENERIC_REDUCE_MINMAX_TYPES, max_reduce, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_min_reduce(...) \
  RDSM_SELECT(RDSM_GENERIC_REDUCE_MINMAX_TYPES, min_reduce, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_sum_reduce(...) \
  RDSM_SELECT(RDSM_GENERIC_REDUCE_ARITH_TYPES, sum_reduce, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_prod_reduce(...) \
  RDSM_SELECT(RDSM_GENERIC_REDUCE_ARITH_TYPES, prod_reduce, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)

/* 1.6 scans: shmem_sum_<in|ex>scan(team, dest, source, nelems), selected by dest. */
#define shmem_sum_inscan(...) \
  RDSM_SELECT(RDSM_GENERIC_REDUCE_ARITH_TYPES, sum_inscan, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_sum_exscan(...) \
  RDSM_SELECT(RDSM_GENERIC_REDUCE_ARITH_TYPES, sum_exscan, RDSM_ARG1(__VA_ARGS__))(__VA_ARGS__)

/* shmem_sync(team) (1.5, the team form: shmem_team_sync) or shmem_sync(PE_start, logPE_stride, PE_size, pSync)
 * (deprecated active-set form), told apart by the number of arguments. The inner shmem_sync is not expanded again:
 * it names the function. */
#define RDSM_FIFTH_ARG_(a, b, c, d, e, ...) e
#define shmem_sync(...) \
  RDSM_FIFTH_ARG_(__VA_ARGS__, shmem_sync, shmem_sync, shmem_sync, shmem_team_sync, ~)(__VA_ARGS__)

/* 1.6 shmem_signal_set / shmem_signal_add: (sig_addr, signal, pe) or (ctx, sig_addr, signal, pe), told apart by
 * the number of arguments. */
#define shmem_signal_set(...) \
  RDSM_FIFTH_ARG_(__VA_ARGS__, shmem_ctx_signal_set, shmem_signal_set, ~, ~)(__VA_ARGS__)
#define shmem_signal_add(...) \
  RDSM_FIFTH_ARG_(__VA_ARGS__, shmem_ctx_signal_add, shmem_signal_add, ~, ~)(__VA_ARGS__)

/* Deprecated (1.4) AMO names, still part of 1.5. */
#define shmem_fetch(dest, ...) RDSM_SELECT(RDSM_GENERIC_DEPR_EXT_AMO_TYPES, depr_fetch, dest)(dest, __VA_ARGS__)
#define shmem_set(dest, ...) RDSM_SELECT(RDSM_GENERIC_DEPR_EXT_AMO_TYPES, depr_set, dest)(dest, __VA_ARGS__)
#define shmem_swap(dest, ...) RDSM_SELECT(RDSM_GENERIC_DEPR_EXT_AMO_TYPES, depr_swap, dest)(dest, __VA_ARGS__)
#define shmem_cswap(dest, ...) RDSM_SELECT(RDSM_GENERIC_DEPR_AMO_TYPES, depr_cswap, dest)(dest, __VA_ARGS__)
#define shmem_finc(dest, ...) RDSM_SELECT(RDSM_GENERIC_DEPR_AMO_TYPES, depr_finc, dest)(dest, __VA_ARGS__)
#define shmem_inc(dest, ...) RDSM_SELECT(RDSM_GENERIC_DEPR_AMO_TYPES, depr_inc, dest)(dest, __VA_ARGS__)
#define shmem_fadd(dest, ...) RDSM_SELECT(RDSM_GENERIC_DEPR_AMO_TYPES, depr_fadd, dest)(dest, __VA_ARGS__)
#define shmem_add(dest, ...) RDSM_SELECT(RDSM_GENERIC_DEPR_AMO_TYPES, depr_add, dest)(dest, __VA_ARGS__)

/* Never defined: a generic call on a type the specification does not list fails to compile (too many arguments)
 * or to link, naming this. */
void rdsm_generic_unsupported_type(void);

#endif /* C11 */
#endif /* RDSM_SHMEM_GENERIC_H */
