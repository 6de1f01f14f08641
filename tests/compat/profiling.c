/* The profiling interface: a tool defines shmem_X, counts the call and forwards to pshmem_X. */
#include <pshmem.h>
#include <shmem.h>
#include <stdio.h>

static int barriers, puts_seen;

/* Interposed routines of the "tool". */
void shmem_barrier_all(void) {
  barriers++;
  pshmem_barrier_all();
}
void shmem_long_put(long *dest, const long *source, size_t nelems, int pe) {
  puts_seen++;
  pshmem_long_put(dest, source, nelems, pe);
}

static long box[4];

int main(void) {
  shmem_init();
  shmem_pcontrol(1);
  int me = shmem_my_pe(), n = shmem_n_pes();
  long v[4] = {me, me, me, me};
  shmem_long_put(box, v, 4, (me + 1) % n);
  shmem_barrier_all();
  int ok = box[3] == (me + n - 1) % n && barriers == 1 && puts_seen == 1;
  /* Calls made inside the library go to the real routines, not back to the tool. */
  pshmem_barrier_all();
  ok = ok && barriers == 1;
  printf("PE %d: profiling %s\n", me, ok ? "ok" : "FAILED");
  shmem_finalize();
  return ok ? 0 : 1;
}
