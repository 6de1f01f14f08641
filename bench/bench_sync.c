/* shmem_bench: AMO latency and rate, put_signal and 8-byte put ping-pong latency, and barrier latency. */
#define _GNU_SOURCE
#include "bench.h"

#include <shmem.h>
#include <stdlib.h>
#include <string.h>

static long g_amo64;     /* AMO targets as global variables */
static int g_amo32;
static _Alignas(64) char g_sig_buf[BENCH_GLOBAL_MAX];

struct amo_ctx {
  long *p64;
  int *p32;
  long *fetched;     /* nbi results land here */
  int window;
  int pe;
};

static void do_fetch_add(void *p, long k) {
  struct amo_ctx *c = p;
  for (long i = 0; i < k; i++) (void)shmem_long_atomic_fetch_add(c->p64, 1, c->pe);
}
static void do_add(void *p, long k) {
  struct amo_ctx *c = p;
  for (long i = 0; i < k; i++) {
    shmem_long_atomic_add(c->p64, 1, c->pe);
    shmem_quiet();
  }
}
static void do_cswap64(void *p, long k) {
  struct amo_ctx *c = p;
  for (long i = 0; i < k; i++) (void)shmem_long_atomic_compare_swap(c->p64, i, i + 1, c->pe);
}
static void do_cswap32(void *p, long k) {
  struct amo_ctx *c = p;
  for (long i = 0; i < k; i++) (void)shmem_int_atomic_compare_swap(c->p32, (int)i, (int)i + 1, c->pe);
}
static void do_fetch(void *p, long k) {
  struct amo_ctx *c = p;
  for (long i = 0; i < k; i++) (void)shmem_long_atomic_fetch(c->p64, c->pe);
}
static void do_add_rate(void *p, long k) {
  struct amo_ctx *c = p;
  for (long i = 0; i < k; i++) {
    for (int w = 0; w < c->window; w++) shmem_long_atomic_add(c->p64, 1, c->pe);
    shmem_quiet();
  }
}
#if BENCH_HAVE_SHMEM_15
static void do_fetch_add_rate(void *p, long k) {
  struct amo_ctx *c = p;
  for (long i = 0; i < k; i++) {
    for (int w = 0; w < c->window; w++) shmem_long_atomic_fetch_add_nbi(&c->fetched[w], c->p64, 1, c->pe);
    shmem_quiet();
  }
}
#endif

static void amo_set(const char *mem, long *p64, int *p32, long *fetched, double *ns) {
  struct amo_ctx c = {p64, p32, fetched, BENCH_MAX_WINDOW, 1};
  static const struct {
    const char *name;
    bench_fn fn;
  } lat[] = {{"amo_fetch_add", do_fetch_add}, {"amo_add", do_add}, {"amo_cswap64", do_cswap64},
             {"amo_cswap32", do_cswap32},     {"amo_fetch", do_fetch}};
  for (size_t i = 0; i < sizeof lat / sizeof *lat; i++) {
    int is32 = lat[i].fn == do_cswap32;
    if (is32 && g_opt.no_cswap32) {
      bench_note("amo_cswap32 %s skipped (--no-cswap32)", mem);
      continue;
    }
    *p64 = 0;
    *p32 = 0;
    bench_progress(lat[i].name, mem, 8);
    int n = bench_sample(lat[i].fn, &c, ns);
    bench_report(lat[i].name, mem, is32 ? 4 : 8, ns, n, "ns", 1, g_lim.clx_ns);
  }
  bench_progress("amo_add_rate", mem, 8);
  int n = bench_sample(do_add_rate, &c, ns);
  bench_report("amo_add_rate", mem, 8, ns, n, "Mops/s", c.window, 0);
#if BENCH_HAVE_SHMEM_15
  bench_progress("amo_fadd_rate", mem, 8);
  n = bench_sample(do_fetch_add_rate, &c, ns);
  bench_report("amo_fadd_rate", mem, 8, ns, n, "Mops/s", c.window, 0);
#endif
}

