/* shmem_bench: collective latency per size (OSU style): broadcast, fcollect, alltoall and sum-reduction.
 *
 * OpenSHMEM 1.5 (rdsm): the team forms on SHMEM_TEAM_WORLD (shmem_broadcastmem, shmem_fcollectmem,
 * shmem_alltoallmem, shmem_long_sum_reduce). OpenSHMEM 1.4 (Open MPI's OSHMEM) has no teams, so there the
 * active-set forms over all PEs with pSync arrays are used (shmem_broadcast64, shmem_fcollect64,
 * shmem_alltoall64, shmem_long_sum_to_all), alternating two pSync arrays as the OSU benchmarks do.
 *
 * Every PE runs every iteration: the collective, timed by each PE around its own call, then an untimed
 * shmem_barrier_all. An iteration's latency is the slowest PE's time in the call (so a broadcast root that
 * returns before the data has arrived does not count as done). Size: bytes broadcast, bytes each PE
 * contributes (fcollect), bytes per pair of PEs (alltoall), bytes of the long array reduced. */
#define _GNU_SOURCE
#include "bench.h"

#include <shmem.h>
#include <stdlib.h>
#include <string.h>

#define COLL_MAX ((size_t)1 << 20) /* largest message: 8 B, then 64 B .. 1 MiB in powers of 4 */

enum coll_op { COLL_BROADCAST, COLL_FCOLLECT, COLL_ALLTOALL, COLL_REDUCE };

struct coll_state {
  int me, npes;
  char *src, *dst;   /* symmetric, npes * COLL_MAX bytes each */
  int *stop;         /* symmetric: PE 0 ends a size's loop by setting it on every PE before a barrier */
  double *all_ns;    /* symmetric on PE 0: every PE's sample times, max_samples per PE */
#if !BENCH_HAVE_SHMEM_15
  long *psync[2];    /* active-set forms: two pSync arrays used alternately */
  long *pwrk;        /* reduction work array */
#endif
};

static const char *coll_name(enum coll_op op) {
  static const char *const names[] = {"broadcast", "fcollect", "alltoall", "reduce_sum"};
  return names[op];
}

static void coll_once(struct coll_state *st, enum coll_op op, size_t s, int parity) {
#if BENCH_HAVE_SHMEM_15
  (void)parity;
  switch (op) {
  case COLL_BROADCAST: shmem_broadcastmem(SHMEM_TEAM_WORLD, st->dst, st->src, s, 0); break;
  case COLL_FCOLLECT: shmem_fcollectmem(SHMEM_TEAM_WORLD, st->dst, st->src, s); break;
  case COLL_ALLTOALL: shmem_alltoallmem(SHMEM_TEAM_WORLD, st->dst, st->src, s); break;
  case COLL_REDUCE:
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)st->dst, (const long *)st->src, s / sizeof(long));
    break;
  }
#else
  long *ps = st->psync[parity];
  switch (op) {
  case COLL_BROADCAST: shmem_broadcast64(st->dst, st->src, s / 8, 0, 0, 0, st->npes, ps); break;
  case COLL_FCOLLECT: shmem_fcollect64(st->dst, st->src, s / 8, 0, 0, st->npes, ps); break;
  case COLL_ALLTOALL: shmem_alltoall64(st->dst, st->src, s / 8, 0, 0, st->npes, ps); break;
  case COLL_REDUCE:
    shmem_long_sum_to_all((long *)st->dst, (const long *)st->src, (int)(s / sizeof(long)), 0, 0, st->npes,
                          st->pwrk, ps);
    break;
  }
#endif
}

/* ---- results are checked once before and once after the timed loop of every size --------------- */
static unsigned char pattern(size_t s, int pe, int block, size_t i) {
  return (unsigned char)(s * 7 + (size_t)pe * 37 + (size_t)block * 11 + i * 3 + 1);
}

static void fill_source(struct coll_state *st, enum coll_op op, size_t s) {
  if (op == COLL_REDUCE) {
    long *v = (long *)st->src;
    for (size_t i = 0; i < s / sizeof(long); i++) v[i] = (long)(i * 3) + st->me + 1 + (long)s;
    return;
  }
  int blocks = op == COLL_ALLTOALL ? st->npes : 1; /* alltoall: block j goes to PE j */
  for (int b = 0; b < blocks; b++)
    for (size_t i = 0; i < s; i++) st->src[(size_t)b * s + i] = (char)pattern(s, st->me, b, i);
}

