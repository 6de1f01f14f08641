// CPU hints and the clock used by waiting loops.
#pragma once

#include <time.h>

#include <cstdint>

namespace rdsm::detail {

/// Monotonic time in nanoseconds (async-signal-safe: clock_gettime is).
inline uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

}  // namespace rdsm::detail