void bench_amo(int me) {
  long *h64 = shmem_calloc(2, sizeof(long));
  int *h32 = shmem_calloc(1, sizeof(int));
  if (me == 0) {
    double *ns = malloc(sizeof(double) * (size_t)g_opt.max_samples);
    long fetched[BENCH_MAX_WINDOW];
    amo_set("heap", h64, h32, fetched, ns);
    amo_set("global", &g_amo64, &g_amo32, fetched, ns);
    free(ns);
  }
  shmem_barrier_all();
  shmem_free(h32);
  shmem_free(h64);
}

/* ---- put_signal ping-pong ----------------------------------------------------------------------- */
static void put_signal(void *dst, const void *src, size_t n, uint64_t *sig, uint64_t v, int pe) {
#if BENCH_HAVE_SHMEM_15
  shmem_putmem_signal(dst, src, n, sig, v, SHMEM_SIGNAL_SET, pe);
#else /* OpenSHMEM 1.4: the data, a fence, then the flag */
  shmem_putmem(dst, src, n, pe);
  shmem_fence();
  shmem_ulong_atomic_set((unsigned long *)sig, (unsigned long)v, pe);
#endif
}

static void wait_signal(uint64_t *sig, uint64_t v) {
#if BENCH_HAVE_SHMEM_15
  shmem_signal_wait_until(sig, SHMEM_CMP_GE, v);
#else
  shmem_ulong_wait_until((unsigned long *)sig, SHMEM_CMP_GE, (unsigned long)v);
#endif
}

void bench_signal(int me) {
  char *buf = shmem_malloc(BENCH_GLOBAL_MAX);
  uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
  uint64_t seq = 0; /* both PEs count the same exchanges, so no reset between sizes is needed */
  int peer = 1 - me, warm = g_opt.quick ? 5 : 50, n = g_opt.max_samples;
  if (me > 1) { /* only PEs 0 and 1 exchange; the others wait at the closing barrier */
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(buf);
    return;
  }
  double *ns = malloc(sizeof(double) * (size_t)n);
  if (!BENCH_HAVE_SHMEM_15 && me == 0)
    bench_note("put_signal emulated (OpenSHMEM 1.4): putmem + fence + ulong_atomic_set, ulong_wait_until");
  size_t sizes[32];
  int nsizes = bench_sizes(BENCH_GLOBAL_MAX, sizes);
  size_t last = 0;
  for (int i = 0; i < nsizes; i++) {
    size_t s = sizes[i] < 8 ? 8 : sizes[i]; /* 8 B and up: the signal itself is 8 bytes */
    if (s == last) continue;
    last = s;
    if (me == 0) bench_progress("put_signal", "heap", s);
    for (int it = -warm; it < n; it++) {
      ++seq;
      if (me == 0) {
        uint64_t t0 = timer_ticks();
        put_signal(buf, g_sig_buf, s, sig, seq, peer);
        wait_signal(sig, seq);
        if (it >= 0) ns[it] = timer_ns(timer_ticks() - t0) / 2; /* one way: half the round trip */
      } else {
        wait_signal(sig, seq);
        put_signal(buf, g_sig_buf, s, sig, seq, peer);
      }
    }
    if (me == 0) bench_report("put_signal", "heap", s, ns, n, "ns", 1, g_lim.clx_ns);
  }
  free(ns);
  shmem_barrier_all();
  shmem_free(sig);
  shmem_free(buf);
}

/* ---- 8-byte put ping-pong: PE 0 puts a sequence number into PE 1's word, PE 1 waits for it and puts it
 * back; a sample is half the round trip. This is the exchange ucx_perftest's ucp_put_lat times (a put, the
 * peer polling memory), so `rdsm-bench netns` sets the two side by side. ---------------------------- */