/* Returns the number of wrong bytes (longs for the reduction) and notes the first one. */
static size_t check_dest(struct coll_state *st, enum coll_op op, size_t s, const char *when) {
  size_t bad = 0, first = 0;
  long got = 0, want = 0;
  if (op == COLL_REDUCE) {
    const long *v = (const long *)st->dst;
    long pes = st->npes;
    for (size_t i = 0; i < s / sizeof(long); i++) {
      long w = pes * ((long)(i * 3) + 1 + (long)s) + pes * (pes - 1) / 2;
      if (v[i] != w && bad++ == 0) first = i, got = v[i], want = w;
    }
  } else {
    int blocks = op == COLL_BROADCAST ? 1 : st->npes;
    for (int b = 0; b < blocks; b++) {
      if (op == COLL_BROADCAST && st->me == 0 && !BENCH_HAVE_SHMEM_15) break; /* 1.4: the root's dest is untouched */
      for (size_t i = 0; i < s; i++) {
        /* broadcast: the root's block; fcollect: PE b's block; alltoall: the block PE b sent to me */
        unsigned char w = op == COLL_BROADCAST ? pattern(s, 0, 0, i)
                          : op == COLL_FCOLLECT ? pattern(s, b, 0, i)
                                                : pattern(s, b, st->me, i);
        unsigned char g = (unsigned char)st->dst[(size_t)b * s + i];
        if (g != w && bad++ == 0) first = (size_t)b * s + i, got = g, want = w;
      }
    }
  }
  if (bad)
    bench_note("%s %zu B: WRONG RESULT on PE %d %s: %zu wrong %s, first at %zu: %ld instead of %ld",
               coll_name(op), s, st->me, when, bad, op == COLL_REDUCE ? "longs" : "bytes", first, got, want);
  return bad;
}

/* ---- one size: warm-up, then iterations until max_samples or the time budget (PE 0 decides) ----- */
static int coll_size(struct coll_state *st, enum coll_op op, size_t s, double *ns) {
  int warm = g_opt.quick ? 3 : 30, n = 0;
  volatile int *stop = st->stop;
  *stop = 0;
  fill_source(st, op, s);
  memset(st->dst, 0xee, (size_t)st->npes * s);
  shmem_barrier_all();
  coll_once(st, op, s, 1);
  shmem_barrier_all();
  check_dest(st, op, s, "(first call)");
  uint64_t budget = (uint64_t)(g_opt.budget_s * 1e15 / timer_ns(1000000)), end = 0; /* in ticks */
  for (int it = -warm;; it++) {
    uint64_t t0 = timer_ticks();
    coll_once(st, op, s, it & 1);
    uint64_t t1 = timer_ticks();
    if (it >= 0) ns[n++] = timer_ns(t1 - t0);
    if (it == 0) end = t0 + budget;
    if (st->me == 0 && it >= 0 && (n >= g_opt.max_samples || (n >= 10 && t1 > end))) {
      *stop = 1;
      for (int pe = 1; pe < st->npes; pe++) shmem_int_p(st->stop, 1, pe);
    }
    shmem_barrier_all(); /* completes the stop flag's puts */
    if (*stop) break;
  }
  check_dest(st, op, s, "(after the timed calls)");
  /* Every PE hands its times to PE 0, which keeps the slowest PE's per iteration. */
  shmem_putmem(st->all_ns + (size_t)st->me * (size_t)g_opt.max_samples, ns, sizeof(double) * (size_t)n, 0);
  shmem_barrier_all();
  if (st->me == 0)
    for (int pe = 1; pe < st->npes; pe++)
      for (int i = 0; i < n; i++) {
        double t = st->all_ns[(size_t)pe * (size_t)g_opt.max_samples + (size_t)i];
        if (t > ns[i]) ns[i] = t;
      }
  return n;
}

