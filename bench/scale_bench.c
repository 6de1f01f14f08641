/* scale_bench: what a job of n PEs costs each PE at start-up and shutdown. Every PE times shmem_init, a
 * first barrier_all and shmem_finalize, and reads its own resident memory and number of mappings after init;
 * PE 0 prints one CSV line per quantity with the median and the maximum over the PEs:
 *   SCALE,<n PEs>,<quantity>,<median>,<max>,<unit>
 * scripts/scaling.sh runs it at 2..64 PEs for docs/scaling.md. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* VmRSS (KiB) and the number of mappings of this process. */
static void memory(long *rss_kib, long *maps) {
  char line[512];
  *rss_kib = 0;
  *maps = 0;
  FILE *f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) *rss_kib = strtol(line + 6, NULL, 10);
  if (f) fclose(f);
  f = fopen("/proc/self/maps", "r");
  while (f && fgets(line, sizeof line, f)) ++*maps;
  if (f) fclose(f);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum { quantities = 4 };
static const char *names[quantities] = {"init", "first_barrier", "rss_after_init", "mappings"};
static const char *units[quantities] = {"ms", "ms", "KiB", "count"};

int main(void) {
  double t0 = now_ms();
  shmem_init();
  double t1 = now_ms();
  shmem_barrier_all();
  double t2 = now_ms();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long rss, maps;
  memory(&rss, &maps);
  double *all = shmem_malloc(sizeof(double) * quantities * (size_t)n);
  double *mine = shmem_malloc(sizeof(double) * quantities);
  mine[0] = t1 - t0;
  mine[1] = t2 - t1;
  mine[2] = (double)rss;
  mine[3] = (double)maps;
  shmem_fcollectmem(SHMEM_TEAM_WORLD, all, mine, sizeof(double) * quantities);
  if (me == 0) {
    double *v = malloc(sizeof(double) * (size_t)n);
    for (int q = 0; q < quantities; ++q) {
      for (int pe = 0; pe < n; ++pe) v[pe] = all[pe * quantities + q];
      qsort(v, (size_t)n, sizeof(double), cmp);
      printf("SCALE,%d,%s,%.3f,%.3f,%s\n", n, names[q], v[n / 2], v[n - 1], units[q]);
    }
    free(v);
  }
  shmem_free(all);
  shmem_free(mine);
  double t3 = now_ms();
  shmem_finalize();
  if (me == 0) printf("SCALE,%d,finalize_pe0,%.3f,%.3f,ms\n", n, now_ms() - t3, now_ms() - t3);
  return 0;
}
