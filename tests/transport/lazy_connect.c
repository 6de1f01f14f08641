/* A PE connects to a peer at its first operation to it, not to every PE at shmem_init. Run over TCP with the
 * heap reached through UCX (UCX_TLS=tcp,self RDSM_SHARE_HEAP=0) on 4 PEs: PE 0 counts its sockets after
 * init and after its first put to each other PE in turn; each new peer must add a connection. Made eagerly
 * at init, the connections would all exist (or be under way) before the first put. */
#include <dirent.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int sockets(void) {
  DIR *d = opendir("/proc/self/fd");
  if (d == NULL) return -1;
  int n = 0;
  struct dirent *e;
  char path[300], target[64];
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t len = readlink(path, target, sizeof target - 1);
    if (len > 0 && strncmp(target, "socket:", 7) == 0) ++n;
  }
  closedir(d);
  return n;
}

int main(void) {
  shmem_init();
  long *word = shmem_malloc(sizeof(long)); /* on the heap, which RDSM_SHARE_HEAP=0 leaves to UCX */
  *word = 0;
  shmem_barrier_all();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  int failures = 0;
  if (npes < 3) {
    if (me == 0) printf("lazy connect: needs 3 PEs or more\n");
    failures = 1;
  } else if (me == 0) {
    int before = sockets();
    printf("PE 0: %d sockets after init\n", before);
    for (int pe = 1; pe < npes; ++pe) {
      shmem_long_p(word, pe, pe);
      shmem_quiet();
      const int now = sockets();
      printf("PE 0: %d sockets after its first put to PE %d\n", now, pe);
      if (now <= before) {
        printf("PE 0: no new connection for PE %d: connections were made before they were needed\n", pe);
        failures = 1;
      }
      before = now;
    }
  }
  shmem_barrier_all();
  if (me > 0 && npes >= 3 && *word != me) {
    printf("PE %d: got %ld, expected %d\n", me, *word, me);
    failures = 1;
  }
  static int total;
  shmem_int_atomic_add(&total, failures, 0);
  shmem_barrier_all();
  if (me == 0) printf(total == 0 ? "lazy connect: ok\n" : "lazy connect: FAILED\n");
  shmem_free(word);
  shmem_finalize();
  return total == 0 ? 0 : 1;
}