static int coll_sizes(size_t max, size_t *out) {
  static const size_t quick[] = {8, 4096, 65536, COLL_MAX};
  int n = 0;
  if (g_opt.quick) {
    for (size_t i = 0; i < sizeof quick / sizeof *quick; i++)
      if (quick[i] <= max) out[n++] = quick[i];
    return n;
  }
  out[n++] = 8;
  for (size_t s = 64; s <= max; s *= 4) out[n++] = s;
  return n;
}

/* The data a PE must receive, copied once at memcpy speed, plus one cache-line transfer. */
static double coll_limit(size_t s) {
  int lg = 0;
  while (((size_t)1 << lg) < s) lg++;
  double mbs = g_lim.memcpy_mbs[lg];
  return mbs > 0 ? g_lim.clx_ns + (double)s * 1e3 / mbs : 0;
}

void bench_coll(int me, const char *which) {
  enum coll_op op = !strcmp(which, "broadcast") ? COLL_BROADCAST
                    : !strcmp(which, "fcollect") ? COLL_FCOLLECT
                    : !strcmp(which, "alltoall") ? COLL_ALLTOALL
                                                 : COLL_REDUCE;
  struct coll_state st = {.me = me, .npes = shmem_n_pes()};
  size_t max = g_opt.max_size < COLL_MAX ? g_opt.max_size : COLL_MAX;
  size_t bytes = (size_t)st.npes * max;
  st.src = shmem_malloc(bytes);
  st.dst = shmem_malloc(bytes);
  st.stop = shmem_calloc(1, sizeof(int));
  st.all_ns = shmem_malloc(sizeof(double) * (size_t)st.npes * (size_t)g_opt.max_samples);
#if !BENCH_HAVE_SHMEM_15
  size_t nsync = SHMEM_BCAST_SYNC_SIZE;
  if (SHMEM_COLLECT_SYNC_SIZE > nsync) nsync = SHMEM_COLLECT_SYNC_SIZE;
  if (SHMEM_REDUCE_SYNC_SIZE > nsync) nsync = SHMEM_REDUCE_SYNC_SIZE;
  if (SHMEM_ALLTOALL_SYNC_SIZE > nsync) nsync = SHMEM_ALLTOALL_SYNC_SIZE;
  size_t nwrk = max / sizeof(long) / 2 + 1;
  if (nwrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE) nwrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
  st.psync[0] = shmem_malloc(2 * nsync * sizeof(long));
  st.psync[1] = st.psync[0] ? st.psync[0] + nsync : NULL;
  st.pwrk = shmem_malloc(nwrk * sizeof(long));
  if (st.psync[0])
    for (size_t i = 0; i < 2 * nsync; i++) st.psync[0][i] = SHMEM_SYNC_VALUE;
  int ok = st.psync[0] && st.pwrk;
  if (me == 0 && op == COLL_BROADCAST)
    bench_note("collectives: OpenSHMEM 1.4 active-set forms (broadcast64, fcollect64, alltoall64, long_sum_to_all)"
               " over all PEs with two pSync arrays used alternately");
#else
  int ok = 1;
#endif
  if (!ok || !st.src || !st.dst || !st.stop || !st.all_ns) {
    fprintf(stderr, "shmem_bench: shmem_malloc for %s failed (raise SHMEM_SYMMETRIC_SIZE)\n", which);
    shmem_global_exit(1);
  }
  double *ns = malloc(sizeof(double) * (size_t)g_opt.max_samples);
  size_t sizes[32];
  int nsizes = coll_sizes(max, sizes);
  shmem_barrier_all();
  for (int i = 0; i < nsizes; i++) {
    if (me == 0) bench_progress(coll_name(op), "heap", sizes[i]);
    int n = coll_size(&st, op, sizes[i], ns);
    if (me == 0) bench_report(coll_name(op), "heap", sizes[i], ns, n, "ns", 1, coll_limit(sizes[i]));
  }
  free(ns);
  shmem_barrier_all();
#if !BENCH_HAVE_SHMEM_15
  shmem_free(st.pwrk);
  shmem_free(st.psync[0]);
#endif
  shmem_free(st.all_ns);
  shmem_free(st.stop);
  shmem_free(st.dst);
  shmem_free(st.src);
}
