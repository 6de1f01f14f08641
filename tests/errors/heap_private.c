/* A job whose heap the test inspects from outside: each PE fills 1 MiB of symmetric heap, says where it is,
 * waits until the file named by argv[1] exists (at most 40 s), then checks that nobody changed its data. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { bytes = 1 << 20 };

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe();
  unsigned char* heap = shmem_malloc(bytes);
  memset(heap, 0x5a + me, bytes);
  shmem_barrier_all();
  printf("ready pid=%d heap=%p\n", (int)getpid(), (void*)heap);
  fflush(stdout);
  const struct timespec pause = {0, 20 * 1000 * 1000};
  for (int i = 0; argc > 1 && i < 2000 && access(argv[1], F_OK) != 0; ++i) nanosleep(&pause, NULL);
  shmem_barrier_all();
  int intact = 1;
  for (int i = 0; i < bytes; ++i) intact &= heap[i] == (unsigned char)(0x5a + me);
  printf("PE %d: heap %s\n", me, intact ? "intact" : "CHANGED");
  shmem_free(heap);
  shmem_finalize();
  return intact ? 0 : 1;
}
