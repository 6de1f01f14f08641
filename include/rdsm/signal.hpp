// rdsm C++ API: put-with-signal, signal waits and point-to-point waits on local symmetric variables.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <shmem.h>

#include <cstdint>
#include <span>
#include <ranges>
#include <type_traits>

#include "rdsm/concepts.hpp"
#include "rdsm/detail/amo.hpp"
#include "rdsm/detail/misuse.hpp"
#include "rdsm/future.hpp"
#include "rdsm/global_ptr.hpp"

namespace rdsm {

/// How a put-with-signal updates the signal word: set it to the value, or add the value to it.
enum class signal_op : int { set = SHMEM_SIGNAL_SET, add = SHMEM_SIGNAL_ADD };

/// Comparisons for signal_wait_until, wait_until and test.
enum class cmp : int {
  eq = SHMEM_CMP_EQ,
  ne = SHMEM_CMP_NE,
  gt = SHMEM_CMP_GT,
  ge = SHMEM_CMP_GE,
  lt = SHMEM_CMP_LT,
  le = SHMEM_CMP_LE
};

/// Puts `src` to `dst` and then updates the signal word `sig` (on the same PE) with `value` by `op`.
/// The target sees the signal update only after all of the data has arrived, so a PE that waits for
/// the signal may then read the data. Returns when `src` may be reused. `sig` must be a symmetric
/// uint64_t on dst.where(); a different PE ends the job with one line. Thread safety: as the C API.
template <remote_copyable T>
  requires(!std::is_const_v<T>)
void put_signal(std::span<const std::type_identity_t<T>> src, global_ptr<T> dst, global_ptr<std::uint64_t> sig,
                std::uint64_t value, signal_op op) noexcept {
  if (sig.where() != dst.where())
    detail::misuse("rdsm::put_signal: signal on PE %d but data on PE %d (they must be the same PE)", sig.where(),
                  dst.where());
  shmem_putmem_signal(dst.raw(), src.data(), src.size_bytes(), sig.raw(), value, static_cast<int>(op), dst.where());
}

/// Non-blocking put_signal: returns at once; `src` must stay untouched until the future's wait().
/// The signal still follows the data at the target.
template <remote_copyable T>
  requires(!std::is_const_v<T>)
[[nodiscard]] future<> put_signal_nbi(std::span<const std::type_identity_t<T>> src, global_ptr<T> dst,
                                      global_ptr<std::uint64_t> sig, std::uint64_t value, signal_op op) noexcept {
  if (sig.where() != dst.where())
    detail::misuse("rdsm::put_signal_nbi: signal on PE %d but data on PE %d (they must be the same PE)",
                  sig.where(), dst.where());
  shmem_putmem_signal_nbi(dst.raw(), src.data(), src.size_bytes(), sig.raw(), value, static_cast<int>(op),
                          dst.where());
  return future<>(SHMEM_CTX_DEFAULT);
}

/// A temporary container as the source would be destroyed before the put reads it: refused (as put_nbi).
template <class Range, class T>
  requires(!std::is_lvalue_reference_v<Range> && !std::ranges::borrowed_range<Range>)
future<> put_signal_nbi(Range&& src, global_ptr<T> dst, global_ptr<std::uint64_t> sig, std::uint64_t value,
                        signal_op op) = delete;

/// Reads this PE's signal word `*sig` (a symmetric uint64_t) atomically with respect to signal updates.
inline std::uint64_t signal_fetch(const std::uint64_t* sig) noexcept { return shmem_signal_fetch(sig); }

/// Blocks until `*sig c value` holds for this PE's signal word `*sig`; returns the signal's value then.
inline std::uint64_t signal_wait_until(std::uint64_t* sig, cmp c, std::uint64_t value) noexcept {
  return shmem_signal_wait_until(sig, static_cast<int>(c), value);
}

/// Blocks until this PE's symmetric variable `*ivar` satisfies `*ivar c value` (another PE updates it
/// by put or AMO). Thread safety: as the C API.
template <wait_value T>
void wait_until(T* ivar, cmp c, std::type_identity_t<T> value) noexcept {
  using C = typename detail::wait_carrier<T>::type;
  detail::wait_until_c(reinterpret_cast<C*>(ivar), static_cast<int>(c), static_cast<C>(value));
}

/// True when this PE's symmetric variable `*ivar` satisfies `*ivar c value` now. Does not block.
template <wait_value T>
bool test(T* ivar, cmp c, std::type_identity_t<T> value) noexcept {
  using C = typename detail::wait_carrier<T>::type;
  return detail::test_c(reinterpret_cast<C*>(ivar), static_cast<int>(c), static_cast<C>(value)) != 0;
}

}  // namespace rdsm
