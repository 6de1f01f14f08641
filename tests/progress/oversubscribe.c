/* Oversubscription: more PEs than cores pass a token around a ring and meet in barriers. Waiting PEs must
 * yield their core, or each hand-off waits for a scheduler tick and the job crawls. */
#include <shmem.h>
#include <stdio.h>
#include <time.h>

static long token;

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const int rounds = 200;
  for (long r = 1; r <= rounds; r++) {
    /* PE 0 starts round r; everyone else waits for the token from the left, then passes it on. */
    if (me != 0) shmem_long_wait_until(&token, SHMEM_CMP_GE, r);
    shmem_long_atomic_set(&token, r, (me + 1) % n);
    if (me == 0) shmem_long_wait_until(&token, SHMEM_CMP_GE, r);
  }
  for (int i = 0; i < 200; i++) shmem_barrier_all();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (me == 0) printf("oversubscribe: %d PEs, %d ring rounds and 200 barriers in %.2f s\n", n, rounds, s);
  shmem_finalize();
  return 0;
}
