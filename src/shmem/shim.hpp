// Helpers shared by the extern "C" shims: value <-> bit conversion for atomics, output arguments.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/log.hpp"

namespace rdsm::detail {

template <class T>
inline uint64_t to_bits(T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics act on 4- or 8-byte words");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

template <class T>
inline T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

/// An output argument the routine must write: NULL is one line, not a crash. `what` is its type with its
/// article ("an int").
inline void require_out(const char* fn, const char* arg, const void* out, const char* what) {
  if (out == nullptr) fatal("%s: %s is NULL; pass the address of %s to receive the result", fn, arg, what);
}

}  // namespace rdsm::detail
