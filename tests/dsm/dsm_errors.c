/* DSM misuse, one mode per run: each must end the job with one line naming the cause and the remedy
 * (or, for exhaustion, return NULL with one warning). Usage: dsm_errors MODE */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "base_in_use") == 0) {
    /* Occupy the address RDSM_DSM_BASE names (the test sets it to this address). */
    void *at = mmap((void *)0x300000000000ul, 2u << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                    -1, 0);
    if (at == MAP_FAILED) perror("mmap");
  }
  shmem_init();
  const size_t page = rdsm_dsm_page_size();
  if (strcmp(mode, "use_after_free") == 0) {
    volatile long *p = rdsm_dsm_alloc(page);
    rdsm_dsm_free((void *)p);
    p[0] = 1;
  } else if (strcmp(mode, "write_read_only") == 0) {
    long *p = rdsm_dsm_alloc(page);
    rdsm_dsm_advise(p, page, RDSM_DSM_READ_ONLY);
    if (shmem_my_pe() == 1) p[0] = 1;
    rdsm_dsm_barrier();
  } else if (strcmp(mode, "bad_free") == 0) {
    long *p = rdsm_dsm_alloc(2 * page);
    rdsm_dsm_free(p + 1);
  } else if (strcmp(mode, "bad_home") == 0) {
    rdsm_dsm_alloc_placed(page, RDSM_DSM_ON_PE, 9);
  } else if (strcmp(mode, "alloc_differs") == 0) {
    rdsm_dsm_alloc(page * (size_t)(1 + shmem_my_pe()));
  } else if (strcmp(mode, "advise_differs") == 0) {
    char *p = rdsm_dsm_alloc(4 * page);
    rdsm_dsm_advise(p + page * (size_t)shmem_my_pe(), page, RDSM_DSM_READ_ONLY);
  } else if (strcmp(mode, "advise_outside") == 0) {
    static char not_dsm[8192]; /* a global: outside the DSM, and at a different address in each PE under ASLR */
    (void)rdsm_dsm_alloc(page);
    rdsm_dsm_advise(not_dsm, sizeof not_dsm, RDSM_DSM_READ_ONLY);
  } else if (strcmp(mode, "unlock_unheld") == 0) {
    rdsm_dsm_lock_t *l = rdsm_dsm_lock_create();
    if (shmem_my_pe() == 1) rdsm_dsm_lock(l);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) rdsm_dsm_unlock(l); /* held by PE 1, not by PE 0 */
    shmem_barrier_all();
  } else if (strcmp(mode, "lock_twice") == 0) {
    rdsm_dsm_lock_t *l = rdsm_dsm_lock_create();
    if (shmem_my_pe() == 0) {
      rdsm_dsm_lock(l);
      rdsm_dsm_lock(l);
    }
    shmem_barrier_all();
  } else if (strcmp(mode, "lock_destroyed") == 0) {
    rdsm_dsm_lock_t *l = rdsm_dsm_lock_create();
    rdsm_dsm_lock_destroy(l);
    if (shmem_my_pe() == 1) rdsm_dsm_lock(l);
    shmem_barrier_all();
  } else if (strcmp(mode, "lock_not_symmetric") == 0) {
    static long words[8]; /* symmetric, but never a lock */
    long *local = malloc(64);
    if (shmem_my_pe() == 0) rdsm_dsm_lock((rdsm_dsm_lock_t *)local);
    if (shmem_my_pe() == 1) rdsm_dsm_lock((rdsm_dsm_lock_t *)words);
    shmem_barrier_all();
  } else if (strcmp(mode, "exhausted") == 0) {
    void *p = rdsm_dsm_alloc((size_t)1 << 30);
    void *q = rdsm_dsm_alloc(page);
    if (p == NULL && q != NULL && shmem_my_pe() == 0) printf("DSM usable after exhaustion\n");
    rdsm_dsm_free(q);
  } else {
    rdsm_dsm_barrier(); /* configuration errors surface at shmem_init or at the DSM's first use */
  }
  shmem_finalize();
  return 0;
}
