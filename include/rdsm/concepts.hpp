// rdsm C++ API: the concepts that say which types RMA, atomics, waits and reductions accept.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace rdsm {

/// A type whose bytes may be copied to and from another PE: trivially copyable and not a reference.
/// RMA (put/get), signals, collectives and symmetric<T> require it, so `rdsm::put(std::string{}, p)` is
/// rejected at compile time rather than copying a pointer into another process.
template <class T>
concept remote_copyable = std::is_trivially_copyable_v<T> && !std::is_reference_v<T>;

/// An integer the OpenSHMEM standard AMOs accept (fetch_add, add, inc, compare_swap) and the bitwise
/// AMOs (and, or, xor): a 4- or 8-byte integer other than bool (char32_t and wchar_t, 4 bytes on Linux,
/// included). rdsm maps it to shmem_{int32,int64,uint32,uint64}_atomic_* by size and signedness.
template <class T>
concept atomic_integral = std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool> &&
                          (sizeof(T) == 4 || sizeof(T) == 8) && !std::is_const_v<T>;

/// A type the extended AMOs accept (fetch, set, swap): an atomic_integral, float or double.
template <class T>
concept atomic_value = atomic_integral<T> || std::same_as<T, float> || std::same_as<T, double>;

/// A type point-to-point waits accept (wait_until, test): a 2-, 4- or 8-byte integer other than bool.
template <class T>
concept wait_value = std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool> &&
                     (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) && !std::is_const_v<T>;

}  // namespace rdsm
