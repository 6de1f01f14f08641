// What the DSM tests ask of their environment: this PE, the consistency mode and the prefetch the runtime
// uses (from the same variables, clamped as it clamps them), and the DSM counters.
#pragma once

#include <rdsm/dsm.h>
#include <shmem.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace dsm_test {

inline int me() { return shmem_my_pe(); }
inline int npes() { return shmem_n_pes(); }

inline bool release_mode() {
  const char* mode = std::getenv("RDSM_DSM_CONSISTENCY");
  return mode == nullptr || std::strcmp(mode, "sequential") != 0;
}

// Pages a read fault copies at most (RDSM_DSM_PREFETCH).
inline uint64_t prefetch() {
  const char* env = std::getenv("RDSM_DSM_PREFETCH");
  const uint64_t n = env != nullptr ? std::strtoull(env, nullptr, 10) : 8;
  return std::clamp<uint64_t>(n, 1, 64);
}

inline rdsm_dsm_stats_t stats() {
  rdsm_dsm_stats_t s;
  rdsm_dsm_stats(&s);
  return s;
}

}  // namespace dsm_test
