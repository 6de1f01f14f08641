/* SHMEM_THREAD_MULTIPLE: several threads of each PE issue RMA, atomics and quiet at once, on the default
 * context and on private contexts of their own, and take turns under one shmem lock with the threads of
 * every PE (a lock serves threads of one PE one at a time too); every result is checked. */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define ITERS 2000
#define SLOTS 256

#define LOCKED_EVERY 256
static long counter;              /* on PE 0: every thread of every PE adds to it */
static long lock;                 /* guards `locked` */
static long locked;               /* on PE 0: read and written back under the lock (not atomically) */
static long slots[THREADS][SLOTS]; /* thread t of PE p writes slots[t][*] on its right neighbour */
static int failures;

struct arg {
  int t;
  int use_ctx;
};

static void *work(void *p) {
  struct arg *a = p;
  int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  if (a->use_ctx && shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
    printf("PE %d thread %d: shmem_ctx_create failed\n", me, a->t);
    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    return NULL;
  }
  for (long i = 0; i < ITERS; i++) {
    long v = ((long)me << 40) | ((long)a->t << 32) | i;
    shmem_ctx_long_p(ctx, &slots[a->t][i % SLOTS], v, right);
    shmem_ctx_long_atomic_add(ctx, &counter, 1, 0);
    if (i % LOCKED_EVERY == 0) {
      shmem_set_lock(&lock);
      long was = shmem_long_g(&locked, 0);
      shmem_long_p(&locked, was + 1, 0);
      shmem_clear_lock(&lock);
    }
    if (i % 64 == 63) {
      shmem_ctx_quiet(ctx);
      long back = shmem_ctx_long_g(ctx, &slots[a->t][i % SLOTS], right);
      if (back != v) {
        printf("PE %d thread %d: read back %lx, wrote %lx\n", me, a->t, back, v);
        __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
      }
    }
  }
  shmem_ctx_quiet(ctx);
  if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);
  return NULL;
}

int main(void) {
  int provided = -1;
  if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) {
    printf("shmem_init_thread: MULTIPLE not provided (%d)\n", provided);
    return 1;
  }
  int me = shmem_my_pe(), n = shmem_n_pes();
  pthread_t th[THREADS];
  struct arg args[THREADS];
  for (int t = 0; t < THREADS; t++) {
    args[t].t = t;
    args[t].use_ctx = t % 2;  /* half the threads on the default context, half on private ones */
    pthread_create(&th[t], NULL, work, &args[t]);
  }
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  shmem_barrier_all();
  int left = (me + n - 1) % n;
  for (int t = 0; t < THREADS; t++)
    for (long i = ITERS - SLOTS; i < ITERS; i++) {
      long want = ((long)left << 40) | ((long)t << 32) | i;
      if (slots[t][i % SLOTS] != want) {
        printf("PE %d: slot %d/%ld holds %lx, expected %lx\n", me, t, i % SLOTS, slots[t][i % SLOTS], want);
        failures++;
        break;
      }
    }
  if (me == 0 && counter != (long)n * THREADS * ITERS) {
    printf("PE 0: counter %ld, expected %ld\n", counter, (long)n * THREADS * ITERS);
    failures++;
  }
  const long turns = (long)n * THREADS * ((ITERS + LOCKED_EVERY - 1) / LOCKED_EVERY);
  if (me == 0 && locked != turns) {
    printf("PE 0: %ld turns under the lock counted, expected %ld\n", locked, turns);
    failures++;
  }
  printf("PE %d: threads %s\n", me, failures == 0 ? "ok" : "FAILED");
  shmem_finalize();
  return failures == 0 ? 0 : 1;
}
