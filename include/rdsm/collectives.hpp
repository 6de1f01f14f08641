// rdsm C++ API: team collectives over std::span (broadcast, collect, fcollect, alltoall, reduce).
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <shmem.h>
#include <shmemx.h>

#include <cstddef>
#include <span>
#include <type_traits>

#include "rdsm/concepts.hpp"
#include "rdsm/detail/misuse.hpp"
#include "rdsm/detail/reduce.hpp"
#include "rdsm/team.hpp"

// Rules shared by every collective here (OpenSHMEM 1.5 §9.9):
// - Collective over `t`: every member calls it, in the same order as the team's other collectives, with
//   the same element counts. Calling on an invalid team (not a member) ends the job with one line.
// - `dest` and `src` must be symmetric (symmetric_array<T>::span(), or spans into shmem_malloc'd or
//   global memory) and must not overlap. dest must be ready to be overwritten on every member when the
//   first member enters (synchronize first if another PE may still read it).
// - Completion: when a call returns on a PE, its dest holds the result and its src may be reused.
// - Errors: data-path calls do not throw. A dest too small for the result ends the job through
//   shmem_global_exit after printing one line naming the call and both sizes.
// - Thread safety: one collective per team at a time; otherwise as the C API at the runtime's level.

namespace rdsm {

/// Reduction operators for rdsm::reduce. The bitwise ones are spelled bit_and/bit_or/bit_xor because
/// `and`, `or` and `xor` are C++ keywords.
namespace op {
struct sum {};      ///< shmem_*_sum_reduce: integers, floating point, std::complex<float/double>
struct prod {};     ///< shmem_*_prod_reduce: as sum
struct min {};      ///< shmem_*_min_reduce: integers and floating point
struct max {};      ///< shmem_*_max_reduce: integers and floating point
struct bit_and {};  ///< shmem_*_and_reduce: unsigned and fixed-width integers
struct bit_or {};   ///< shmem_*_or_reduce: as bit_and
struct bit_xor {};  ///< shmem_*_xor_reduce: as bit_and
}  // namespace op

/// True when OpenSHMEM has a reduction routine for type T and operator Op (the specification's type
/// tables per operator family).
template <class T, class Op>
concept reducible = detail::reduce_supported<Op, std::remove_cv_t<T>>;

namespace detail {
inline void check_team(const char* call, const team& t) {
  if (!t.valid()) misuse("%s: called on an invalid team (this PE is not a member)", call);
}
inline void check_dest(const char* call, std::size_t have, std::size_t need) {
  if (have < need) misuse("%s: dest holds %zu elements, the result needs %zu", call, have, need);
}
inline void check_rc(const char* call, int rc) {
  if (rc != 0) misuse("%s: the C collective failed with %d", call, rc);
}
}  // namespace detail

/// Copies `src` of member `root` (a rank in `t`) into `dest` of every member, root included.
/// Every member passes a src of the same size; dest.size() >= src.size().
template <remote_copyable T>
  requires(!std::is_const_v<T>)
void broadcast(const team& t, std::span<T> dest, std::span<const std::type_identity_t<T>> src, int root) noexcept {
  detail::check_team("rdsm::broadcast", t);
  detail::check_dest("rdsm::broadcast", dest.size(), src.size());
  detail::check_rc("rdsm::broadcast", shmem_broadcastmem(t.handle(), dest.data(), src.data(), src.size_bytes(), root));
}

/// Concatenates every member's `src` (all the same size) into `dest` on every member, in team-rank
/// order: dest[r * src.size() + i] = src[i] of member r. dest.size() >= src.size() * t.size().
template <remote_copyable T>
  requires(!std::is_const_v<T>)
void fcollect(const team& t, std::span<T> dest, std::span<const std::type_identity_t<T>> src) noexcept {
  detail::check_team("rdsm::fcollect", t);
  detail::check_dest("rdsm::fcollect", dest.size(), src.size() * static_cast<std::size_t>(t.size()));
  detail::check_rc("rdsm::fcollect", shmem_fcollectmem(t.handle(), dest.data(), src.data(), src.size_bytes()));
}

/// Concatenates every member's `src` (sizes may differ) into `dest` on every member, in team-rank
/// order. dest must hold the sum of all members' sizes: a member whose block would end past dest ends the
/// job with one line (shmemx_collectmem_bounded), before its data moves.
template <remote_copyable T>
  requires(!std::is_const_v<T>)
void collect(const team& t, std::span<T> dest, std::span<const std::type_identity_t<T>> src) noexcept {
  detail::check_team("rdsm::collect", t);
  detail::check_dest("rdsm::collect", dest.size(), src.size());
  detail::check_rc("rdsm::collect", shmemx_collectmem_bounded(t.handle(), dest.data(), dest.size_bytes(), src.data(),
                                                              src.size_bytes()));
}

/// Personalized exchange: `src` holds t.size() blocks of src.size() / t.size() elements; block j goes
/// to member j, where it lands as block r (r = this PE's team rank) of dest. src.size() must be a
/// multiple of t.size(); dest.size() >= src.size().
template <remote_copyable T>
  requires(!std::is_const_v<T>)
void alltoall(const team& t, std::span<T> dest, std::span<const std::type_identity_t<T>> src) noexcept {
  detail::check_team("rdsm::alltoall", t);
  auto n = static_cast<std::size_t>(t.size());
  if (src.size() % n != 0)
    detail::misuse("rdsm::alltoall: src holds %zu elements, not a multiple of the team size %zu", src.size(), n);
  detail::check_dest("rdsm::alltoall", dest.size(), src.size());
  detail::check_rc("rdsm::alltoall",
                   shmem_alltoallmem(t.handle(), dest.data(), src.data(), src.size_bytes() / n));
}

/// Element-wise reduction: dest[i] = src[i] of member 0 `Op` src[i] of member 1 `Op` ..., on every
/// member (shmem_<TYPE>_<op>_reduce). dest.size() >= src.size(). T and Op must be reducible (e.g.
/// op::sum over int, double or std::complex<double>; op::bit_xor over unsigned or fixed-width integers).
template <class T, class Op>
  requires reducible<T, Op> && (!std::is_const_v<T>)
void reduce(const team& t, std::span<T> dest, std::span<const std::type_identity_t<T>> src, Op) noexcept {
  detail::check_team("rdsm::reduce", t);
  detail::check_dest("rdsm::reduce", dest.size(), src.size());
  detail::check_rc("rdsm::reduce", detail::reduce_c(static_cast<Op*>(nullptr), t.handle(), dest.data(), src.data(),
                                                    src.size()));
}

}  // namespace rdsm
