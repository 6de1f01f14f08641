/* C11 type-generic names of the typed OpenSHMEM routines (shmem_put, shmem_atomic_fetch_add, ...). */
#ifndef RDSM_SHMEM_GENERIC_H
#define RDSM_SHMEM_GENERIC_H

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* Generic selections list each C type once (int64_t, size_t, ... are aliases of these). */
#define RDSM_GENERIC_RMA_TYPES(X)                                                                  \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char) X(signed char, schar)  \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)          \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                          \
  X(unsigned long long, ulonglong)
#define RDSM_GENERIC_AMO_TYPES(X)                                                                  \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong)   \
  X(unsigned long long, ulonglong)
#define RDSM_GENERIC_EXT_AMO_TYPES(X) X(float, float) X(double, double) RDSM_GENERIC_AMO_TYPES(X)
#define RDSM_GENERIC_BITWISE_TYPES(X) X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define RDSM_GENERIC_SYNC_TYPES(X)                                                                 \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)        \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)

/* One association "T: shmem_N_<op>," per row; the controlling expression is an lvalue of the pointee. */
#define RDSM_ASSOC_put(T, N) T : shmem_##N##_put,
#define RDSM_ASSOC_get(T, N) T : shmem_##N##_get,
#define RDSM_ASSOC_put_nbi(T, N) T : shmem_##N##_put_nbi,
#define RDSM_ASSOC_get_nbi(T, N) T : shmem_##N##_get_nbi,
#define RDSM_ASSOC_p(T, N) T : shmem_##N##_p,
#define RDSM_ASSOC_g(T, N) T : shmem_##N##_g,
#define RDSM_ASSOC_iput(T, N) T : shmem_##N##_iput,
#define RDSM_ASSOC_iget(T, N) T : shmem_##N##_iget,
#define RDSM_ASSOC_put_signal(T, N) T : shmem_##N##_put_signal,
#define RDSM_ASSOC_put_signal_nbi(T, N) T : shmem_##N##_put_signal_nbi,
#define RDSM_ASSOC_atomic_fetch(T, N) T : shmem_##N##_atomic_fetch,
#define RDSM_ASSOC_atomic_set(T, N) T : shmem_##N##_atomic_set,
#define RDSM_ASSOC_atomic_swap(T, N) T : shmem_##N##_atomic_swap,
#define RDSM_ASSOC_atomic_fetch_nbi(T, N) T : shmem_##N##_atomic_fetch_nbi,
#define RDSM_ASSOC_atomic_swap_nbi(T, N) T : shmem_##N##_atomic_swap_nbi,
#define RDSM_ASSOC_atomic_compare_swap(T, N) T : shmem_##N##_atomic_compare_swap,
#define RDSM_ASSOC_atomic_fetch_inc(T, N) T : shmem_##N##_atomic_fetch_inc,
#define RDSM_ASSOC_atomic_inc(T, N) T : shmem_##N##_atomic_inc,
#define RDSM_ASSOC_atomic_fetch_add(T, N) T : shmem_##N##_atomic_fetch_add,
#define RDSM_ASSOC_atomic_add(T, N) T : shmem_##N##_atomic_add,
#define RDSM_ASSOC_atomic_compare_swap_nbi(T, N) T : shmem_##N##_atomic_compare_swap_nbi,
#define RDSM_ASSOC_atomic_fetch_inc_nbi(T, N) T : shmem_##N##_atomic_fetch_inc_nbi,
#define RDSM_ASSOC_atomic_fetch_add_nbi(T, N) T : shmem_##N##_atomic_fetch_add_nbi,
#define RDSM_ASSOC_atomic_fetch_and(T, N) T : shmem_##N##_atomic_fetch_and,
#define RDSM_ASSOC_atomic_fetch_or(T, N) T : shmem_##N##_atomic_fetch_or,
#define RDSM_ASSOC_atomic_fetch_xor(T, N) T : shmem_##N##_atomic_fetch_xor,
#define RDSM_ASSOC_atomic_and(T, N) T : shmem_##N##_atomic_and,
#define RDSM_ASSOC_atomic_or(T, N) T : shmem_##N##_atomic_or,
#define RDSM_ASSOC_atomic_xor(T, N) T : shmem_##N##_atomic_xor,
#define RDSM_ASSOC_atomic_fetch_and_nbi(T, N) T : shmem_##N##_atomic_fetch_and_nbi,
#define RDSM_ASSOC_atomic_fetch_or_nbi(T, N) T : shmem_##N##_atomic_fetch_or_nbi,
#define RDSM_ASSOC_atomic_fetch_xor_nbi(T, N) T : shmem_##N##_atomic_fetch_xor_nbi,
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

/* Selects shmem_<TYPENAME>_<op> from the type the pointer `ptr` points to. */
#define RDSM_SELECT(table, op, ptr) _Generic(*(ptr), table(RDSM_ASSOC_##op) default: rdsm_generic_unsupported_type)

