/* Built by pedantic_headers.sh under -Wall -Wextra -Wpedantic -Werror as C99 and C11: shmem.h must not warn,
 * its complex reductions included. Run as one PE, where a sum reduction returns its source. */
#include <shmem.h>
#include <complex.h>
#include <stdio.h>

int main(void) {
  static double _Complex src[2], dst[2];
  int ok;
  shmem_init();
  src[0] = 1.0 + 2.0 * _Complex_I;
  src[1] = -3.0;
  ok = shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 2) == 0 && dst[0] == src[0] && dst[1] == src[1];
  shmem_finalize();
  if (!ok) {
    printf("pedantic: the complex sum on one PE did not return its source\n");
    return 1;
  }
  printf("pedantic: ok\n");
  return 0;
}
