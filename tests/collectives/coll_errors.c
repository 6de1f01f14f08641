/* Misused collectives, one per argv[1]; each must end the job with one clear line naming the call. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long src[4], dst[4];
static long psync[SHMEM_SYNC_SIZE];

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strncmp(mode, "nelems_differ_small_", 20) == 0) setenv("SHMEM_DEBUG", "1", 1); /* every size compared */
  shmem_init();
  int n = shmem_n_pes();
  shmem_barrier_all();
  if (strcmp(mode, "bad_root") == 0) {
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, n); /* roots are 0..n-1 */
  } else if (strcmp(mode, "bad_root_legacy") == 0) {
    shmem_broadcast64(dst, src, 4, -1, 0, 0, n, psync);
  } else if (strcmp(mode, "private_source") == 0) {
    /* A member passes a private buffer as the source of a large broadcast: on one host members copy the root's
     * symmetric source through their own source argument, which must be the same symmetric object (it is
     * refused at the call's entry, as every collective's buffers are). */
    enum { bytes = 1 << 17 };
    char *priv = malloc(bytes); /* not a global or static variable: those are symmetric */
    char *sym = shmem_malloc(bytes), *out = shmem_malloc(bytes);
    shmem_broadcastmem(SHMEM_TEAM_WORLD, out, shmem_my_pe() == 0 ? sym : priv, bytes, 0);
  } else if (strcmp(mode, "collect_bounded") == 0 || strcmp(mode, "collect_bounded_fits") == 0) {
    /* Each PE contributes 2 longs; dest holds 4 longs: enough for 2 PEs, too small from 3 on */
    const int ok = shmemx_collectmem_bounded(SHMEM_TEAM_WORLD, dst, sizeof dst, src, 2 * sizeof(long));
    if (strcmp(mode, "collect_bounded_fits") == 0 && ok == 0) {
      shmem_finalize();
      return 0;
    }
  } else if (strcmp(mode, "bad_active_set") == 0) {
    shmem_barrier(0, 1, n, psync); /* PEs 0, 2, .., 2(n-1): past the world */
  } else if (strcmp(mode, "longdouble_sum") == 0) { /* refused only where PEs' long double formats differ */
    static long double ld_src[2] = {1.5L, 2.5L}, ld_dst[2];
    shmem_longdouble_sum_reduce(SHMEM_TEAM_WORLD, ld_dst, ld_src, 2);
    shmem_barrier_all();
    printf("PE %d: long double sum %.1Lf\n", shmem_my_pe(), ld_dst[0]);
  } else if (strcmp(mode, "ctx_pe_outside_team") == 0) {
    shmem_team_t t;
    shmem_ctx_t ctx;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &t); /* PE 0 alone */
    if (shmem_my_pe() == 0) {
      shmem_team_create_ctx(t, 0, &ctx);
      shmem_ctx_long_p(ctx, dst, 1, 1); /* team PE 1 does not exist */
    }
    shmem_barrier_all();
    shmem_barrier_all();
  } else if (strcmp(mode, "broadcast_negative_count") == 0) { /* nelems -5 converted to size_t */
    int nelems = -5;
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    shmem_broadcast64(dst, src, nelems, 0, 0, 0, n, psync);
  } else if (strcmp(mode, "reduce_size_max") == 0) {
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, SIZE_MAX);
  } else if (strcmp(mode, "to_all_negative_count") == 0) {
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    shmem_long_sum_to_all(dst, src, -5, 0, 0, n, pwrk, psync);
  } else if (strcmp(mode, "reduce_too_big") == 0) { /* 8 TiB: refused before any buffer is allocated */
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, (size_t)1 << 40);
  } else if (strcmp(mode, "inscan_too_big") == 0) {
    shmem_long_sum_inscan(SHMEM_TEAM_WORLD, dst, src, (size_t)1 << 40);
  } else if (strcmp(mode, "broadcast_too_big") == 0) {
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, (size_t)1 << 40, 0);
  } else if (strcmp(mode, "reduce_null_source") == 0) {
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, NULL, 4);
  } else if (strcmp(mode, "broadcast_null_dest") == 0) {
    shmem_long_broadcast(SHMEM_TEAM_WORLD, NULL, src, 4, 0);
  } else if (strcmp(mode, "broadcastmem_null_source") == 0) {
    shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, NULL, 32, 0);
  } else if (strcmp(mode, "inscan_stack_dest") == 0) {
    long local[4];
    shmem_long_sum_inscan(SHMEM_TEAM_WORLD, local, src, 4);
  } else if (strcmp(mode, "alltoalls_negative_stride") == 0) {
    long *heap = shmem_malloc(64 * sizeof(long));
    shmem_long_alltoalls(SHMEM_TEAM_WORLD, heap + 32, heap, -1, 1, 2);
  } else if (strcmp(mode, "alltoalls_huge_stride") == 0) {
    long *heap = shmem_malloc(64 * sizeof(long));
    shmem_long_alltoalls(SHMEM_TEAM_WORLD, heap + 32, heap, (ptrdiff_t)1 << 40, 1, 2);
  } else if (strcmp(mode, "alltoall_past_block") == 0) { /* with SHMEM_DEBUG=1: 2 PEs' blocks of 64 longs */
    long *heap = shmem_malloc(64 * sizeof(long));
    shmem_long_alltoall(SHMEM_TEAM_WORLD, heap + 32, heap, 64);
  } else if (strncmp(mode, "nelems_differ_", 14) == 0) {
    /* PE i passes (1 + i) * 16384 elements, 128 KiB or more (small: 1 + i, with SHMEM_DEBUG), within every
     * buffer: members would write over each other's blocks */
    long *big_src = shmem_malloc(16 * 16384 * sizeof(long)), *big_dst = shmem_malloc(16 * 16384 * sizeof(long));
    const int small = strncmp(mode + 14, "small_", 6) == 0;
    const size_t k = (1 + (size_t)shmem_my_pe()) * (small ? 1 : 16384);
    const char *what = mode + 14 + (small ? 6 : 0);
    if (strcmp(what, "fcollect") == 0) shmem_long_fcollect(SHMEM_TEAM_WORLD, big_dst, big_src, k);
    else if (strcmp(what, "alltoall") == 0) shmem_long_alltoall(SHMEM_TEAM_WORLD, big_dst, big_src, k);
    else if (strcmp(what, "reduce") == 0) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, big_dst, big_src, k);
    else if (strcmp(what, "broadcast") == 0) shmem_long_broadcast(SHMEM_TEAM_WORLD, big_dst, big_src, k, 0);
    shmem_barrier_all(); /* the sizes are compared at each member's exit: all have left by here */
  } else if (strcmp(mode, "broadcast_garbage_team") == 0) { /* no team lives there: reading it would crash */
    shmem_long_broadcast((shmem_team_t)(uintptr_t)0x1234, dst, src, 4, 0);
  } else if (strcmp(mode, "reduce_reserved_dest") == 0) { /* the heap's first block: before it, teams' scratch */
    long *heap = shmem_malloc(64 * sizeof(long));
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, heap - 8, heap, 4);
  } else {
    fprintf(stderr, "unknown mode '%s'\n", mode);
    shmem_finalize();
    return 2;
  }
  printf("PE %d: the misuse was not caught\n", shmem_my_pe());
  shmem_finalize();
  return 0;
}
