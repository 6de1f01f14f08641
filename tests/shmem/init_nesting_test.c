/* OpenSHMEM 1.6 nested initialization, whole lifecycle in C: shmem_query_initialized before shmem_init, between
 * nested calls and after the last shmem_finalize; a finalize that leaves an initialization unmatched completes
 * pending puts and synchronizes (it is still the collective shmem_finalize), and the library keeps working. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long g_box;

#define CHECK(cond, ...)                                                    \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "init_nesting: %s failed: ", #cond);                  \
      fprintf(stderr, __VA_ARGS__);                                         \
      fputc('\n', stderr);                                                  \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

static int initialized(void) {
  int flag = -1;
  shmem_query_initialized(&flag);
  return flag;
}

int main(void) {
  CHECK(initialized() == 0, "before shmem_init");
  shmem_finalize(); /* nothing to finalize: no effect */
  CHECK(initialized() == 0, "after a finalize without init");

  int provided = -1;
  CHECK(shmem_init_thread(SHMEM_THREAD_SERIALIZED, &provided) == 0, "first init");
  const int first_level = provided;
  CHECK(initialized() != 0, "after the first init");
  shmem_init(); /* nested: counted */
  CHECK(shmem_init_thread(SHMEM_THREAD_SINGLE, &provided) == 0 && provided == first_level,
        "a nested init_thread keeps the level of the first (%d, got %d)", first_level, provided);

  const int me = shmem_my_pe(), n = shmem_n_pes();
  for (int round = 1; round <= 2; ++round) {
    /* A non-blocking put, then a finalize that is not the last: it must complete the put and wait for every PE,
     * so the value is in place when it returns, with no other synchronization. */
    const long value = 1000L * round + me;
    shmem_long_put_nbi(&g_box, &value, 1, (me + 1) % n);
    shmem_finalize();
    CHECK(initialized() != 0, "after nested finalize %d", round);
    const long want = 1000L * round + (me + n - 1) % n;
    CHECK(shmem_long_atomic_fetch(&g_box, me) == want, "round %d: box %ld, want %ld", round, g_box, want);
    shmem_barrier_all(); /* every PE read its box before the next round writes it */
  }
  shmem_finalize(); /* matches the first init: ends the library */
  CHECK(initialized() == 0, "after the last finalize");
  shmem_finalize(); /* again: no effect */
  if (me == 0) printf("init_nesting: ok on %d PEs\n", n);
  return 0;
}
