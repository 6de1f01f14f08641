// Helpers shared by the multi-PE OpenSHMEM tests: PE neighbours, TCP detection, per-type test values.
#pragma once

#include <gtest/gtest.h>
#include <shmem.h>
#include <time.h>

#include <cstdlib>
#include <cstring>

namespace shtest {

inline int me() { return shmem_my_pe(); }
inline int npes() { return shmem_n_pes(); }
inline int right() { return (me() + 1) % npes(); }
inline int left() { return (me() + npes() - 1) % npes(); }

// True when the job runs over UCX's TCP transport (RMA and AMOs emulated): repeat counts are lowered there.
inline bool on_tcp() {
  const char* tls = std::getenv("UCX_TLS");
  return tls != nullptr && std::strstr(tls, "tcp") != nullptr;
}
inline int reps(int plain, int tcp) { return on_tcp() ? tcp : plain; }

// A value for element i written by PE pe, in 1..100 so it is exact in every RMA type (char included);
// 0 is never produced and serves as the "untouched" sentinel.
template <class T>
inline T enc(int pe, size_t i, int salt = 0) {
  return static_cast<T>(1 + (pe * 29 + static_cast<int>(i) * 7 + salt * 13) % 100);
}

inline void sleep_ms(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

// Reads a word another PE updates remotely (an atomic load, so the compiler re-reads it).
template <class T>
inline T peek(const T* p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

}  // namespace shtest
