// rdsm C++ API: waits and tests on several local symmetric variables at once (OpenSHMEM 1.5
// shmem_TYPE_wait_until_all/any/some, shmem_TYPE_test_all/any/some and their _vector forms).
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>
#include <vector>

#include "rdsm/concepts.hpp"
#include "rdsm/detail/amo.hpp"
#include "rdsm/detail/misuse.hpp"
#include "rdsm/signal.hpp"

// `ivars`: this PE's symmetric variables, a contiguous range of a wait_value type (a symmetric_array<T>, a
// span of one, a global std::array). Another PE ends a wait by a put or an AMO to them. `value`: the value
// every variable is compared with, or a range of one value per variable (the C API's _vector forms).
// `status` (optional): one flag per variable, nonzero excludes it. A status or values of another length
// than ivars ends the job with one line naming the call. Thread safety: as the C API.

namespace rdsm {

/// What the multi-variable waits accept as `ivars`.
template <class R>
concept wait_range = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                     wait_value<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

/// wait_until_any's result when no variable is left to wait for (every one excluded by status).
inline constexpr std::size_t no_index = SIZE_MAX;

namespace detail {
template <class R>
using wait_elem_t = std::remove_reference_t<std::ranges::range_reference_t<R>>;

/// A comparison operand for ivars R: one value, or a range of one value per variable.
template <class V, class R>
concept wait_operand = std::convertible_to<V, wait_elem_t<R>> || std::convertible_to<V, std::span<const wait_elem_t<R>>>;

// The C call's arguments: ivars as the carrier type, status or null, the value or the values' pointer.
struct wait_args {
  const char* fn;
  std::size_t n;
  const int* status;
};
template <class R>
auto* ivars_of(R& ivars) {
  return reinterpret_cast<typename wait_carrier<wait_elem_t<R>>::type*>(std::ranges::data(ivars));
}
template <class R>
wait_args args_of(const char* fn, R& ivars, std::span<const int> status) {
  const std::size_t n = std::ranges::size(ivars);
  if (!status.empty() && status.size() != n)
    misuse("%s: status has %zu elements and ivars %zu (one flag per variable, or none)", fn, status.size(), n);
  return {fn, n, status.empty() ? nullptr : status.data()};
}
template <class R, class V>
auto operand(const wait_args& a, const V& v) {
  using T = wait_elem_t<R>;
  using C = typename wait_carrier<T>::type;
  if constexpr (std::is_convertible_v<const V&, T>) {
    return static_cast<C>(static_cast<T>(v));
  } else {
    const std::span<const T> values(v);
    if (values.size() != a.n)
      misuse("%s: %zu comparison values for %zu ivars (one value per variable)", a.fn, values.size(), a.n);
    return reinterpret_cast<const C*>(values.data());
  }
}
}  // namespace detail

/// Blocks until every variable not excluded satisfies `ivars[i] c value` (or `c values[i]`).
template <wait_range R, detail::wait_operand<R> V>
void wait_until_all(R&& ivars, cmp c, const V& value, std::span<const int> status = {}) noexcept {
  const detail::wait_args a = detail::args_of("rdsm::wait_until_all", ivars, status);
  detail::wait_all_c(detail::ivars_of(ivars), a.n, a.status, static_cast<int>(c), detail::operand<R>(a, value));
}

/// Blocks until some variable not excluded satisfies the comparison; returns its index (no_index when every
/// variable is excluded). It may return the same index again: exclude it through status to move on.
template <wait_range R, detail::wait_operand<R> V>
std::size_t wait_until_any(R&& ivars, cmp c, const V& value, std::span<const int> status = {}) noexcept {
  const detail::wait_args a = detail::args_of("rdsm::wait_until_any", ivars, status);
  return detail::wait_any_c(detail::ivars_of(ivars), a.n, a.status, static_cast<int>(c), detail::operand<R>(a, value));
}

/// Blocks until at least one variable not excluded satisfies the comparison; returns the indices of those
/// that do then, in increasing order (none when every variable is excluded).
template <wait_range R, detail::wait_operand<R> V>
std::vector<std::size_t> wait_until_some(R&& ivars, cmp c, const V& value, std::span<const int> status = {}) {
  const detail::wait_args a = detail::args_of("rdsm::wait_until_some", ivars, status);
  std::vector<std::size_t> indices(a.n);
  indices.resize(detail::wait_some_c(detail::ivars_of(ivars), a.n, indices.data(), a.status, static_cast<int>(c),
                                     detail::operand<R>(a, value)));
  return indices;
}

/// True when every variable not excluded satisfies the comparison now. Does not block.
template <wait_range R, detail::wait_operand<R> V>
bool test_all(R&& ivars, cmp c, const V& value, std::span<const int> status = {}) noexcept {
  const detail::wait_args a = detail::args_of("rdsm::test_all", ivars, status);
  return detail::test_all_c(detail::ivars_of(ivars), a.n, a.status, static_cast<int>(c), detail::operand<R>(a, value)) != 0;
}

/// The index of a variable not excluded that satisfies the comparison now, if any. Does not block.
template <wait_range R, detail::wait_operand<R> V>
std::optional<std::size_t> test_any(R&& ivars, cmp c, const V& value, std::span<const int> status = {}) noexcept {
  const detail::wait_args a = detail::args_of("rdsm::test_any", ivars, status);
  const std::size_t i =
      detail::test_any_c(detail::ivars_of(ivars), a.n, a.status, static_cast<int>(c), detail::operand<R>(a, value));
  return i == no_index ? std::nullopt : std::optional<std::size_t>(i);
}

/// The indices of the variables not excluded that satisfy the comparison now (maybe none). Does not block.
template <wait_range R, detail::wait_operand<R> V>
std::vector<std::size_t> test_some(R&& ivars, cmp c, const V& value, std::span<const int> status = {}) {
  const detail::wait_args a = detail::args_of("rdsm::test_some", ivars, status);
  std::vector<std::size_t> indices(a.n);
  indices.resize(detail::test_some_c(detail::ivars_of(ivars), a.n, indices.data(), a.status, static_cast<int>(c),
                                     detail::operand<R>(a, value)));
  return indices;
}

}  // namespace rdsm
