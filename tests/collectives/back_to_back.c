/* Collectives called back to back on one team into the same dest, with no barrier between them: the second
   one's result must not be overwritten by late data of the first (a member that returns early starts the
   next collective while others may still receive the previous one). Each pair runs many times with
   changing roots and sizes; only the second result is checked, between two barriers (other PEs may write dst
   as soon as they have passed the second). Prints "back_to_back: ok". */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN (64 * 1024) /* longs per PE's block: past every threshold of the algorithms across hosts */

static int failures;

static void expect(const char *what, long got, long want, size_t i) {
  if (got != want && failures++ < 5)
    fprintf(stderr, "PE %d: %s: element %zu is %ld, expected %ld\n", shmem_my_pe(), what, i, got, want);
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long *src = shmem_malloc(sizeof(long) * MAXN * (size_t)n);
  long *dst = shmem_malloc(sizeof(long) * MAXN * (size_t)n);
  const size_t sizes[] = {1, 7, 300, 4096, MAXN};
  for (int round = 0; round < 40; ++round) {
    const size_t nelems = sizes[round % 5];
    const int root = round % n;
    for (size_t i = 0; i < nelems * (size_t)n; ++i) src[i] = (long)(me * 1000003 + round * 101 + (long)i);
    shmem_barrier_all();
    /* broadcast then fcollect into the same dest */
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, nelems * (size_t)n, root);
    shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, nelems);
    shmem_barrier_all();
    for (int pe = 0; pe < n; ++pe)
      for (size_t i = 0; i < nelems; ++i)
        expect("fcollect after broadcast", dst[(size_t)pe * nelems + i], pe * 1000003 + round * 101 + (long)i,
               (size_t)pe * nelems + i);
    shmem_barrier_all(); /* everyone has read dst before the next pair writes it */
    /* sum-reduce then alltoall into the same dest */
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, nelems * (size_t)n);
    shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, nelems);
    shmem_barrier_all();
    for (int pe = 0; pe < n; ++pe)
      for (size_t i = 0; i < nelems; ++i)
        expect("alltoall after reduce", dst[(size_t)pe * nelems + i],
               pe * 1000003 + round * 101 + (long)((size_t)me * nelems + i), (size_t)pe * nelems + i);
    shmem_barrier_all(); /* everyone has read dst before the next pair writes it */
    /* fcollect then broadcast, alltoall then sum-reduce */
    shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, nelems);
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, nelems, (root + 1) % n);
    shmem_barrier_all();
    for (size_t i = 0; i < nelems; ++i)
      expect("broadcast after fcollect", dst[i], ((root + 1) % n) * 1000003 + round * 101 + (long)i, i);
    shmem_barrier_all(); /* everyone has read dst before the next pair writes it */
    shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, nelems);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, nelems);
    shmem_barrier_all();
    for (size_t i = 0; i < nelems; ++i) {
      long want = 0;
      for (int pe = 0; pe < n; ++pe) want += pe * 1000003 + round * 101 + (long)i;
      expect("sum-reduce after alltoall", dst[i], want, i);
    }
    shmem_barrier_all();
  }
  const int all = failures;
  shmem_barrier_all();
  shmem_free(src);
  shmem_free(dst);
  if (all == 0) printf("back_to_back: ok (PE %d)\n", me);
  shmem_finalize();
  return all == 0 ? 0 : 1;
}
