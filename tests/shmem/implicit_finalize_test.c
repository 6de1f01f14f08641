/* A program may end without shmem_finalize: a normal exit finalizes the library, collectively (start_pes
 * never needs a finalize; programs that call shmem_init often leave it out too). rdsmrun ends a job whose PE
 * exits unfinalized with status 1. argv[1]: "start_pes" or "init", how the program starts; then "finalize": the
 * program also finalizes itself, and the exit has nothing left to do; or "fork": each PE first forks a child
 * that ends with exit(0), which must leave the parent's PE alone (no finalize, no barrier it cannot finish). */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const int deprecated = argc > 1 && strcmp(argv[1], "start_pes") == 0;
  if (deprecated)
    start_pes(0);
  else
    shmem_init();
  const int me = deprecated ? _my_pe() : shmem_my_pe(), n = deprecated ? _num_pes() : shmem_n_pes();
  long* box = (long*)(deprecated ? shmalloc(sizeof(long)) : shmem_malloc(sizeof(long)));
  if (box == NULL) {
    fprintf(stderr, "implicit finalize: the symmetric allocation failed\n");
    return 1;
  }
  if (argc > 2 && strcmp(argv[2], "fork") == 0) {
    const pid_t child = fork();
    if (child == 0) exit(0); /* runs the exit handlers the child inherited */
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "implicit finalize: PE %d's forked child did not end with status 0\n", me);
      return 1;
    }
  }
  *box = -1;
  shmem_barrier_all();
  shmem_long_p(box, me, (me + 1) % n);
  shmem_barrier_all();
  if (*box != (me + n - 1) % n) {
    fprintf(stderr, "implicit finalize: PE %d received %ld, expected %d\n", me, *box, (me + n - 1) % n);
    return 1;
  }
  shmem_barrier_all();
  if (argc > 2 && strcmp(argv[2], "finalize") == 0) shmem_finalize();
  return 0; /* finalized at exit unless finalized above */
}
