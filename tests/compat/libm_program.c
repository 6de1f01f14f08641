/* An OpenSHMEM program that uses the C math library, built with rdsmcc and no -lm of its own. */
#include <math.h>
#include <shmem.h>
#include <stdio.h>

static double value;

int main(int argc, char **argv) {
  (void)argv;
  shmem_init();
  /* Values known only at run time, so the compiler cannot fold the calls away. */
  value = sqrt((double)(argc + 15));
  long double cube = powl((long double)(argc + 1), 3.0L);
  shmem_barrier_all();
  double got = shmem_double_g(&value, 0);
  int ok = got == 4.0 && cube == 8.0L;
  if (!ok) printf("PE %d: sqrt gave %g, powl gave %Lg\n", shmem_my_pe(), got, cube);
  else if (shmem_my_pe() == 0) printf("libm_program: ok\n");
  shmem_finalize();
  return ok ? 0 : 1;
}
