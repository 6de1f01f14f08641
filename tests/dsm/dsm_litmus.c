/* Memory-model litmus tests on DSM pages in sequential consistency mode, repeated many times; any
 * forbidden outcome fails. x and y live on different pages with different homes, so every access is a
 * protocol exchange. Usage: dsm_litmus mp|sb|iriw|corr ITERATIONS */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile long *x, *y;
static int me, npes;
static int *results; /* symmetric: each PE's reads of this iteration, gathered on PE 0 */

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* A varying delay of 0-500 us, of the order of a protocol exchange, different per PE and iteration, so
 * that the PEs' accesses overlap in every order. */
static void jitter(unsigned iteration) {
  const unsigned h = (iteration * 2654435761u) ^ ((unsigned)me * 40503u);
  const double until = now_us() + (double)((h >> 8) % 500);
  while (now_us() < until) {
  }
}

static void publish(int slot, int value) { shmem_int_p(&results[slot], value, 0); }

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: dsm_litmus mp|sb|iriw|corr ITERATIONS\n");
    return 2;
  }
  const char *test = argv[1];
  const unsigned iterations = (unsigned)atoi(argv[2]);
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  const size_t page = rdsm_dsm_page_size();
  char *base = rdsm_dsm_alloc_placed(2 * page, RDSM_DSM_CYCLIC, page);
  x = (volatile long *)base;
  y = (volatile long *)(base + page);
  results = shmem_calloc(8, sizeof(int));
  const int need = strcmp(test, "iriw") == 0 ? 4 : 2;
  if (npes < need) {
    if (me == 0) fprintf(stderr, "dsm_litmus %s needs %d PEs\n", test, need);
    shmem_finalize();
    return 2;
  }
  long outcomes[16] = {0};
  long forbidden = 0;
  for (unsigned it = 0; it < iterations; ++it) {
    if (me == 0) {
      *x = 0;
      *y = 0;
    }
    rdsm_dsm_barrier();
    jitter(it);
    int r[4] = {0, 0, 0, 0};
    if (strcmp(test, "mp") == 0) { /* message passing: data then flag */
      if (me == 0) {
        *x = 1;
        *y = 1;
      } else if (me == 1) {
        r[0] = (int)*y;
        r[1] = (int)*x;
        publish(0, r[0]);
        publish(1, r[1]);
      }
    } else if (strcmp(test, "sb") == 0) { /* store buffering */
      if (me == 0) {
        *x = 1;
        publish(0, (int)*y);
      } else if (me == 1) {
        *y = 1;
        publish(1, (int)*x);
      }
    } else if (strcmp(test, "iriw") == 0) { /* independent reads of independent writes */
      if (me == 0) *x = 1;
      if (me == 1) *y = 1;
      if (me == 2) {
        r[0] = (int)*x;
        r[1] = (int)*y;
        publish(0, r[0]);
        publish(1, r[1]);
      }
      if (me == 3) {
        r[2] = (int)*y;
        r[3] = (int)*x;
        publish(2, r[2]);
        publish(3, r[3]);
      }
    } else if (strcmp(test, "corr") == 0) { /* coherence of read-read: no going back in time */
      if (me == 0) {
        *x = 1;
        *x = 2;
      } else if (me == 1) {
        r[0] = (int)*x;
        r[1] = (int)*x;
        publish(0, r[0]);
        publish(1, r[1]);
      }
    } else {
      if (me == 0) fprintf(stderr, "unknown litmus test %s\n", test);
      shmem_finalize();
      return 2;
    }
    shmem_barrier_all();
    if (me == 0) {
      const int *v = results;
      int bad = 0, code = 0;
      if (strcmp(test, "mp") == 0) {
        bad = v[0] == 1 && v[1] == 0;
        code = v[0] * 2 + v[1];
      } else if (strcmp(test, "sb") == 0) {
        bad = v[0] == 0 && v[1] == 0;
        code = v[0] * 2 + v[1];
      } else if (strcmp(test, "iriw") == 0) {
        bad = v[0] == 1 && v[1] == 0 && v[2] == 1 && v[3] == 0;
        code = v[0] * 8 + v[1] * 4 + v[2] * 2 + v[3];
      } else {
        bad = v[0] > v[1];
        code = v[0] * 3 + v[1];
      }
      outcomes[code & 15]++;
      if (bad) {
        forbidden++;
        fprintf(stderr, "iteration %u: forbidden outcome %d %d %d %d\n", it, v[0], v[1], v[2], v[3]);
      }
      memset(results, 0, 8 * sizeof(int));
    }
    shmem_barrier_all();
  }
  if (me == 0) {
    printf("%s: %u iterations, %ld forbidden; outcomes:", test, iterations, forbidden);
    for (int c = 0; c < 16; ++c)
      if (outcomes[c] != 0) printf(" [%d]=%ld", c, outcomes[c]);
    printf("\n");
  }
  rdsm_dsm_free(base);
  shmem_free(results);
  shmem_finalize();
  return forbidden != 0;
}
