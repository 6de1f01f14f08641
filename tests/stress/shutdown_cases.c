/* Short programs whose shutdown once failed now and then; scripts/stress.sh runs them many times.
 * Usage: shutdown_cases dsm|ctx
 *   dsm: allocate DSM memory, write it, barrier, finalize (UCX once aborted in ucp_worker_destroy).
 *   ctx: create a context, one atomic add to the next PE through it, destroy it, barrier, finalize
 *        (over TCP this once crashed in uct_tcp_iface_progress). */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static long counter;

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  int bad = 0;
  if (strcmp(mode, "dsm") == 0) {
    long *p = rdsm_dsm_alloc(4 * rdsm_dsm_page_size());
    p[me] = me + 1;
    rdsm_dsm_barrier();
    for (int pe = 0; pe < n && pe < 4; ++pe) bad |= p[pe] != pe + 1;
    rdsm_dsm_barrier();
  } else if (strcmp(mode, "ctx") == 0) {
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) != 0) {
      fprintf(stderr, "shmem_ctx_create failed\n");
      return 1;
    }
    shmem_ctx_long_atomic_add(ctx, &counter, 1, (me + 1) % n);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    bad = counter != 1;
  } else {
    fprintf(stderr, "usage: shutdown_cases dsm|ctx\n");
    return 2;
  }
  shmem_finalize();
  if (bad) fprintf(stderr, "PE %d: wrong value\n", me);
  return bad;
}
