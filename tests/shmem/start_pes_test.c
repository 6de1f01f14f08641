/* The deprecated start_pes: the library is finalized when the program exits, with no shmem_finalize call
 * (rdsmrun ends a job whose PE exits unfinalized with status 1). With an argument, the program finalizes
 * itself as well, as old programs often did: the exit then has nothing left to do. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  start_pes(0);
  const int me = _my_pe(), n = _num_pes();
  long* box = (long*)shmalloc(sizeof(long));
  if (box == NULL) {
    fprintf(stderr, "start_pes: shmalloc failed\n");
    return 1;
  }
  *box = -1;
  shmem_barrier_all();
  shmem_long_p(box, me, (me + 1) % n);
  shmem_barrier_all();
  if (*box != (me + n - 1) % n) {
    fprintf(stderr, "start_pes: PE %d received %ld, expected %d\n", me, *box, (me + n - 1) % n);
    return 1;
  }
  shmem_barrier_all();
  shfree(box);
  if (argc > 1 && strcmp(argv[1], "finalize") == 0) shmem_finalize();
  return 0; /* implicitly finalized at exit */
}
