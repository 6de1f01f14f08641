// rdsm::detail: picks shmem_<TYPENAME>_<OP>_reduce for a C++ type from the C API's own type tables.
#pragma once

#include <shmem.h>

#include <complex>
#include <cstddef>
#include <type_traits>

namespace rdsm::op {
struct sum;
struct prod;
struct min;
struct max;
struct bit_and;
struct bit_or;
struct bit_xor;
}  // namespace rdsm::op

namespace rdsm::detail {

template <class>
inline constexpr bool always_false = false;

// The tables list aliases (int32_t and int, size_t and unsigned long) as separate rows, which would be
// duplicate overloads in C++; an if-constexpr chain takes the first matching row and ignores the rest.
#define RDSM_DETAIL_IS(T, N) std::is_same_v<U, T> ||
template <class U>
inline constexpr bool reduce_arith_type = RDSM_SHMEM_REDUCE_ARITH_TYPES(RDSM_DETAIL_IS) std::is_same_v<U, std::complex<float>> ||
                                          std::is_same_v<U, std::complex<double>>;
template <class U>
inline constexpr bool reduce_minmax_type = RDSM_SHMEM_REDUCE_MINMAX_TYPES(RDSM_DETAIL_IS) false;
template <class U>
inline constexpr bool reduce_bitwise_type = RDSM_SHMEM_REDUCE_BITWISE_TYPES(RDSM_DETAIL_IS) false;
#undef RDSM_DETAIL_IS

// Which type table an operator draws on.
template <class Op, class U>
inline constexpr bool reduce_supported =
    ((std::is_same_v<Op, op::sum> || std::is_same_v<Op, op::prod>) && reduce_arith_type<U>) ||
    ((std::is_same_v<Op, op::min> || std::is_same_v<Op, op::max>) && reduce_minmax_type<U>) ||
    ((std::is_same_v<Op, op::bit_and> || std::is_same_v<Op, op::bit_or> || std::is_same_v<Op, op::bit_xor>) &&
     reduce_bitwise_type<U>);

// One dispatcher per operator: returns the C routine's status.
#define RDSM_DETAIL_CALL(T, N, OP) \
  if constexpr (std::is_same_v<U, T>) return shmem_##N##_##OP##_reduce(team, dest, src, n); else
#define RDSM_DETAIL_DISPATCH(OP, TABLE, ROW)                                                             \
  template <class U>                                                                                     \
  int reduce_c(op::OP*, shmem_team_t team, U* dest, const U* src, std::size_t n) {                       \
    if constexpr (std::is_same_v<U, std::complex<double>>)                                               \
      return reduce_c(static_cast<op::OP*>(nullptr), team, reinterpret_cast<rdsm_shmem_complexd*>(dest), \
                      reinterpret_cast<const rdsm_shmem_complexd*>(src), n);                             \
    else if constexpr (std::is_same_v<U, std::complex<float>>)                                           \
      return reduce_c(static_cast<op::OP*>(nullptr), team, reinterpret_cast<rdsm_shmem_complexf*>(dest), \
                      reinterpret_cast<const rdsm_shmem_complexf*>(src), n);                             \
    else TABLE(ROW) {                                                                                                                                                     \
      static_assert(always_false<U>, "rdsm::reduce: no shmem_*_" #OP "_reduce for this type");           \
      return -1;                                                                                         \
    }                                                                                                    \
  }
// The bitwise suffixes are spelled inside identifiers: `and`, `or`, `xor` are C++ operator names.
#define RDSM_DETAIL_ROW_SUM(T, N) RDSM_DETAIL_CALL(T, N, sum)
#define RDSM_DETAIL_ROW_PROD(T, N) RDSM_DETAIL_CALL(T, N, prod)
#define RDSM_DETAIL_ROW_MIN(T, N) RDSM_DETAIL_CALL(T, N, min)
#define RDSM_DETAIL_ROW_MAX(T, N) RDSM_DETAIL_CALL(T, N, max)
#define RDSM_DETAIL_ROW_AND(T, N) \
  if constexpr (std::is_same_v<U, T>) return shmem_##N##_and_reduce(team, dest, src, n); else
#define RDSM_DETAIL_ROW_OR(T, N) \
  if constexpr (std::is_same_v<U, T>) return shmem_##N##_or_reduce(team, dest, src, n); else
#define RDSM_DETAIL_ROW_XOR(T, N) \
  if constexpr (std::is_same_v<U, T>) return shmem_##N##_xor_reduce(team, dest, src, n); else
RDSM_DETAIL_DISPATCH(sum, RDSM_SHMEM_REDUCE_ARITH_TYPES, RDSM_DETAIL_ROW_SUM)
RDSM_DETAIL_DISPATCH(prod, RDSM_SHMEM_REDUCE_ARITH_TYPES, RDSM_DETAIL_ROW_PROD)
RDSM_DETAIL_DISPATCH(min, RDSM_SHMEM_REDUCE_MINMAX_TYPES, RDSM_DETAIL_ROW_MIN)
RDSM_DETAIL_DISPATCH(max, RDSM_SHMEM_REDUCE_MINMAX_TYPES, RDSM_DETAIL_ROW_MAX)
RDSM_DETAIL_DISPATCH(bit_and, RDSM_SHMEM_REDUCE_BITWISE_TYPES, RDSM_DETAIL_ROW_AND)
RDSM_DETAIL_DISPATCH(bit_or, RDSM_SHMEM_REDUCE_BITWISE_TYPES, RDSM_DETAIL_ROW_OR)
RDSM_DETAIL_DISPATCH(bit_xor, RDSM_SHMEM_REDUCE_BITWISE_TYPES, RDSM_DETAIL_ROW_XOR)
#undef RDSM_DETAIL_DISPATCH
#undef RDSM_DETAIL_CALL
#undef RDSM_DETAIL_ROW_SUM
#undef RDSM_DETAIL_ROW_PROD
#undef RDSM_DETAIL_ROW_MIN
#undef RDSM_DETAIL_ROW_MAX
#undef RDSM_DETAIL_ROW_AND
#undef RDSM_DETAIL_ROW_OR
#undef RDSM_DETAIL_ROW_XOR

}  // namespace rdsm::detail
