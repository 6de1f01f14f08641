/* RDSM_WAIT_POLL=off: a PE waiting in a barrier for 1.5 s sleeps after its first millisecond instead of
 * polling, so its thread uses little CPU (with polling it would use nearly all of the 1.5 s). */
#define _GNU_SOURCE
#include <shmem.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  shmem_barrier_all();
  double before = cpu_seconds();
  if (me == 0) usleep(1500000);
  shmem_barrier_all();
  double used = cpu_seconds() - before;
  int ok = me == 0 || used < 0.5;
  if (!ok) printf("PE %d: %.2f s of CPU while waiting 1.5 s in a barrier with RDSM_WAIT_POLL=off\n", me, used);
  static int failures;
  shmem_int_atomic_add(&failures, !ok, 0);
  shmem_barrier_all();
  if (me == 0) printf("wait_cpu: %s\n", failures == 0 ? "ok" : "FAILED");
  shmem_finalize();
  return ok ? 0 : 1;
}
