/* shmemx_wtime (shmemx.h): seconds that advance with the wall clock, never backwards. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <time.h>

int main(void) {
  shmem_init();
  const double t0 = shmemx_wtime();
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL);
  const double t1 = shmemx_wtime();
  int rc = 0;
  if (!(t1 - t0 >= 0.019 && t1 - t0 < 5.0)) {
    fprintf(stderr, "wtime: PE %d: 20 ms of sleep measured as %.6f s\n", shmem_my_pe(), t1 - t0);
    rc = 1;
  }
  for (int i = 0; i < 1000 && rc == 0; i++) {
    const double a = shmemx_wtime(), b = shmemx_wtime();
    if (b < a) {
      fprintf(stderr, "wtime: went backwards, %.9f then %.9f\n", a, b);
      rc = 1;
    }
  }
  shmem_finalize();
  return rc;
}
