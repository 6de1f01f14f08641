// rdsm C++ API: typed remote atomics on global_ptr<T>, carried by the C API's fixed-width AMOs.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <type_traits>

#include "rdsm/concepts.hpp"
#include "rdsm/detail/amo.hpp"
#include "rdsm/future.hpp"
#include "rdsm/global_ptr.hpp"

// Every call here is one OpenSHMEM atomic memory operation on the object `target` points at, chosen by
// sizeof(T) and signedness (int -> shmem_int32_atomic_*, unsigned long -> shmem_uint64_atomic_*, double
// -> shmem_double_atomic_*). Atomicity: with respect to every other rdsm AMO on the same object, not to
// plain loads/stores or puts to it. Completion: fetching forms (and compare_swap, swap, fetch) return
// the old value, so the operation has been performed when they return; non-fetching forms (set, add,
// inc, atomic_and/or/xor) return at once and are complete at the next quiet()/barrier(), ordered like
// puts by fence(); so are the non-blocking fetching forms (*_nbi), whose old value lands in a result
// variable at the future's wait(). Thread safety: as the C API at the runtime's thread level. Never throw; a target
// that is not symmetric or not aligned to sizeof(T) ends the job with one line naming the C call.
//
// T is constrained by concepts (concepts.hpp): atomic_value (4/8-byte integers, float, double) for
// fetch/set/swap; atomic_integral (4/8-byte integers) for the arithmetic and bitwise operations.

