/* The program's own SIGSEGV handler, installed before shmem_init, still sees the faults that are not the
 * DSM's, while DSM faults keep being served. */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static char *guard;
static size_t guard_bytes;
static volatile sig_atomic_t own_faults;

static void own_handler(int sig, siginfo_t *info, void *context) {
  (void)sig;
  (void)context;
  char *a = (char *)info->si_addr;
  if (a >= guard && a < guard + guard_bytes) {
    own_faults++;
    mprotect(guard, guard_bytes, PROT_READ | PROT_WRITE);
    return;
  }
  static const char msg[] = "own handler: unexpected fault\n";
  ssize_t n = write(2, msg, sizeof msg - 1);
  (void)n;
  _exit(3);
}

int main(void) {
  guard_bytes = (size_t)sysconf(_SC_PAGESIZE);
  guard = mmap(NULL, guard_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct sigaction sa = {0};
  sa.sa_sigaction = own_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);

  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const size_t count = 4 * rdsm_dsm_page_size() / sizeof(long) * (size_t)n;
  long *a = rdsm_dsm_alloc(count * sizeof(long));
  for (size_t i = (size_t)me; i < count; i += (size_t)n) a[i] = (long)i;
  rdsm_dsm_barrier();
  guard[0] = 'x'; /* the program's own fault, handled by its own handler */
  long bad = 0;
  for (size_t i = 0; i < count; ++i) bad += a[i] != (long)i;
  rdsm_dsm_stats_t st;
  rdsm_dsm_stats(&st);
  printf("PE %d: own handler saw %d fault(s), DSM served %lu faults, %ld wrong values\n", me, (int)own_faults,
         (unsigned long)(st.read_faults + st.write_faults), bad);
  const int ok = own_faults == 1 && guard[0] == 'x' && bad == 0 && st.read_faults + st.write_faults > 0;
  rdsm_dsm_free(a);
  shmem_finalize();
  return ok ? 0 : 1;
}