#define shmem_put(dest, ...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, put, dest)(dest, __VA_ARGS__)
#define shmem_get(dest, ...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, get, dest)(dest, __VA_ARGS__)
#define shmem_put_nbi(dest, ...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, put_nbi, dest)(dest, __VA_ARGS__)
#define shmem_get_nbi(dest, ...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, get_nbi, dest)(dest, __VA_ARGS__)
#define shmem_p(dest, ...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, p, dest)(dest, __VA_ARGS__)
#define shmem_g(source, ...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, g, source)(source, __VA_ARGS__)
#define shmem_iput(dest, ...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, iput, dest)(dest, __VA_ARGS__)
#define shmem_iget(dest, ...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, iget, dest)(dest, __VA_ARGS__)
#define shmem_put_signal(dest, ...) RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, put_signal, dest)(dest, __VA_ARGS__)
#define shmem_put_signal_nbi(dest, ...) \
  RDSM_SELECT(RDSM_GENERIC_RMA_TYPES, put_signal_nbi, dest)(dest, __VA_ARGS__)

#define shmem_atomic_fetch(source, ...) \
  RDSM_SELECT(RDSM_GENERIC_EXT_AMO_TYPES, atomic_fetch, source)(source, __VA_ARGS__)
#define shmem_atomic_set(dest, ...) RDSM_SELECT(RDSM_GENERIC_EXT_AMO_TYPES, atomic_set, dest)(dest, __VA_ARGS__)
#define shmem_atomic_swap(dest, ...) RDSM_SELECT(RDSM_GENERIC_EXT_AMO_TYPES, atomic_swap, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(fetch, ...) \
  RDSM_SELECT(RDSM_GENERIC_EXT_AMO_TYPES, atomic_fetch_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_swap_nbi(fetch, ...) \
  RDSM_SELECT(RDSM_GENERIC_EXT_AMO_TYPES, atomic_swap_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_compare_swap(dest, ...) \
  RDSM_SELECT(RDSM_GENERIC_AMO_TYPES, atomic_compare_swap, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_inc(dest, ...) \
  RDSM_SELECT(RDSM_GENERIC_AMO_TYPES, atomic_fetch_inc, dest)(dest, __VA_ARGS__)
#define shmem_atomic_inc(dest, ...) RDSM_SELECT(RDSM_GENERIC_AMO_TYPES, atomic_inc, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_add(dest, ...) \
  RDSM_SELECT(RDSM_GENERIC_AMO_TYPES, atomic_fetch_add, dest)(dest, __VA_ARGS__)
#define shmem_atomic_add(dest, ...) RDSM_SELECT(RDSM_GENERIC_AMO_TYPES, atomic_add, dest)(dest, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(fetch, ...) \
  RDSM_SELECT(RDSM_GENERIC_AMO_TYPES, atomic_compare_swap_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(fetch, ...) \
  RDSM_SELECT(RDSM_GENERIC_AMO_TYPES, atomic_fetch_inc_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(fetch, ...) \
  RDSM_SELECT(RDSM_GENERIC_AMO_TYPES, atomic_fetch_add_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_and(dest, ...) \
  RDSM_SELECT(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_and, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_or(dest, ...) \
  RDSM_SELECT(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_or, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_xor(dest, ...) \
  RDSM_SELECT(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_xor, dest)(dest, __VA_ARGS__)
#define shmem_atomic_and(dest, ...) RDSM_SELECT(RDSM_GENERIC_BITWISE_TYPES, atomic_and, dest)(dest, __VA_ARGS__)
#define shmem_atomic_or(dest, ...) RDSM_SELECT(RDSM_GENERIC_BITWISE_TYPES, atomic_or, dest)(dest, __VA_ARGS__)
#define shmem_atomic_xor(dest, ...) RDSM_SELECT(RDSM_GENERIC_BITWISE_TYPES, atomic_xor, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(fetch, ...) \
  RDSM_SELECT(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_and_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(fetch, ...) \
  RDSM_SELECT(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_or_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(fetch, ...) \
  RDSM_SELECT(RDSM_GENERIC_BITWISE_TYPES, atomic_fetch_xor_nbi, fetch)(fetch, __VA_ARGS__)

#define shmem_wait_until(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_all, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_any, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_some, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, wait_until_some_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test, ivar)(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_all, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_any, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_some, ivars)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...) \
  RDSM_SELECT(RDSM_GENERIC_SYNC_TYPES, test_some_vector, ivars)(ivars, __VA_ARGS__)

/* Never defined: a generic call on a type the specification does not list fails to link, naming this. */
void rdsm_generic_unsupported_type(void);

#endif /* C11 */
#endif /* RDSM_SHMEM_GENERIC_H */
