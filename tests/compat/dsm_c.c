/* rdsm's own C face, built from an installed prefix: a DSM block written by PE 0 and read by every PE. */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  long *v = rdsm_dsm_alloc(1024 * sizeof(long));
  if (shmem_my_pe() == 0)
    for (long i = 0; i < 1024; i++) v[i] = i * 3;
  rdsm_dsm_barrier();
  long wrong = 0;
  for (long i = 0; i < 1024; i++) wrong += v[i] != i * 3;
  if (wrong != 0) printf("PE %d: %ld wrong values\n", shmem_my_pe(), wrong);
  rdsm_dsm_barrier();
  if (wrong == 0 && shmem_my_pe() == 0) printf("dsm_c: ok\n");
  rdsm_dsm_free(v);
  shmem_finalize();
  return wrong != 0;
}
