// What the DSM tests ask of their environment: this PE, the consistency mode and the prefetch the runtime
// uses (from the same variables, clamped as it clamps them), and the DSM counters.
#pragma once

#include <rdsm/dsm.h>
#include <shmem.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace dsm_test {

inline int me() { return shmem_my_pe(); }
inline int npes() { return shmem_n_pes(); }

inline bool release_mode() {
  const char* mode = std::getenv("RDSM_DSM_CONSISTENCY");
  return mode == nullptr || std::strcmp(mode, "sequential") != 0;
}

// Whether release mode maps other homes' pages rather than copying them (RDSM_DSM_SAME_HOST=map, the
// default, with every PE on one host; jobs across hosts set RDSM_HOST_ID): then nothing is diffed,
// noticed or invalidated.
inline bool homes_mapped() {
  const char* same_host = std::getenv("RDSM_DSM_SAME_HOST");
  return release_mode() && npes() > 1 && std::getenv("RDSM_HOST_ID") == nullptr &&
         (same_host == nullptr || std::strcmp(same_host, "copy") != 0);
}

// This PE's host, as the launcher names it to jobs across hosts (RDSM_HOST_ID; one host without it).
inline long host_key() {
  const char* id = std::getenv("RDSM_HOST_ID");
  return static_cast<long>(std::hash<std::string>{}(id != nullptr ? id : ""));
}
inline long host_key_word;  // a global: symmetric

// Sequential mode with RDSM_DSM_SAME_HOST=map (the default): a copy of a page whose home `pe` is on this
// host is the home's frame itself, so nothing is fetched or written back (protections alone keep a single
// writer), also in a job across hosts. Collective.
inline bool copies_linked(int pe) {
  host_key_word = host_key();
  shmem_barrier_all();
  const bool near = shmem_long_g(&host_key_word, pe) == host_key();
  shmem_barrier_all();
  const char* same_host = std::getenv("RDSM_DSM_SAME_HOST");
  return !release_mode() && (same_host == nullptr || std::strcmp(same_host, "copy") != 0) && near;
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
