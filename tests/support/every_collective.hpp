// Calls every kind of team collective once on the same arguments, for tests of how the routines treat an
// argument (an invalid team, NULL with a zero count) rather than of what they compute.
#pragma once

#include <shmem.h>

#include <cstddef>

// How many calls every_team_collective makes.
constexpr int every_team_collective_calls = 17;

// Calls the broadcast, collect, fcollect, alltoall and alltoalls routines (typed and mem forms) and a reduction of
// each operator on (team, dest, source, nelems), root 0 and unit strides, in the same order on every PE; returns
// how many returned nonzero.
inline int every_team_collective(shmem_team_t team, long* dest, const long* source, size_t nelems) {
  const size_t bytes = nelems * sizeof(long);
  auto* udest = reinterpret_cast<unsigned long*>(dest);
  const auto* usource = reinterpret_cast<const unsigned long*>(source);
  const int results[every_team_collective_calls] = {  // a braced list runs its calls in order
      shmem_long_broadcast(team, dest, source, nelems, 0),
      shmem_broadcastmem(team, dest, source, bytes, 0),
      shmem_long_collect(team, dest, source, nelems),
      shmem_collectmem(team, dest, source, bytes),
      shmem_long_fcollect(team, dest, source, nelems),
      shmem_fcollectmem(team, dest, source, bytes),
      shmem_long_alltoall(team, dest, source, nelems),
      shmem_alltoallmem(team, dest, source, bytes),
      shmem_long_alltoalls(team, dest, source, 1, 1, nelems),
      shmem_alltoallsmem(team, dest, source, 1, 1, bytes),
      shmem_long_sum_reduce(team, dest, source, nelems),
      shmem_long_prod_reduce(team, dest, source, nelems),
      shmem_long_max_reduce(team, dest, source, nelems),
      shmem_long_min_reduce(team, dest, source, nelems),
      shmem_ulong_and_reduce(team, udest, usource, nelems),
      shmem_ulong_or_reduce(team, udest, usource, nelems),
      shmem_ulong_xor_reduce(team, udest, usource, nelems),
  };
  int failed = 0;
  for (int r : results) failed += r != 0;
  return failed;
}
