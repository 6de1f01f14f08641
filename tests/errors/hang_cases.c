/* Stuck jobs, one per argv[1], for the hang reports and the finalize mismatch check (tests/errors/watch.sh). */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long flag;
static long lock;
static long source[4], dest[4];

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "finalize_malloc") == 0) setenv("SHMEM_DEBUG", "1", 1); /* sizes checked with every PE */
  shmem_init();
  const int me = shmem_my_pe();
  shmem_barrier_all();
  if (me == 0) {
    printf("ready\n");
    fflush(stdout);
  }
  if (strcmp(mode, "wait_forever") == 0) {
    /* PE 1 waits for a value nobody sets; PE 0 waits for PE 1 in a barrier. */
    if (me == 1) shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 42);
    shmem_barrier_all();
  } else if (strcmp(mode, "lock_held") == 0) {
    /* PE 0 holds a lock and waits in a barrier; PE 1 waits for the lock. */
    if (me == 0) shmem_set_lock(&lock);
    shmem_barrier_all();
    if (me == 1) shmem_set_lock(&lock);
    shmem_barrier_all();
  } else if (strcmp(mode, "dsm_lock_held") == 0) {
    /* The same with a DSM lock: PE 1 queues behind PE 0. */
    rdsm_dsm_lock_t *dlock = rdsm_dsm_lock_create();
    if (me == 0) rdsm_dsm_lock(dlock);
    shmem_barrier_all();
    if (me == 1) rdsm_dsm_lock(dlock);
    shmem_barrier_all();
  } else if (strcmp(mode, "quiet_stopped") == 0) {
    /* Over UCX: PE 1 stops itself; PE 0 puts 64 MiB to it (more than the sockets' buffers hold) and waits in shmem_quiet. */
    const size_t bytes = (size_t)64 << 20;
    char *buf = shmem_malloc(bytes);
    char *local = malloc(bytes);
    memset(local, 1, bytes);
    shmem_barrier_all();
    if (me == 1) raise(SIGSTOP);
    usleep(200000);
    if (me == 0) {
      shmem_putmem_nbi(buf, local, bytes, 1);
      shmem_quiet();
    }
    shmem_barrier_all();
  } else if (strcmp(mode, "stopped") == 0) {
    /* PE 0 stops itself; the others wait for it in a barrier. */
    if (me == 0) raise(SIGSTOP);
    shmem_barrier_all();
  } else if (strcmp(mode, "finalize_barrier") == 0) {
    /* PE 0 finalizes while PE 1 makes one more barrier: the calls do not match. What PE 0 printed before
       (still in its buffer: the output is a file) must not be lost when the job ends it there. */
    if (me == 0) printf("PE 0 printed this before shmem_finalize\n");
    if (me == 1) shmem_barrier_all();
  } else if (strcmp(mode, "finalize_broadcast") == 0) {
    /* PE 0 finalizes while PE 1 waits for PE 0's data in a broadcast. */
    if (me == 1) shmem_broadcast(SHMEM_TEAM_WORLD, dest, source, 4, 0);
  } else if (strcmp(mode, "finalize_alltoall") == 0) {
    /* PE 0 finalizes while PE 1 waits for its block in an alltoall (from any member: every other member
       finalizes). */
    if (me == 1) shmem_alltoall(SHMEM_TEAM_WORLD, dest, source, 2);
  } else if (strcmp(mode, "barrier_vs_broadcast") == 0) {
    /* PE 0 enters a barrier where the others enter a broadcast: neither can finish. */
    if (me == 0) shmem_barrier_all();
    else shmem_broadcast(SHMEM_TEAM_WORLD, dest, source, 4, 0);
  } else if (strcmp(mode, "finalize_malloc") == 0) {
    /* PE 0 finalizes while PE 1 allocates, its size checked against every PE's (SHMEM_DEBUG). */
    if (me == 1) shmem_malloc(64);
  } else if (strcmp(mode, "finalize_dsm_alloc") == 0) {
    /* PE 0 finalizes while PE 1 starts the DSM with its first allocation. */
    if (me == 1) rdsm_dsm_alloc(4096);
  } else if (strcmp(mode, "finalize_dsm_barrier") == 0) {
    /* With the DSM in use (its own barriers run in finalize): PE 1 makes one more DSM barrier. */
    rdsm_dsm_barrier();
    if (me == 1) rdsm_dsm_barrier();
  } else if (strcmp(mode, "finalize_wait") == 0) {
    /* PE 1 waits for a flag nobody sets while PE 0 finalizes: nothing can satisfy the wait */
    if (me == 1) shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 42);
  } else if (strcmp(mode, "finalize_signal") == 0) {
    if (me == 1) shmem_signal_wait_until((uint64_t *)&flag, SHMEM_CMP_EQ, 42);
  } else if (strcmp(mode, "finalize_lock") == 0) {
    /* PE 0 finalizes holding the lock PE 1 waits for */
    if (me == 0) shmem_set_lock(&lock);
    shmem_barrier_all();
    if (me == 1) shmem_set_lock(&lock);
  } else if (strcmp(mode, "finalize_dsm_lock") == 0) {
    rdsm_dsm_lock_t *dlock = rdsm_dsm_lock_create();
    if (me == 0) rdsm_dsm_lock(dlock);
    shmem_barrier_all();
    if (me == 1) rdsm_dsm_lock(dlock);
  } else if (strcmp(mode, "world_vs_shared") == 0) {
    /* one broadcast on the world team on PE 0, on the shared team on the others: each waits for the other */
    shmem_long_broadcast(me == 0 ? SHMEM_TEAM_WORLD : SHMEM_TEAM_SHARED, dest, source, 4, 0);
  } else if (strcmp(mode, "shared_sync_vs_world") == 0) {
    if (me == 0) shmem_team_sync(SHMEM_TEAM_SHARED);
    else shmem_team_sync(SHMEM_TEAM_WORLD);
  } else if (strcmp(mode, "bcast_roots") == 0) {
    /* every PE names itself the root of one broadcast */
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, source, 4, me);
  } else if (strcmp(mode, "split_vs_barrier") == 0) {
    /* PE 0 splits the world team while PE 1 is in a barrier: no team slot comes out of the agreement */
    shmem_team_t t;
    if (me == 0) shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 2, NULL, 0, &t);
    else shmem_barrier_all();
    shmem_barrier_all();
  } else if (strcmp(mode, "finalize_matched") == 0) {
    /* A correct program whose PEs reach finalize far apart: no error. PE 1 waits in a barrier and a
       broadcast while PE 0 is still busy, then PE 0 waits in finalize while PE 1 is busy. */
    if (me == 0) usleep(300000);
    shmem_barrier_all();
    if (me == 0) usleep(300000);
    shmem_broadcast(SHMEM_TEAM_WORLD, dest, source, 4, 0);
    if (me == 1) usleep(1500000); /* longer than the mismatch check's grace */
  }
  shmem_finalize();
  return 0;
}
