// Whether every PE of the job has this PE's long double format. A job of x86-64 PEs (80-bit extended, 64-bit
// mantissa) and aarch64 PEs (binary128, 113-bit) has not: the same bytes are different numbers there, and
// rdsm refuses to reduce them. Tests of long double skip themselves in such a job.
#pragma once

#include <shmem.h>

#include <cfloat>

namespace rdsm_test {

/// Collective on its first call (every PE must make it at the same point); the answer is kept.
inline bool long_double_alike() {
  static const bool alike = [] {
    int* d = static_cast<int*>(shmem_malloc(3 * sizeof(int)));
    d[0] = LDBL_MANT_DIG;
    shmem_barrier_all();
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, &d[1], &d[0], 1);
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, &d[2], &d[0], 1);
    const bool same = d[1] == d[2];
    shmem_free(d);
    return same;
  }();
  return alike;
}

}  // namespace rdsm_test