namespace rdsm {

/// Atomically reads the target. Returns its value.
template <atomic_value T>
T fetch(global_ptr<T> target) noexcept {
  return static_cast<T>(detail::amo_fetch(detail::carrier(target.raw()), target.where()));
}
/// Atomically reads the target (a global_ptr<const T> is accepted for reading).
template <atomic_value T>
T fetch(global_ptr<const T> target) noexcept {
  return static_cast<T>(detail::amo_fetch(detail::carrier(target.raw()), target.where()));
}

/// Atomically writes `value` into the target. Non-fetching: complete at the next quiet()/barrier().
template <atomic_value T>
void set(global_ptr<T> target, std::type_identity_t<T> value) noexcept {
  using C = detail::amo_carrier_t<T>;
  detail::amo_set(detail::carrier(target.raw()), static_cast<C>(value), target.where());
}

/// Atomically replaces the target with `value`; returns the previous value.
template <atomic_value T>
T swap(global_ptr<T> target, std::type_identity_t<T> value) noexcept {
  using C = detail::amo_carrier_t<T>;
  return static_cast<T>(detail::amo_swap(detail::carrier(target.raw()), static_cast<C>(value), target.where()));
}

/// Atomically: if the target equals `expected`, replaces it with `desired`. Returns the previous value
/// (equal to `expected` exactly when the swap happened).
template <atomic_integral T>
T compare_swap(global_ptr<T> target, std::type_identity_t<T> expected, std::type_identity_t<T> desired) noexcept {
  using C = detail::amo_carrier_t<T>;
  return static_cast<T>(detail::amo_compare_swap(detail::carrier(target.raw()), static_cast<C>(expected),
                                                 static_cast<C>(desired), target.where()));
}

/// Atomically adds `value` to the target; returns the previous value.
template <atomic_integral T>
T fetch_add(global_ptr<T> target, std::type_identity_t<T> value) noexcept {
  using C = detail::amo_carrier_t<T>;
  return static_cast<T>(detail::amo_fetch_add(detail::carrier(target.raw()), static_cast<C>(value), target.where()));
}

/// Atomically adds `value` to the target. Non-fetching: complete at the next quiet()/barrier().
template <atomic_integral T>
void add(global_ptr<T> target, std::type_identity_t<T> value) noexcept {
  using C = detail::amo_carrier_t<T>;
  detail::amo_add(detail::carrier(target.raw()), static_cast<C>(value), target.where());
}

/// Atomically increments the target; returns the previous value.
template <atomic_integral T>
T fetch_inc(global_ptr<T> target) noexcept {
  return static_cast<T>(detail::amo_fetch_inc(detail::carrier(target.raw()), target.where()));
}

/// Atomically increments the target. Non-fetching: complete at the next quiet()/barrier().
template <atomic_integral T>
void inc(global_ptr<T> target) noexcept {
  detail::amo_inc(detail::carrier(target.raw()), target.where());
}

/// Atomically ANDs `mask` into the target; returns the previous value.
template <atomic_integral T>
T fetch_and(global_ptr<T> target, std::type_identity_t<T> mask) noexcept {
  using C = detail::amo_carrier_t<T>;
  return static_cast<T>(detail::amo_fetch_and(detail::carrier(target.raw()), static_cast<C>(mask), target.where()));
}

/// Atomically ORs `mask` into the target; returns the previous value.
template <atomic_integral T>
T fetch_or(global_ptr<T> target, std::type_identity_t<T> mask) noexcept {
  using C = detail::amo_carrier_t<T>;
  return static_cast<T>(detail::amo_fetch_or(detail::carrier(target.raw()), static_cast<C>(mask), target.where()));
}

/// Atomically XORs `mask` into the target; returns the previous value.
template <atomic_integral T>
T fetch_xor(global_ptr<T> target, std::type_identity_t<T> mask) noexcept {
  using C = detail::amo_carrier_t<T>;
  return static_cast<T>(detail::amo_fetch_xor(detail::carrier(target.raw()), static_cast<C>(mask), target.where()));
}

/// Atomically ANDs `mask` into the target (named atomic_and: `and` is a C++ keyword). Non-fetching.
template <atomic_integral T>
void atomic_and(global_ptr<T> target, std::type_identity_t<T> mask) noexcept {
  using C = detail::amo_carrier_t<T>;
  detail::amo_and(detail::carrier(target.raw()), static_cast<C>(mask), target.where());
}

/// Atomically ORs `mask` into the target. Non-fetching.
template <atomic_integral T>
void atomic_or(global_ptr<T> target, std::type_identity_t<T> mask) noexcept {
  using C = detail::amo_carrier_t<T>;
  detail::amo_or(detail::carrier(target.raw()), static_cast<C>(mask), target.where());
}

/// Atomically XORs `mask` into the target. Non-fetching.
template <atomic_integral T>
void atomic_xor(global_ptr<T> target, std::type_identity_t<T> mask) noexcept {
  using C = detail::amo_carrier_t<T>;
  detail::amo_xor(detail::carrier(target.raw()), static_cast<C>(mask), target.where());
}

// ---- non-blocking fetching forms (OpenSHMEM 1.5 shmem_TYPE_atomic_*_nbi) ----
// Each returns at once; `result` receives the previous value when the returned future's wait() (or another
// quiet, or a barrier) completes the operation, and must stay alive and unread until then.

/// Non-blocking fetch: `result` receives the target's value (a global_ptr<const T> is accepted).
template <atomic_value T>
[[nodiscard]] future<> fetch_nbi(global_ptr<const T> target, T& result) noexcept {
  detail::amo_fetch_nbi(detail::carrier(&result), detail::carrier(target.raw()), target.where());
  return future<>(SHMEM_CTX_DEFAULT);
}
template <atomic_value T>
[[nodiscard]] future<> fetch_nbi(global_ptr<T> target, T& result) noexcept {
  return fetch_nbi(global_ptr<const T>(target), result);
}

/// Non-blocking swap: `result` receives the previous value.
template <atomic_value T>
[[nodiscard]] future<> swap_nbi(global_ptr<T> target, std::type_identity_t<T> value, T& result) noexcept {
  using C = detail::amo_carrier_t<T>;
  detail::amo_swap_nbi(detail::carrier(&result), detail::carrier(target.raw()), static_cast<C>(value), target.where());
  return future<>(SHMEM_CTX_DEFAULT);
}

/// Non-blocking compare_swap: `result` receives the previous value (equal to `expected` exactly when the
/// swap happened).
template <atomic_integral T>
[[nodiscard]] future<> compare_swap_nbi(global_ptr<T> target, std::type_identity_t<T> expected,
                                        std::type_identity_t<T> desired, T& result) noexcept {
  using C = detail::amo_carrier_t<T>;
  detail::amo_compare_swap_nbi(detail::carrier(&result), detail::carrier(target.raw()), static_cast<C>(expected),
                               static_cast<C>(desired), target.where());
  return future<>(SHMEM_CTX_DEFAULT);
}

/// Non-blocking fetch_inc: `result` receives the previous value.
template <atomic_integral T>
[[nodiscard]] future<> fetch_inc_nbi(global_ptr<T> target, T& result) noexcept {
  detail::amo_fetch_inc_nbi(detail::carrier(&result), detail::carrier(target.raw()), target.where());
  return future<>(SHMEM_CTX_DEFAULT);
}

#define RDSM_DETAIL_FETCH_OP_NBI(op)                                                                  \
  template <atomic_integral T>                                                                        \
  [[nodiscard]] future<> op##_nbi(global_ptr<T> target, std::type_identity_t<T> value, T& result) noexcept { \
    using C = detail::amo_carrier_t<T>;                                                               \
    detail::amo_##op##_nbi(detail::carrier(&result), detail::carrier(target.raw()), static_cast<C>(value), \
                           target.where());                                                           \
    return future<>(SHMEM_CTX_DEFAULT);                                                               \
  }
/// Non-blocking fetch_add, fetch_and, fetch_or, fetch_xor: `result` receives the previous value.
RDSM_DETAIL_FETCH_OP_NBI(fetch_add)
RDSM_DETAIL_FETCH_OP_NBI(fetch_and)
RDSM_DETAIL_FETCH_OP_NBI(fetch_or)
RDSM_DETAIL_FETCH_OP_NBI(fetch_xor)
#undef RDSM_DETAIL_FETCH_OP_NBI

}  // namespace rdsm
