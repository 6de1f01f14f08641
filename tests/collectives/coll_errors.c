/* Misused collectives, one per argv[1]; each must end the job with one clear line naming the call. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long src[4], dst[4];
static long psync[SHMEM_SYNC_SIZE];

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  shmem_init();
  int n = shmem_n_pes();
  shmem_barrier_all();
  if (strcmp(mode, "bad_root") == 0) {
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, n); /* roots are 0..n-1 */
  } else if (strcmp(mode, "bad_root_legacy") == 0) {
    shmem_broadcast64(dst, src, 4, -1, 0, 0, n, psync);
  } else if (strcmp(mode, "private_source") == 0) {
    /* A member passes a private buffer as the source of a large broadcast: on one host members copy the root's
     * symmetric source through their own source argument, which must be the same symmetric object. */
    enum { bytes = 1 << 17 };
    char *priv = malloc(bytes); /* not a global or static variable: those are symmetric */
    char *sym = shmem_malloc(bytes), *out = shmem_malloc(bytes);
    shmem_broadcastmem(SHMEM_TEAM_WORLD, out, shmem_my_pe() == 0 ? sym : priv, bytes, 0);
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
  } else {
    fprintf(stderr, "unknown mode '%s'\n", mode);
    shmem_finalize();
    return 2;
  }
  printf("PE %d: the misuse was not caught\n", shmem_my_pe());
  shmem_finalize();
  return 0;
}
