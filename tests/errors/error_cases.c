/* Programs that misuse OpenSHMEM, one per argv[1]; each must end the job with one clear line. */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long target;

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "before_init") == 0) {
    shmem_long_p(&target, 1, 0);
    return 0;
  }
  if (strcmp(mode, "reinit_after_finalize") == 0) {
    shmem_init();
    shmem_finalize();
    shmem_init(); /* ends the process with one line */
    return 0;
  }
  shmem_init();
  int me = shmem_my_pe();
  long *heap = shmem_malloc(64);
  long local = 0;
  if (strcmp(mode, "early_return") == 0) {
    if (me == 1) return 0; /* its implicit finalize meets PE 0's barrier */
    shmem_barrier_all();
  } else if (strcmp(mode, "bad_pe") == 0) {
    shmem_long_p(&target, 1, 7);
  } else if (strcmp(mode, "negative_pe") == 0) {
    shmem_long_g(heap, -1);
  } else if (strcmp(mode, "heap_overrun") == 0) { /* with SHMEM_DEBUG=1 */
    char *next = shmem_malloc(64), big[128] = {0};
    shmem_barrier_all();
    if (me == 0) shmem_putmem(heap, big, sizeof big, 1); /* heap holds 64 bytes: the rest would hit next */
    shmem_barrier_all();
    shmem_free(next);
  } else if (strcmp(mode, "heap_freed") == 0) { /* with SHMEM_DEBUG=1 */
    long *gone = shmem_malloc(64);
    shmem_free(gone);
    if (me == 0) shmem_long_p(gone, 1, 1);
    shmem_barrier_all();
  } else if (strcmp(mode, "const_source") == 0) {
    static const long table[4] = {1, 2, 3, 4}; /* read-only data: not symmetric */
    printf("%ld\n", shmem_long_g(&table[me % 4], 0));
  } else if (strcmp(mode, "not_symmetric") == 0) {
    shmem_long_put(&local, heap, 1, 0);
  } else if (strcmp(mode, "out_of_range") == 0) {
    static char big[1];
    shmem_putmem(heap, big, (size_t)1 << 40, 0);
  } else if (strcmp(mode, "misaligned") == 0) {
    shmem_long_atomic_add((long *)((char *)heap + 4), 1, 0);
  } else if (strcmp(mode, "reserved_put") == 0) { /* heap is the first block: before it lies the teams' scratch */
    shmem_long_put(heap - 3, heap, 4, (me + 1) % shmem_n_pes());
  } else if (strcmp(mode, "reserved_iput") == 0) { /* a negative stride from the first block reaches the same */
    const long v[4] = {1, 2, 3, 4};
    shmem_long_iput(heap, v, -1, 1, 4, (me + 1) % shmem_n_pes());
  } else if (strcmp(mode, "iput_huge_stride") == 0) {
    const long v[4] = {1, 2, 3, 4};
    shmem_long_iput(heap, v, (ptrdiff_t)1 << 40, 1, 4, (me + 1) % shmem_n_pes());
  } else if (strcmp(mode, "iget_huge_stride") == 0) {
    long v[4];
    shmem_long_iget(v, heap, 1, (ptrdiff_t)1 << 40, 4, (me + 1) % shmem_n_pes());
  } else if (strcmp(mode, "signal_not_symmetric") == 0) {
    uint64_t sig = 0;
    shmem_long_put_signal(heap, &local, 1, &sig, 1, SHMEM_SIGNAL_SET, (me + 1) % shmem_n_pes());
  } else if (strcmp(mode, "signal_misaligned") == 0) {
    shmem_long_put_signal(heap, &local, 1, (uint64_t *)((char *)(heap + 2) + 4), 1, SHMEM_SIGNAL_SET, 0);
  } else if (strcmp(mode, "signal_fetch_stack") == 0) {
    uint64_t sig = 0;
    printf("%llu\n", (unsigned long long)shmem_signal_fetch(&sig));
  } else if (strcmp(mode, "signal_add_stack") == 0) {
    uint64_t sig = 0;
    shmem_signal_add(&sig, 1, 0);
  } else if (strcmp(mode, "lock_not_symmetric") == 0) {
    shmem_set_lock(&local);
  } else if (strcmp(mode, "test_lock_not_symmetric") == 0) {
    printf("%d\n", shmem_test_lock(&local));
  } else if (strcmp(mode, "wait_not_symmetric") == 0) {
    shmem_long_wait_until(&local, SHMEM_CMP_EQ, 1); /* no peer can set it: it hung, unnamed */
  } else if (strcmp(mode, "test_any_not_symmetric") == 0) {
    long flags[4] = {0, 0, 0, 0};
    printf("%zu\n", shmem_long_test_any(flags, 4, NULL, SHMEM_CMP_EQ, 1));
  } else if (strcmp(mode, "test_some_null_indices") == 0) {
    printf("%zu\n", shmem_long_test_some(heap, 4, NULL, NULL, SHMEM_CMP_EQ, 0));
  } else if (strcmp(mode, "put_to_dsm") == 0) {
    long *dsm = rdsm_dsm_alloc(1 << 20);
    shmem_long_put(dsm, &local, 1, (me + 1) % shmem_n_pes());
  } else if (strcmp(mode, "pe_quiet_bad_pe") == 0) {
    const int targets[2] = {0, 5};
    shmem_pe_quiet(targets, 2);
  } else if (strcmp(mode, "ibget_bad_pe") == 0) {
    shmem_long_ibget(&local, heap, 1, 1, 1, 1, 9);
  } else if (strcmp(mode, "session_null_config") == 0) {
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, SHMEM_CTX_SESSION_TOTAL_OPS);
  } else if (strcmp(mode, "bad_cmp") == 0) {
    shmem_long_wait_until(heap, 99, 0);
  } else if (strcmp(mode, "bad_free") == 0) {
    shmem_free(&local);
  } else if (strcmp(mode, "global_exit") == 0) {
    if (me == 1) shmem_global_exit(3);
    shmem_barrier_all(); /* PE 0 waits here until it is ended */
    shmem_barrier_all();
  } else if (strcmp(mode, "killed") == 0 || strcmp(mode, "killed_last") == 0) {
    if (me == (strcmp(mode, "killed") == 0 ? 1 : shmem_n_pes() - 1)) raise(SIGKILL);
    for (;;) shmem_barrier_all(); /* PE 0 waits in a barrier for a PE that is gone */
  } else if (strcmp(mode, "segv") == 0) {
    shmem_barrier_all();
    if (me == 1) raise(SIGSEGV); /* a crash in the program: the launcher names it */
    for (;;) shmem_barrier_all();
  } else if (strcmp(mode, "clear_unheld") == 0) {
    static long lock = 0;
    if (shmem_my_pe() == 0) shmem_clear_lock(&lock); /* nobody set it */
    shmem_barrier_all();
  } else if (strcmp(mode, "set_twice") == 0) {
    static long lock = 0;
    if (shmem_my_pe() == 1) {
      shmem_set_lock(&lock);
      shmem_set_lock(&lock);
    }
    shmem_barrier_all();
  } else if (strncmp(mode, "ctx_", 4) == 0) { /* a destroyed context: destroyed again or used */
    shmem_team_t team = SHMEM_TEAM_WORLD;
    shmem_ctx_t ctx;
    if (strcmp(mode, "ctx_after_team_destroy") == 0)
      shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, &team);
    if (shmem_team_create_ctx(team, 0, &ctx) != 0) return 1;
    if (strcmp(mode, "ctx_after_team_destroy") == 0)
      shmem_team_destroy(team);
    else
      shmem_ctx_destroy(ctx);
    if (strcmp(mode, "ctx_destroy_twice") == 0) shmem_ctx_destroy(ctx);
    if (strcmp(mode, "ctx_quiet_after_destroy") == 0) shmem_ctx_quiet(ctx);
    shmem_ctx_long_p(ctx, &target, 1, (me + 1) % shmem_n_pes()); /* ctx_put_after_destroy, ctx_after_team_destroy */
    shmem_barrier_all();
  } else if (strncmp(mode, "team_", 5) == 0) { /* a destroyed team: destroyed again or used */
    shmem_team_t team;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, &team);
    shmem_team_destroy(team);
    if (strcmp(mode, "team_destroy_twice") == 0) shmem_team_destroy(team);
    if (strcmp(mode, "team_reduce_after_destroy") == 0) shmem_long_sum_reduce(team, heap, heap + 1, 1);
    shmem_team_sync(team); /* team_sync_after_destroy */
    shmem_barrier_all();
  } else if (strcmp(mode, "free_apart") == 0 || strcmp(mode, "realloc_apart") == 0 ||
             strcmp(mode, "free_null_apart") == 0) {
    /* PEs free (or resize) different blocks, or one frees NULL: the heaps would come apart */
    long *a = shmem_malloc(64), *b = shmem_malloc(64);
    if (strcmp(mode, "free_apart") == 0) shmem_free(me == 0 ? a : b);
    else if (strcmp(mode, "free_null_apart") == 0) shmem_free(me == 1 ? NULL : a);
    else shmem_realloc(me == 0 ? a : b, 128);
    shmem_barrier_all();
  } else if (strcmp(mode, "dsm_free_apart") == 0) {
    /* PEs free different DSM blocks: the next allocation's address would differ between PEs */
    char *a = rdsm_dsm_alloc(1 << 16), *b = rdsm_dsm_alloc(1 << 16);
    rdsm_dsm_free(me == 0 ? a : b);
    shmem_barrier_all();
  } else if (strcmp(mode, "settings") == 0) {
    /* the settings under test differ between PEs (the command sets them): init ends the job */
    shmem_barrier_all();
  } else if (strcmp(mode, "exhausted") == 0) {
    void *p = shmem_malloc((size_t)1 << 40);
    long *q = shmem_malloc(1024);
    if (p != NULL || q == NULL) return 1;
    shmem_long_p(q, 42, (me + 1) % shmem_n_pes());
    shmem_barrier_all();
    if (q[0] != 42) return 1;
    if (me == 0) printf("heap usable after exhaustion\n");
  }
  shmem_finalize();
  return 0;
}
