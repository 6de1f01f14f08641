// rdsm C++ API: typed one-sided put/get (blocking and non-blocking) and the fence/quiet ordering calls.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <shmem.h>

#include <array>
#include <bit>
#include <cstddef>
#include <span>
#include <ranges>
#include <type_traits>

#include "rdsm/concepts.hpp"
#include "rdsm/detail/misuse.hpp"
#include "rdsm/future.hpp"
#include "rdsm/global_ptr.hpp"

// Completion semantics shared by every call here (OpenSHMEM 1.5 §9.5): a blocking put returns when its
// source may be reused, NOT when the data has arrived: the data is visible at the target after quiet(),
// a barrier, or (to a reader synchronizing through a later put/AMO/signal to the same PE) after fence().
// A blocking get returns when the data is in the destination. Non-blocking forms return at once and
// complete at the next quiet (future::wait() calls it).
//
// Thread safety: as the C API at the thread level rdsm::runtime was started with (with
// thread_level::multiple any thread may call; otherwise only as that level allows).
//
// Remote buffers (global_ptr targets) must be symmetric: from symmetric<T>, symmetric_array<T>, a
// global/static variable, or shmem_malloc. The C API ends the job, naming the call, when they are not.

namespace rdsm {

/// Writes `value` into the object `dst` points at. Returns when `value` may be reused (a local copy
/// suffices); the data reaches the target by the next quiet()/barrier(). Never throws.
template <remote_copyable T>
  requires(!std::is_const_v<T>)
void put(const std::type_identity_t<T>& value, global_ptr<T> dst) noexcept {
  shmem_putmem(dst.raw(), &value, sizeof(T), dst.where());
}

/// Writes the elements of `src` to `dst`, `dst + 1`, ... Returns when `src` may be reused; the data
/// reaches the target by the next quiet()/barrier(). Never throws.
template <remote_copyable T>
  requires(!std::is_const_v<T>)
void put(std::span<const std::type_identity_t<T>> src, global_ptr<T> dst) noexcept {
  if (!src.empty()) shmem_putmem(dst.raw(), src.data(), src.size_bytes(), dst.where());
}

/// Reads and returns the object `src` points at. Blocking: returns with the value. Never throws.
template <remote_copyable T>
std::remove_const_t<T> get(global_ptr<T> src) noexcept {
  using value_type = std::remove_const_t<T>;
  // A byte buffer and bit_cast, so T need not be default constructible.
  alignas(value_type) std::array<std::byte, sizeof(value_type)> bytes;
  shmem_getmem(bytes.data(), src.raw(), sizeof(value_type), src.where());
  return std::bit_cast<value_type>(bytes);
}

/// Reads `dest.size()` elements starting at `src` into `dest` (any local memory). Blocking: returns
/// when `dest` holds the data. Never throws.
template <remote_copyable T>
void get(global_ptr<T> src, std::span<std::remove_const_t<T>> dest) noexcept {
  if (!dest.empty()) shmem_getmem(dest.data(), src.raw(), dest.size_bytes(), src.where());
}

/// Non-blocking put of `src` to `dst`. Returns at once; `src` must not be modified, nor freed, until
/// the returned future's wait() (or another quiet) has completed it. See future<> for what wait() does.
template <remote_copyable T>
  requires(!std::is_const_v<T>)
[[nodiscard]] future<> put_nbi(std::span<const std::type_identity_t<T>> src, global_ptr<T> dst) noexcept {
  if (!src.empty()) shmem_putmem_nbi(dst.raw(), src.data(), src.size_bytes(), dst.where());
  return future<>(SHMEM_CTX_DEFAULT);
}

/// A temporary container as the source of a non-blocking put would be destroyed before the put reads it:
/// refused at compile time (views such as std::span, which own nothing, are accepted above).
template <class Range, class T>
  requires(!std::is_lvalue_reference_v<Range> && !std::ranges::borrowed_range<Range>)
future<> put_nbi(Range&& src, global_ptr<T> dst) = delete;

/// Non-blocking get into `dest`. Returns at once; `dest` holds the data only after the returned
/// future's wait() (or another quiet) and must stay alive until then.
template <remote_copyable T>
[[nodiscard]] future<> get_nbi(global_ptr<T> src, std::span<std::remove_const_t<T>> dest) noexcept {
  if (!dest.empty()) shmem_getmem_nbi(dest.data(), src.raw(), dest.size_bytes(), src.where());
  return future<>(SHMEM_CTX_DEFAULT);
}

namespace detail {
// A strided transfer's local side: `n` elements `stride` apart from the span's start must lie in it.
inline void check_strided(const char* fn, const char* what, std::size_t span_size, std::ptrdiff_t stride,
                          std::ptrdiff_t remote_stride, std::size_t n) {
  if (stride < 1 || remote_stride < 1)
    misuse("%s: stride %td is not positive; strides count elements forward (1 for contiguous ones)", fn,
           stride < 1 ? stride : remote_stride);
  if (n != 0 && (n - 1) * static_cast<std::size_t>(stride) + 1 > span_size)
    misuse("%s: %zu elements %td apart need %zu elements of %s, which holds %zu", fn, n, stride,
           (n - 1) * static_cast<std::size_t>(stride) + 1, what, span_size);
}
}  // namespace detail

/// Strided put: writes src[i * src_stride] to `dst + i * dst_stride` for i < nelems (strides in elements,
/// positive; src must hold the elements it names: checked). Returns when src may be reused; the data
/// reaches the target by the next quiet()/barrier(). Any remote_copyable T (one OpenSHMEM 1.6 strided-block
/// put of sizeof(T)-byte blocks).
template <remote_copyable T>
  requires(!std::is_const_v<T>)
void iput(global_ptr<T> dst, std::ptrdiff_t dst_stride, std::span<const std::type_identity_t<T>> src,
          std::ptrdiff_t src_stride, std::size_t nelems) noexcept {
  detail::check_strided("rdsm::iput", "src", src.size(), src_stride, dst_stride, nelems);
  if (nelems == 0) return;
  const auto bytes = static_cast<std::ptrdiff_t>(sizeof(T));
  shmem_ibput8(dst.raw(), src.data(), dst_stride * bytes, src_stride * bytes, sizeof(T), nelems, dst.where());
}

/// Strided get: reads `src + i * src_stride` into dest[i * dest_stride] for i < nelems (dest must hold the
/// elements it names: checked). Blocking: returns when dest holds the data.
template <remote_copyable T>
void iget(std::span<std::remove_const_t<T>> dest, std::ptrdiff_t dest_stride, global_ptr<T> src,
          std::ptrdiff_t src_stride, std::size_t nelems) noexcept {
  detail::check_strided("rdsm::iget", "dest", dest.size(), dest_stride, src_stride, nelems);
  if (nelems == 0) return;
  const auto bytes = static_cast<std::ptrdiff_t>(sizeof(T));
  shmem_ibget8(dest.data(), src.raw(), dest_stride * bytes, src_stride * bytes, sizeof(T), nelems, src.where());
}

/// Orders this PE's puts, AMOs and signals to each target PE: those issued before fence() are
/// delivered to that PE before those issued after. Does not wait for delivery (cheap). Never throws.
inline void fence() noexcept { shmem_fence(); }

/// Completes every put, non-blocking get, AMO and signal this PE issued on the default context:
/// puts are visible at their targets and gets' destinations hold data when it returns. Blocking.
inline void quiet() noexcept { shmem_quiet(); }

}  // namespace rdsm
