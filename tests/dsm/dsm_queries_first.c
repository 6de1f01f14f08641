/* The DSM's calls that are not collective (rdsm_dsm_page_size, _home, _acquire, _release, _stats), made by
 * PE 0 alone before any collective DSM call, must not start the DSM (its start waits for every PE: the job
 * hung). Then every PE starts it with an allocation, and the answers agree with the started DSM's. */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  const int me = shmem_my_pe();
  static size_t early_page;
  int status = 0;
  if (me == 0) {
    early_page = rdsm_dsm_page_size();
    rdsm_dsm_acquire();
    rdsm_dsm_release();
    rdsm_dsm_stats_t s;
    rdsm_dsm_stats(&s);
    if (rdsm_dsm_home(&early_page) != -1) {
      fprintf(stderr, "PE 0: a global's home before the DSM started is %d, expected -1\n", rdsm_dsm_home(&early_page));
      status = 1;
    }
  }
  shmem_barrier_all();
  long *p = rdsm_dsm_alloc_placed(4096, RDSM_DSM_ON_PE, 0);
  if (p == NULL || rdsm_dsm_home(p) != 0) {
    fprintf(stderr, "PE %d: allocation %p with home %d, expected home 0\n", me, (void *)p, p ? rdsm_dsm_home(p) : -2);
    status = 1;
  }
  if (me == 0 && early_page != rdsm_dsm_page_size()) {
    fprintf(stderr, "PE 0: page size %zu before the start, %zu after\n", early_page, rdsm_dsm_page_size());
    status = 1;
  }
  rdsm_dsm_free(p);
  shmem_finalize();
  return status;
}
