/* Sequential mode: a home whose threads all share one CPU, busy computing without a system call, still
 * serves a peer's faults on pages it holds written (the peer's waiting thread nudges it with a queued
 * SIGURG, and the home's computing thread yields to its progress thread); the program's own SIGURG handler,
 * installed before shmem_init, still gets the SIGURGs that are not rdsm's, and none of rdsm's nudges. With
 * RDSM_DSM_NUDGE=off no nudge is sent: rdsm installs no handler then, so one would reach the program's. */
#define _GNU_SOURCE
#include <dirent.h>
#include <rdsm/dsm.h>
#include <sched.h>
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { n_pages = 16 };

static volatile sig_atomic_t own_urgs, queued_urgs;

static void own_handler(int sig, siginfo_t *info, void *context) {
  (void)sig;
  (void)context;
  own_urgs++;
  if (info->si_code == SI_QUEUE) queued_urgs++; /* only rdsm's nudges come so here */
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every thread of this process (the program's and rdsm's) on the CPU the caller runs on. */
static void pin_process_to_one_cpu(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(sched_getcpu(), &set);
  DIR *d = opendir("/proc/self/task");
  if (d == NULL) return;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (e->d_name[0] != '.') sched_setaffinity((pid_t)atoi(e->d_name), sizeof set, &set);
  closedir(d);
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = own_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGURG, &sa, NULL);
  shmem_init();
  const int me = shmem_my_pe();
  static int done; /* symmetric */
  const size_t page = rdsm_dsm_page_size(), per_pe = n_pages * page / sizeof(long);
  long *a = rdsm_dsm_alloc(2 * n_pages * page); /* block placement: PE 0 homes the first half */
  if (me == 0) {
    for (size_t i = 0; i < per_pe; ++i) a[i] = (long)i * 3;
    pin_process_to_one_cpu();
  }
  shmem_barrier_all();
  int ok = 1;
  if (me == 0) {
    /* Compute until PE 1 has read every page, for 20 s at most; the loop makes no system call. */
    const double start = now_s();
    volatile double x = 1.0;
    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) == 0 && now_s() - start < 20.0) x = x * 1.0000001 + 1e-9;
    ok = done != 0;
    printf("PE 0: computed %.3f s while PE 1 read its pages%s\n", now_s() - start, ok ? "" : ": NOT SERVED");
  } else if (me == 1) {
    const double start = now_s();
    long bad = 0;
    for (int p = n_pages - 1; p >= 0; --p) /* one fault per page: last to first, no read-ahead */
      for (size_t i = (size_t)p * page / sizeof(long); i < (size_t)(p + 1) * page / sizeof(long); ++i)
        bad += a[i] != (long)i * 3;
    printf("PE 1: %d read faults on PE 0's written pages in %.3f ms, %ld wrong values\n", n_pages,
           1e3 * (now_s() - start), bad);
    ok = bad == 0;
    shmem_int_atomic_set(&done, 1, 0);
  }
  shmem_barrier_all();
  /* A SIGURG of the program's own still reaches its handler, once. */
  kill(getpid(), SIGURG);
  if (own_urgs != 1 || queued_urgs != 0) {
    printf("PE %d: the program's SIGURG handler ran %d times, %d of them for a queued signal (expected once, for "
           "its own: rdsm's nudges must not reach it)\n",
           me, (int)own_urgs, (int)queued_urgs);
    ok = 0;
  }
  rdsm_dsm_free(a);
  shmem_finalize();
  return ok ? 0 : 1;
}
