/* A job whose PE 2 is killed after start-up while the others wait in a barrier: the launcher (rdsmrun or
 * srun) must end the job and name that PE. */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  if (shmem_n_pes() > 2 && shmem_my_pe() == 2) raise(SIGKILL);
  shmem_barrier_all();
  printf("kill_pe: PE %d passed the barrier; PE 2 should have ended the job\n", shmem_my_pe());
  shmem_finalize();
  return 1;
}
