/* An unmodified OpenSHMEM 1.5 C11 program: type-generic calls, globals as targets, deprecated names. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static int counter;
static double dval;
static unsigned long bits;
static long flag;
static float fbuf[8];
static int errors;

/* Counts a failed check and names it. */
#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      printf("PE %d: check failed at line %d: %s\n", shmem_my_pe(), __LINE__, #cond); \
      errors++;                                                                       \
    }                                                                                 \
  } while (0)

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
  long *lbuf = shmem_malloc(8 * sizeof(long));
  long src[8];
  float fsrc[8];
  for (int i = 0; i < 8; i++) {
    src[i] = me * 10 + i;
    fsrc[i] = (float)me + 0.5f * (float)i;
  }
  shmem_put(lbuf, src, 8, right);           /* shmem_long_put */
  shmem_put(fbuf, fsrc, 8, right);          /* shmem_float_put on a global */
  shmem_atomic_fetch_add(&counter, 2, 0);   /* shmem_int_atomic_fetch_add */
  shmem_atomic_or(&bits, 1UL << me, 0);     /* shmem_ulong_atomic_or */
  shmem_atomic_set(&dval, 1.25, right);     /* shmem_double_atomic_set */
  shmem_barrier_all();
  int left = (me + n - 1) % n;
  for (int i = 0; i < 8; i++) {
    CHECK(lbuf[i] == left * 10 + i);
    CHECK(fbuf[i] == (float)left + 0.5f * (float)i);
  }
  CHECK(shmem_g(&lbuf[3], right) == me * 10 + 3); /* shmem_long_g */
  CHECK(dval == 1.25);
  if (me == 0) {
    CHECK(counter == 2 * n);
    CHECK(bits == (1UL << n) - 1);
  }
  shmem_barrier_all(); /* PE 0 has read the counter before anyone changes it again */
  /* 1.3-era names */
  CHECK(shmem_int_finc(&counter, 0) >= 2 * n);
  shmem_p(&flag, 1L, right);
  shmem_wait_until(&flag, SHMEM_CMP_EQ, 1L); /* shmem_long_wait_until */
  /* shmem_ptr to a peer's global: NULL, or a pointer whose stores the peer sees. */
  static long via_ptr;
  long *peer = shmem_ptr(&via_ptr, right);
  if (getenv("TEST_EXPECT_MAPPED_GLOBALS") != NULL) CHECK(peer != NULL);
  if (peer != NULL) *peer = 100 + me;
  else shmem_long_p(&via_ptr, 100 + me, right);
  shmem_barrier_all();
  CHECK(via_ptr == 100 + left);
  shmem_free(lbuf);
  if (me == 0) printf("generic_c11: %s\n", errors == 0 ? "ok" : "FAILED");
  shmem_finalize();
  return errors == 0 ? 0 : 1;
}
