/* shmem_sync with a team (the OpenSHMEM 1.5 C11 form) and with an active set (the deprecated form), one name. */
#include <shmem.h>
#include <stdio.h>

static long psync[SHMEM_SYNC_SIZE];
static int arrived;

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  int errors = 0;
  for (int round = 1; round <= 3; round++) {
    /* Each PE's increment is complete (quiet) before it enters the sync, so PE 0 sees them all after it. */
    shmem_int_atomic_inc(&arrived, 0);
    shmem_quiet();
    if (shmem_sync(SHMEM_TEAM_WORLD) != 0) errors++;
    if (me == 0 && shmem_int_atomic_fetch(&arrived, 0) != round * n) errors++;
    shmem_sync(0, 0, n, psync); /* nobody starts the next round before PE 0 has checked */
  }
  if (errors != 0) printf("PE %d: %d errors\n", me, errors);
  else if (me == 0) printf("sync_team: ok\n");
  shmem_finalize();
  return errors != 0;
}
