/* The demo job: every PE puts, gets, updates atomics and signals its neighbour, and checks the result. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024

static long ring[N];         /* a global variable: symmetric without allocation */
static long hits;            /* counter on PE 0, updated by every PE atomically */
static uint64_t arrived;     /* signal: set by the left neighbour after its data */

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), npes = shmem_n_pes();
  int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  long *heap = shmem_malloc(N * sizeof(long));
  long src[N];
  int errors = 0;

  /* 1. put/get: write my values into my right neighbour's heap block, read them back. */
  for (int i = 0; i < N; i++) src[i] = me * 100000L + i;
  shmem_long_put(heap, src, N, right);
  shmem_barrier_all();
  for (int i = 0; i < N; i++) errors += heap[i] != left * 100000L + i;
  long back[N];
  shmem_long_get(back, heap, N, right);
  for (int i = 0; i < N; i++) errors += back[i] != src[i];

  /* 2. atomics: every PE adds its number + 1 to the counter on PE 0. */
  for (int k = 0; k < 1000; k++) shmem_long_atomic_add(&hits, me + 1, 0);
  shmem_barrier_all();
  long expect = 1000L * npes * (npes + 1) / 2;
  long total = shmem_long_atomic_fetch(&hits, 0);
  errors += total != expect;

  /* 3. put with signal into a global: data, then a signal the receiver waits for. */
  shmem_long_put_signal(ring, src, N, &arrived, 1, SHMEM_SIGNAL_SET, right);
  shmem_signal_wait_until(&arrived, SHMEM_CMP_EQ, 1);
  for (int i = 0; i < N; i++) errors += ring[i] != left * 100000L + i;

  int all_errors = 0;
  static int err_sum;
  shmem_int_atomic_add(&err_sum, errors, 0);
  shmem_barrier_all();
  if (me == 0) {
    all_errors = shmem_int_atomic_fetch(&err_sum, 0);
    printf("demo: %d PEs, put/get %d longs per PE, %ld atomic adds (total %ld, expected %ld), put_signal on "
           "globals: %s\n",
           npes, N, 1000L * npes, total, expect, all_errors == 0 ? "all results correct" : "ERRORS");
  }
  shmem_free(heap);
  shmem_finalize();
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
