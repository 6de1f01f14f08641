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
static long psync[SHMEM_BARRIER_SYNC_SIZE], psync2[SHMEM_BARRIER_SYNC_SIZE];

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
  } else if (strcmp(mode, "lock_held") == 0 || strcmp(mode, "lock_barrier") == 0) {
    /* PE 0 holds a lock and waits for a value nobody sets (lock_barrier: in a barrier, a cycle the job
     * ends); PE 1 waits for the lock. */
    if (me == 0) shmem_set_lock(&lock);
    shmem_barrier_all();
    if (me == 1) shmem_set_lock(&lock);
    if (strcmp(mode, "lock_barrier") == 0) shmem_barrier_all();
    else if (me == 0) shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 42);
    shmem_barrier_all();
  } else if (strcmp(mode, "dsm_lock_held") == 0 || strcmp(mode, "dsm_lock_barrier") == 0) {
    /* The same with a DSM lock: PE 1 queues behind PE 0, which waits in a barrier (dsm_lock_barrier: in
     * rdsm_dsm_barrier, a cycle the job ends) */
    rdsm_dsm_lock_t *dlock = rdsm_dsm_lock_create();
    if (me == 0) rdsm_dsm_lock(dlock);
    shmem_barrier_all();
    if (me == 1) rdsm_dsm_lock(dlock);
    if (strcmp(mode, "dsm_lock_barrier") == 0) {
      rdsm_dsm_barrier();
      rdsm_dsm_unlock(dlock);
    } else {
      shmem_barrier_all();
    }
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
  } else if (strcmp(mode, "active_vs_barrier") == 0) {
    /* PEs 0 and 1 enter a barrier of the active set of every PE, PE 2 shmem_barrier_all: neither can finish */
    if (me < 2) shmem_barrier(0, 0, shmem_n_pes(), psync);
    else shmem_barrier_all();
  } else if (strcmp(mode, "active_bcast_vs_sync") == 0) {
    /* PE 0 broadcasts over the active set {0, 1} (deprecated form), PE 1 syncs the world team */
    if (me == 0) shmem_broadcast64(dest, source, 4, 0, 0, 0, 2, psync);
    else shmem_team_sync(SHMEM_TEAM_WORLD);
  } else if (strcmp(mode, "active_reduce_vs_barrier") == 0) {
    /* PE 0 reduces over the active set {0, 1}, PE 1 enters shmem_barrier_all */
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    if (me == 0) shmem_long_sum_to_all(dest, source, 4, 0, 0, 2, pwrk, psync);
    else shmem_barrier_all();
  } else if (strcmp(mode, "active_collect_vs_bcast") == 0) {
    /* PE 1 collects over the active set {0, 1}, PE 0 broadcasts from itself on the world team */
    if (me == 1) shmem_fcollect64(dest, source, 1, 0, 0, 2, psync);
    else shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, source, 4, 0);
  } else if (strcmp(mode, "active_sets_late") == 0) {
    /* A correct program: PE 0 waits in the active set {0, 1} while PE 1 waits in the active set {1, 2} for
       PE 2, which arrives 2 s late; no error. */
    if (me == 2) usleep(2000000);
    if (me >= 1) shmem_barrier(1, 0, 2, psync2);
    if (me <= 1) shmem_barrier(0, 0, 2, psync);
  } else if (strcmp(mode, "cycle3") == 0) {
    /* Three teams of two PEs, {0, 1}, {1, 2} and {0, 2}: each PE syncs another one, each waits for the next */
    shmem_team_t a, b, c;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 2, NULL, 0, &a);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, 2, NULL, 0, &b);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, 2, NULL, 0, &c);
    shmem_team_sync(me == 0 ? a : me == 1 ? b : c);
  } else if (strcmp(mode, "split_apart") == 0) {
    /* PE 2 passes another stride: it takes the team to be {0, 2}, PEs 0 and 1 take it to be {0, 1} */
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, me == 2 ? 2 : 1, 2, NULL, 0, &t);
    if (t != SHMEM_TEAM_INVALID) shmem_team_sync(t);
    shmem_barrier_all();
  } else if (strcmp(mode, "split_singletons") == 0) {
    /* Each PE splits off a team of itself (a different start on each PE, against the specification but
       harmless): no error. */
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, me, 1, 1, NULL, 0, &t);
    shmem_team_sync(t);
    shmem_barrier_all();
  } else if (strcmp(mode, "slow_mix") == 0) {
    /* A correct program whose collectives (world, a split team, active sets of every PE and of pairs, a DSM
       lock then rdsm_dsm_barrier) each wait over a second for one late PE: no error. */
    const int n = shmem_n_pes();
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t);
    rdsm_dsm_lock_t *dlock = rdsm_dsm_lock_create();
    for (int i = 0; i < 6; ++i) {
      if (me == i % n) usleep(1300000);
      switch (i % 6) {
        case 0: shmem_barrier_all(); break;
        case 1: shmem_barrier(0, 0, n, psync); break;
        case 2: shmem_team_sync(t); break;
        case 3: shmem_broadcast64(dest, source, 4, 0, 0, 0, n, psync); break;
        case 4:
          if (me / 2 * 2 + 1 < n) shmem_barrier(me / 2 * 2, 0, 2, psync2);
          shmem_sync_all();
          break;
        default:
          rdsm_dsm_lock(dlock);
          if (me == 0) usleep(1300000); /* the others wait for the lock over a second */
          rdsm_dsm_unlock(dlock);
          rdsm_dsm_barrier();
      }
    }
  } else if (strcmp(mode, "split_2d_apart") == 0) {
    /* PE 0 passes another xrange */
    shmem_team_t x, y;
    shmem_team_split_2d(SHMEM_TEAM_WORLD, me == 0 ? 1 : 2, NULL, 0, &x, NULL, 0, &y);
    shmem_team_sync(x);
    shmem_team_sync(y);
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