void bench_put_pingpong(int me) {
  long *word = shmem_calloc(1, sizeof(long));
  int warm = g_opt.quick ? 5 : 50, n = g_opt.max_samples;
  double *ns = malloc(sizeof(double) * (size_t)n);
  if (me < 2) { /* PEs beyond the first two only take part in the allocation and the barrier */
    int peer = 1 - me;
    if (me == 0) bench_progress("put_pingpong", "heap", 8);
    long seq = 0;
    for (int it = -warm; it < n; it++) {
      ++seq;
      if (me == 0) {
        uint64_t t0 = timer_ticks();
        shmem_long_p(word, seq, peer);
        shmem_long_wait_until(word, SHMEM_CMP_GE, seq);
        if (it >= 0) ns[it] = timer_ns(timer_ticks() - t0) / 2;
      } else {
        shmem_long_wait_until(word, SHMEM_CMP_GE, seq);
        shmem_long_p(word, seq, peer);
      }
    }
    if (me == 0) bench_report("put_pingpong", "heap", 8, ns, n, "ns", 1, g_lim.clx_ns);
  }
  free(ns);
  shmem_barrier_all();
  shmem_free(word);
}

/* ---- barrier_all / sync_all: both PEs loop the same count, PE 0 times each call ----------------- */
void bench_barrier(int me) {
  int n = g_opt.max_samples, warm = g_opt.quick ? 10 : 100;
  double *ns = malloc(sizeof(double) * (size_t)n);
  for (int which = 0; which < 2; which++) {
    const char *name = which ? "sync_all" : "barrier_all";
    if (me == 0) bench_progress(name, "-", 0);
    for (int it = -warm; it < n; it++) {
      uint64_t t0 = timer_ticks();
      if (which)
        shmem_sync_all();
      else
        shmem_barrier_all();
      if (it >= 0) ns[it] = timer_ns(timer_ticks() - t0);
    }
    if (me == 0) bench_report(name, "-", 0, ns, n, "ns", 1, g_lim.clx_ns);
  }
  free(ns);
  shmem_barrier_all();
}

/* Contended locks, as the locked table update of HPCC RandomAccess does: every PE picks one of min(PEs, 8)
 * locks at random and, under it, reads and writes back a random word of a 64 Ki-word table on PE (lock
 * number mod PEs), then clears it. A sample is a block of 2000 acquisitions by every PE between barriers,
 * its value the time per acquisition: the job's rate of lock hand-offs. */
void bench_lock(int me) {
  enum { n_locks = 8, per_pe = 2000, table_words = 1 << 16 };
  static long table[table_words];
  long *locks = shmem_calloc(n_locks, sizeof(long)); /* on the heap, as programs allocate them */
  const int npes = shmem_n_pes(), n = g_opt.quick ? 3 : 10, warm = 1, used = npes < n_locks ? npes : n_locks;
  double *ns = malloc(sizeof(double) * (size_t)n);
  unsigned seed = 12345u + (unsigned)me;
  if (me == 0) bench_progress("lock", "heap", sizeof locks[0]);
  for (int it = -warm; it < n; it++) {
    shmem_barrier_all();
    uint64_t t0 = timer_ticks();
    for (int i = 0; i < per_pe; i++) {
      const int l = rand_r(&seed) % used, pe = l % npes, w = rand_r(&seed) % table_words;
      shmem_set_lock(&locks[l]);
      shmem_long_p(&table[w], shmem_long_g(&table[w], pe) + 1, pe);
      shmem_quiet();
      shmem_clear_lock(&locks[l]);
    }
    shmem_barrier_all();
    if (it >= 0) ns[it] = timer_ns(timer_ticks() - t0) / (per_pe * npes);
  }
  shmem_barrier_all();
  if (me == 0) { /* every increment made under a lock is in some PE's table */
    long sum = 0, *copy = malloc(sizeof table);
    for (int pe = 0; pe < npes; pe++) {
      shmem_getmem(copy, table, sizeof table, pe);
      for (int w = 0; w < table_words; w++) sum += copy[w];
    }
    free(copy);
    if (sum != (long)(n + warm) * per_pe * npes)
      bench_note("lock: the tables hold %ld increments, expected %ld (updates under the locks were lost)", sum,
                 (long)(n + warm) * per_pe * npes);
  }
  if (me == 0) bench_report("lock", "heap", sizeof locks[0], ns, n, "ns", 1, 0);
  free(ns);
  shmem_free(locks);
  shmem_barrier_all();
}
