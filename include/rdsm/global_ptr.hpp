// rdsm C++ API: global_ptr<T>, the (PE, symmetric address) pair every remote operation targets.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <shmem.h>

#include <compare>
#include <cstddef>
#include <type_traits>

namespace rdsm {

/// A pointer into the partitioned global address space: a PE number (in the world team) and the
/// address of a symmetric object as this PE sees it. Trivially copyable, so it can itself be put to or
/// broadcast to another PE and used there (symmetric addresses mean the same object on every PE).
///
/// There is deliberately no operator* and no operator[]: a remote reference would hide a network round
/// trip behind an innocent-looking expression. Read and write with rdsm::get / rdsm::put (rma.hpp) and
/// step with `p + i`. When the target's memory is load/store reachable, local() gives a plain T*.
///
/// Thread safety: a value type; distinct objects may be used from any threads.
template <class T>
class global_ptr {
 public:
  using element_type = T;

  /// The null global pointer (where() == -1, raw() == nullptr).
  constexpr global_ptr() noexcept = default;
  /// Points at `addr` (a symmetric address, as seen on this PE) on PE `pe` of the world team.
  constexpr global_ptr(int pe, T* addr) noexcept : raw_(addr), pe_(pe) {}
  /// A global_ptr<T> converts to global_ptr<const T> (and any implicit pointer conversion U* -> T*).
  template <class U>
    requires std::is_convertible_v<U*, T*>
  constexpr global_ptr(const global_ptr<U>& other) noexcept : raw_(other.raw()), pe_(other.where()) {}

  /// The PE (world rank) whose memory this points into; -1 for the null pointer.
  constexpr int where() const noexcept { return pe_; }
  /// The symmetric address as this PE sees it; pass it to C API calls together with where().
  constexpr T* raw() const noexcept { return raw_; }
  /// True unless null.
  constexpr bool is_null() const noexcept { return raw_ == nullptr; }
  constexpr explicit operator bool() const noexcept { return raw_ != nullptr; }

  /// A load/store pointer to the target object when its PE's memory is mapped into this process
  /// (this PE itself, or a shared-memory peer: shmem_ptr), nullptr otherwise. Loads and stores through
  /// it are ordinary memory accesses: they are not ordered with RMA by fence/quiet, so synchronize
  /// (barrier, signal, wait_until) before reading data another PE put there.
  T* local() const noexcept {
    if (raw_ == nullptr) return nullptr;
    return static_cast<T*>(shmem_ptr(static_cast<const void*>(raw_), pe_));
  }
  /// True when local() is not nullptr.
  bool is_local() const noexcept { return local() != nullptr; }

  /// Pointer arithmetic in units of T, on the same PE.
  constexpr global_ptr operator+(std::ptrdiff_t n) const noexcept { return {pe_, raw_ + n}; }
  constexpr global_ptr operator-(std::ptrdiff_t n) const noexcept { return {pe_, raw_ - n}; }
  constexpr global_ptr& operator+=(std::ptrdiff_t n) noexcept { raw_ += n; return *this; }
  constexpr global_ptr& operator-=(std::ptrdiff_t n) noexcept { raw_ -= n; return *this; }
  constexpr global_ptr& operator++() noexcept { ++raw_; return *this; }
  constexpr global_ptr operator++(int) noexcept { global_ptr old = *this; ++raw_; return old; }
  constexpr global_ptr& operator--() noexcept { --raw_; return *this; }
  constexpr global_ptr operator--(int) noexcept { global_ptr old = *this; --raw_; return old; }
  /// Distance in elements between two pointers; both must point into the same object on the same PE.
  constexpr std::ptrdiff_t operator-(const global_ptr& other) const noexcept { return raw_ - other.raw_; }

  /// Equal when PE and address are equal; ordered by PE, then address.
  constexpr bool operator==(const global_ptr&) const noexcept = default;
  constexpr auto operator<=>(const global_ptr& other) const noexcept {
    if (auto c = pe_ <=> other.pe_; c != 0) return c;
    return std::compare_three_way{}(raw_, other.raw_);
  }

 private:
  T* raw_ = nullptr;
  int pe_ = -1;
};

/// `n + p`, as for built-in pointers.
template <class T>
constexpr global_ptr<T> operator+(std::ptrdiff_t n, const global_ptr<T>& p) noexcept {
  return p + n;
}

/// The global pointer to symmetric object `*addr` on PE `pe` (a convenience for `global_ptr<T>(pe, addr)`).
template <class T>
constexpr global_ptr<T> to_global(T* addr, int pe) noexcept {
  return global_ptr<T>(pe, addr);
}

}  // namespace rdsm
