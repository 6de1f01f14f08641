/* Passive progress: RMA and atomics on a PE that computes without calling rdsm complete anyway (the
 * progress thread serves them), also right after a long transfer (while one thread drives the transport the
 * progress thread sleeps until it stops), and an idle PE's progress thread uses no CPU. */
#define _GNU_SOURCE
#include <shmem.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static long counter;          /* a global: reached through UCX even on shared memory */
static long gdata[512];
static char bulk[8 << 20];    /* a global as well: one long transfer through UCX */
static double compute_end;    /* PE 0's time when its compute phase ended */
static int all_failures;      /* on PE 0: failures of every PE */

static double now(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  long *heap = shmem_calloc(512, sizeof(long));
  int failures = 0;

  /* 1. PE 0 computes for 1.5 s, right after a transfer of 8 MiB whose quiet drives the transport for
   * milliseconds; every other PE works on PE 0's memory meanwhile. */
  shmem_barrier_all();
  if (me == 0) {
    shmem_putmem_nbi(bulk, bulk, sizeof bulk, n - 1);
    shmem_quiet();
    double end = now(CLOCK_MONOTONIC) + 1.5;
    volatile double x = 1;
    while (now(CLOCK_MONOTONIC) < end) x = x * 1.0000001 + 1e-9;
    compute_end = now(CLOCK_MONOTONIC);
  } else {
    long src[512], back[512];
    for (int i = 0; i < 512; i++) src[i] = me * 1000 + i;
    for (int k = 0; k < 20; k++) {
      shmem_long_atomic_fetch_add(&counter, 1, 0);
      shmem_long_put(gdata, src, 512, 0);
      shmem_long_get(back, gdata, 512, 0);
      shmem_long_put(heap, src, 512, 0);
      shmem_long_get(back, heap, 512, 0);
    }
    shmem_quiet();
    double done = now(CLOCK_MONOTONIC);
    shmem_barrier_all();
    double end = shmem_double_g(&compute_end, 0);
    if (!(done < end)) {
      printf("PE %d: operations on PE 0 finished %.3f s after PE 0 stopped computing: no passive progress\n", me,
             done - end);
      failures++;
    }
  }
  if (me == 0) shmem_barrier_all();
  shmem_barrier_all();
  if (me == 0 && counter != 20L * (n - 1)) {
    printf("PE 0: counter %ld, expected %ld\n", counter, 20L * (n - 1));
    failures++;
  }

  /* 2. An idle PE: the progress thread sleeps on the worker's event descriptor instead of polling. */
  double cpu0 = now(CLOCK_PROCESS_CPUTIME_ID);
  usleep(1000000);
  double cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  if (cpu > 0.05) {
    printf("PE %d: used %.3f s of CPU while idle for 1 s: the progress thread spins\n", me, cpu);
    failures++;
  }
  shmem_int_atomic_add(&all_failures, failures, 0);
  shmem_barrier_all();
  if (me == 0) printf("progress: %s\n", all_failures == 0 ? "ok" : "FAILED");
  shmem_free(heap);
  shmem_finalize();
  return failures == 0 ? 0 : 1;
}
