// Helpers shared by the extern "C" shims: value <-> bit conversion for atomics.
#pragma once

#include <cstdint>
#include <cstring>

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

}  // namespace rdsm::detail
