/* RDSM_PROGRESS_SLICE: the progress thread runs with the scheduler slice asked for. Run with
 * RDSM_PROGRESS_THREAD=on RDSM_PROGRESS_SLICE=150us; looks for a thread of this process other than the
 * main one whose slice (/proc/self/task/TID/sched, se.slice) is 150 us. Where the kernel shows no per-thread
 * slice, or refuses to set one for this thread too (an emulator), it says so and passes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long long slice_of(const char *tid) {
  char path[96], line[256];
  snprintf(path, sizeof path, "/proc/self/task/%s/sched", tid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long long v = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "se.slice", 8) == 0) {
      const char *colon = strchr(line, ':');
      if (colon) v = atoll(colon + 1);
    }
  fclose(f);
  return v;
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe();
  char self[32];
  snprintf(self, sizeof self, "%d", getpid());
  const long long own = slice_of(self);
  int found = 0, failures = 0;
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0) continue;
    if (slice_of(e->d_name) == 150000) found = 1;
  }
  if (d) closedir(d);
  if (own < 0) {
    printf("PE %d: this kernel shows no per-thread slice; nothing to check\n", me);
  } else if (!found) {
    /* Under an emulator the request may not reach the kernel: then this thread cannot get one either. */
    struct { unsigned size, policy; unsigned long long flags; int nice; unsigned prio;
             unsigned long long runtime, deadline, period; } a = {0};
    a.size = sizeof a;
    a.runtime = 150000;
    if (syscall(SYS_sched_setattr, 0, &a, 0) != 0 || slice_of(self) != 150000) {
      printf("PE %d: per-thread slices cannot be set here; nothing to check\n", me);
    } else {
      printf("PE %d: no thread has the 150 us slice of RDSM_PROGRESS_SLICE\n", me);
      failures = 1;
    }
  }
  int *all = shmem_calloc(1, sizeof(int));
  shmem_barrier_all();
  shmem_int_atomic_add(all, failures, 0);
  shmem_barrier_all();
  const int total = me == 0 ? *all : 0;
  if (me == 0) printf(total ? "progress slice: FAILED\n" : "progress slice: ok\n");
  shmem_free(all);
  shmem_finalize();
  return total ? 1 : 0;
}
