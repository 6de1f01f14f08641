// rdsm::detail: maps an atomic type onto the fixed-width C AMO it is carried by (by size and signedness).
#pragma once

#include <shmem.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "rdsm/concepts.hpp"

namespace rdsm::detail {

// The fixed-width type whose shmem_<name>_atomic_* routines operate on T's bytes. long and long long
// (both 8 bytes here) share shmem_int64_*, so one call per width serves every alias.
template <class T>
struct amo_carrier {
  using type = std::conditional_t<
      std::is_floating_point_v<T>, T,
      std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>,
                         std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>>;
};
template <class T>
using amo_carrier_t = typename amo_carrier<T>::type;

// The carrier's view of a symmetric address: same bytes, same alignment (size checked by the concept).
template <class T>
inline amo_carrier_t<T>* carrier(T* p) {
  static_assert(sizeof(amo_carrier_t<T>) == sizeof(T));
  return reinterpret_cast<amo_carrier_t<T>*>(p);
}
template <class T>
inline const amo_carrier_t<T>* carrier(const T* p) {
  return reinterpret_cast<const amo_carrier_t<T>*>(p);
}

// One overload set per C routine family, on the carrier types only. Each forwards to the typed C call.
#define RDSM_DETAIL_EXT_AMO(T, N)                                                                     \
  inline T amo_fetch(const T* s, int pe) { return shmem_##N##_atomic_fetch(s, pe); }                  \
  inline void amo_set(T* d, T v, int pe) { shmem_##N##_atomic_set(d, v, pe); }                        \
  inline T amo_swap(T* d, T v, int pe) { return shmem_##N##_atomic_swap(d, v, pe); }                 \
  inline void amo_fetch_nbi(T* f, const T* s, int pe) { shmem_##N##_atomic_fetch_nbi(f, s, pe); }     \
  inline void amo_swap_nbi(T* f, T* d, T v, int pe) { shmem_##N##_atomic_swap_nbi(f, d, v, pe); }
#define RDSM_DETAIL_AMO(T, N)                                                                         \
  inline T amo_compare_swap(T* d, T c, T v, int pe) { return shmem_##N##_atomic_compare_swap(d, c, v, pe); } \
  inline T amo_fetch_inc(T* d, int pe) { return shmem_##N##_atomic_fetch_inc(d, pe); }               \
  inline void amo_inc(T* d, int pe) { shmem_##N##_atomic_inc(d, pe); }                                \
  inline T amo_fetch_add(T* d, T v, int pe) { return shmem_##N##_atomic_fetch_add(d, v, pe); }        \
  inline void amo_add(T* d, T v, int pe) { shmem_##N##_atomic_add(d, v, pe); }                        \
  inline T amo_fetch_and(T* d, T v, int pe) { return shmem_##N##_atomic_fetch_and(d, v, pe); }        \
  inline T amo_fetch_or(T* d, T v, int pe) { return shmem_##N##_atomic_fetch_or(d, v, pe); }          \
  inline T amo_fetch_xor(T* d, T v, int pe) { return shmem_##N##_atomic_fetch_xor(d, v, pe); }        \
  inline void amo_and(T* d, T v, int pe) { shmem_##N##_atomic_and(d, v, pe); }                        \
  inline void amo_or(T* d, T v, int pe) { shmem_##N##_atomic_or(d, v, pe); }                          \
  inline void amo_xor(T* d, T v, int pe) { shmem_##N##_atomic_xor(d, v, pe); }                        \
  inline void amo_compare_swap_nbi(T* f, T* d, T c, T v, int pe) {                                    \
    shmem_##N##_atomic_compare_swap_nbi(f, d, c, v, pe);                                              \
  }                                                                                                   \
  inline void amo_fetch_inc_nbi(T* f, T* d, int pe) { shmem_##N##_atomic_fetch_inc_nbi(f, d, pe); }   \
  inline void amo_fetch_add_nbi(T* f, T* d, T v, int pe) { shmem_##N##_atomic_fetch_add_nbi(f, d, v, pe); } \
  inline void amo_fetch_and_nbi(T* f, T* d, T v, int pe) { shmem_##N##_atomic_fetch_and_nbi(f, d, v, pe); } \
  inline void amo_fetch_or_nbi(T* f, T* d, T v, int pe) { shmem_##N##_atomic_fetch_or_nbi(f, d, v, pe); } \
  inline void amo_fetch_xor_nbi(T* f, T* d, T v, int pe) { shmem_##N##_atomic_fetch_xor_nbi(f, d, v, pe); }
#define RDSM_DETAIL_CARRIERS(X) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)
// The same on a communication context (rdsm::context).
#define RDSM_DETAIL_CTX_EXT_AMO(T, N)                                                                 \
  inline T ctx_amo_fetch(shmem_ctx_t c, const T* s, int pe) { return shmem_ctx_##N##_atomic_fetch(c, s, pe); } \
  inline void ctx_amo_set(shmem_ctx_t c, T* d, T v, int pe) { shmem_ctx_##N##_atomic_set(c, d, v, pe); }       \
  inline T ctx_amo_swap(shmem_ctx_t c, T* d, T v, int pe) { return shmem_ctx_##N##_atomic_swap(c, d, v, pe); }
#define RDSM_DETAIL_CTX_AMO(T, N)                                                                     \
  inline T ctx_amo_compare_swap(shmem_ctx_t c, T* d, T x, T v, int pe) {                              \
    return shmem_ctx_##N##_atomic_compare_swap(c, d, x, v, pe);                                       \
  }                                                                                                   \
  inline T ctx_amo_fetch_inc(shmem_ctx_t c, T* d, int pe) { return shmem_ctx_##N##_atomic_fetch_inc(c, d, pe); } \
  inline void ctx_amo_inc(shmem_ctx_t c, T* d, int pe) { shmem_ctx_##N##_atomic_inc(c, d, pe); }      \
  inline T ctx_amo_fetch_add(shmem_ctx_t c, T* d, T v, int pe) {                                      \
    return shmem_ctx_##N##_atomic_fetch_add(c, d, v, pe);                                             \
  }                                                                                                   \
  inline void ctx_amo_add(shmem_ctx_t c, T* d, T v, int pe) { shmem_ctx_##N##_atomic_add(c, d, v, pe); }
RDSM_DETAIL_CARRIERS(RDSM_DETAIL_CTX_EXT_AMO)
RDSM_DETAIL_CTX_EXT_AMO(float, float)
RDSM_DETAIL_CTX_EXT_AMO(double, double)
RDSM_DETAIL_CARRIERS(RDSM_DETAIL_CTX_AMO)
#undef RDSM_DETAIL_CTX_EXT_AMO
#undef RDSM_DETAIL_CTX_AMO
RDSM_DETAIL_CARRIERS(RDSM_DETAIL_EXT_AMO)
RDSM_DETAIL_EXT_AMO(float, float)
RDSM_DETAIL_EXT_AMO(double, double)
RDSM_DETAIL_CARRIERS(RDSM_DETAIL_AMO)
#undef RDSM_DETAIL_EXT_AMO
#undef RDSM_DETAIL_AMO

// Point-to-point waits: 2-byte integers use short/ushort, the rest the fixed-width carriers.
// The multi-variable forms take the C API's arguments as they are (status may be null, values a pointer).
#define RDSM_DETAIL_WAIT(T, N)                                                                        \
  inline void wait_until_c(T* ivar, int cmp, T v) { shmem_##N##_wait_until(ivar, cmp, v); }           \
  inline int test_c(T* ivar, int cmp, T v) { return shmem_##N##_test(ivar, cmp, v); }                 \
  inline void wait_all_c(T* iv, std::size_t n, const int* st, int cmp, T v) {                              \
    shmem_##N##_wait_until_all(iv, n, st, cmp, v);                                                    \
  }                                                                                                   \
  inline void wait_all_c(T* iv, std::size_t n, const int* st, int cmp, const T* vs) {                      \
    shmem_##N##_wait_until_all_vector(iv, n, st, cmp, vs);                                            \
  }                                                                                                   \
  inline std::size_t wait_any_c(T* iv, std::size_t n, const int* st, int cmp, T v) {                            \
    return shmem_##N##_wait_until_any(iv, n, st, cmp, v);                                             \
  }                                                                                                   \
  inline std::size_t wait_any_c(T* iv, std::size_t n, const int* st, int cmp, const T* vs) {                    \
    return shmem_##N##_wait_until_any_vector(iv, n, st, cmp, vs);                                     \
  }                                                                                                   \
  inline std::size_t wait_some_c(T* iv, std::size_t n, std::size_t* ix, const int* st, int cmp, T v) {               \
    return shmem_##N##_wait_until_some(iv, n, ix, st, cmp, v);                                        \
  }                                                                                                   \
  inline std::size_t wait_some_c(T* iv, std::size_t n, std::size_t* ix, const int* st, int cmp, const T* vs) {       \
    return shmem_##N##_wait_until_some_vector(iv, n, ix, st, cmp, vs);                                \
  }                                                                                                   \
  inline int test_all_c(T* iv, std::size_t n, const int* st, int cmp, T v) {                               \
    return shmem_##N##_test_all(iv, n, st, cmp, v);                                                   \
  }                                                                                                   \
  inline int test_all_c(T* iv, std::size_t n, const int* st, int cmp, const T* vs) {                       \
    return shmem_##N##_test_all_vector(iv, n, st, cmp, vs);                                           \
  }                                                                                                   \
  inline std::size_t test_any_c(T* iv, std::size_t n, const int* st, int cmp, T v) {                            \
    return shmem_##N##_test_any(iv, n, st, cmp, v);                                                   \
  }                                                                                                   \
  inline std::size_t test_any_c(T* iv, std::size_t n, const int* st, int cmp, const T* vs) {                    \
    return shmem_##N##_test_any_vector(iv, n, st, cmp, vs);                                           \
  }                                                                                                   \
  inline std::size_t test_some_c(T* iv, std::size_t n, std::size_t* ix, const int* st, int cmp, T v) {               \
    return shmem_##N##_test_some(iv, n, ix, st, cmp, v);                                              \
  }                                                                                                   \
  inline std::size_t test_some_c(T* iv, std::size_t n, std::size_t* ix, const int* st, int cmp, const T* vs) {       \
    return shmem_##N##_test_some_vector(iv, n, ix, st, cmp, vs);                                      \
  }
RDSM_DETAIL_CARRIERS(RDSM_DETAIL_WAIT)
RDSM_DETAIL_WAIT(short, short)
RDSM_DETAIL_WAIT(unsigned short, ushort)
#undef RDSM_DETAIL_WAIT
#undef RDSM_DETAIL_CARRIERS

template <class T>
struct wait_carrier {
  using type = std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, short, unsigned short>,
                                  amo_carrier_t<T>>;
};

}  // namespace rdsm::detail
