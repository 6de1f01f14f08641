/* shmem_bench: put/get latency (blocking) and bandwidth/message rate (nbi + quiet) on the heap and on globals. */
#define _GNU_SOURCE
#include "bench.h"

#include <shmem.h>
#include <stdlib.h>
#include <string.h>

/* Global variables are symmetric without allocation; rdsm maps them between PEs of one host. */
static _Alignas(64) char g_dst[BENCH_GLOBAL_MAX];
static _Alignas(64) char g_src[BENCH_GLOBAL_MAX];
static char *h_dst, *h_src;

struct rma_ctx {
  char *local;        /* put: source; get: destination */
  char *remote;       /* put: destination; get: source (symmetric, on PE `pe`) */
  size_t size;
  int window;
  int pe;
};

static void do_put_lat(void *p, long k) {
  struct rma_ctx *c = p;
  for (long i = 0; i < k; i++) {
    shmem_putmem(c->remote, c->local, c->size, c->pe);
    shmem_quiet();
  }
}

static void do_get_lat(void *p, long k) {
  struct rma_ctx *c = p;
  for (long i = 0; i < k; i++) shmem_getmem(c->local, c->remote, c->size, c->pe);
}

static void do_put_bw(void *p, long k) {
  struct rma_ctx *c = p;
  for (long i = 0; i < k; i++) {
    for (int w = 0; w < c->window; w++) shmem_putmem_nbi(c->remote, c->local, c->size, c->pe);
    shmem_quiet();
  }
}

static void do_get_bw(void *p, long k) {
  struct rma_ctx *c = p;
  for (long i = 0; i < k; i++) {
    for (int w = 0; w < c->window; w++) shmem_getmem_nbi(c->local, c->remote, c->size, c->pe);
    shmem_quiet();
  }
}

void bench_rma_init(void) {
  h_dst = shmem_malloc(BENCH_MAX_SIZE);
  h_src = shmem_malloc(BENCH_MAX_SIZE);
  if (!h_dst || !h_src) {
    fprintf(stderr, "shmem_bench: shmem_malloc of %zu bytes failed (raise SHMEM_SYMMETRIC_SIZE)\n",
            BENCH_MAX_SIZE);
    shmem_global_exit(1);
  }
  memset(h_dst, 1, BENCH_MAX_SIZE);
  memset(h_src, 2, BENCH_MAX_SIZE);
  memset(g_dst, 1, sizeof g_dst);
  memset(g_src, 2, sizeof g_src);
  shmem_barrier_all();
}

static double memcpy_limit(size_t size) {
  int lg = 0;
  while (((size_t)1 << lg) < size) lg++;
  return g_lim.memcpy_mbs[lg];
}

static int window_for(size_t s) {
  size_t w = ((size_t)16 << 20) / s; /* 64, fewer above 256 KiB so a sample stays short */
  return (int)(w > BENCH_MAX_WINDOW ? BENCH_MAX_WINDOW : w < 4 ? 4 : w);
}

/* Samples of `which` with `s` bytes between `local` and `remote` (on PE 1) into `ns`; returns their count. */
static int sample_point(const char *which, char *local, char *remote, size_t s, double *ns) {
  int lat = strstr(which, "_lat") != NULL, put = which[0] == 'p';
  bench_fn fn = lat ? (put ? do_put_lat : do_get_lat) : (put ? do_put_bw : do_get_bw);
  struct rma_ctx c = {local, remote, s, window_for(s), 1};
  return bench_sample(fn, &c, ns);
}

static void report_point(const char *which, const char *mem, size_t s, double *ns, int n) {
  if (strstr(which, "_lat") != NULL) {
    bench_report(which, mem, s, ns, n, "ns", 1, g_lim.clx_ns);
    return;
  }
  const double window = window_for(s);
  bench_report(which, mem, s, ns, n, "MB/s", (double)s * window, memcpy_limit(s));
  char rate[32];
  snprintf(rate, sizeof rate, "%s_rate", which[0] == 'p' ? "put" : "get");
  if (s <= BENCH_GLOBAL_MAX) bench_report(rate, mem, s, ns, n, "Mops/s", window, 0);
}

static void sweep(const char *which, const char *mem, char *local, char *remote, size_t max, double *ns) {
  size_t sizes[32];
  int nsizes = bench_sizes(max, sizes);
  for (int i = 0; i < nsizes; i++) {
    bench_progress(which, mem, sizes[i]);
    report_point(which, mem, sizes[i], ns, sample_point(which, local, remote, sizes[i], ns));
  }
}

/* The four sweeps with the local buffer in private memory at page offsets 0, 16 (where malloc puts large
 * blocks), 64 and 2048, and 16 bytes past the heap block's offset, against the heap block (at whatever page
 * offset the library gives it): copies between buffers a few bytes apart modulo 4 KiB are where a plain memcpy
 * stalls. Rows are named page<offset>, and pageheap16 for the last (each library's own block + 16). The
 * offsets compare with each other, and a point lasts well under a millisecond while the machine's speed
 * drifts (the two CPUs' distance changes from time to time): so every point is sampled in `passes` rounds of
 * a third of its samples each, the offsets of one size one right after the other in each, and reported over
 * all its samples. */
void bench_align(int me) {
  if (me == 0) {
    enum { passes = 3, n_offsets = 5, n_which = 4 };
    const int offsets[n_offsets] = {0, 16, 64, 2048, (int)(((uintptr_t)h_dst + 16) & 4095)};
    static const char *const which[n_which] = {"put_lat", "get_lat", "put_bw", "get_bw"};
    const size_t max = (size_t)64 << 10;
    size_t sizes[32];
    const int nsizes = bench_sizes(max, sizes);
    const int all_samples = g_opt.max_samples;
    g_opt.max_samples = (all_samples + passes - 1) / passes; /* what bench_sample takes per call */
    const size_t per_point = (size_t)g_opt.max_samples * passes, points = (size_t)n_which * nsizes * n_offsets;
    char *priv = aligned_alloc(4096, max + 4096);
    double *ns = malloc(sizeof(double) * per_point * points);
    int *count = calloc(points, sizeof(int));
    if (!priv || !ns || !count) {
      fprintf(stderr, "shmem_bench: out of memory\n");
      shmem_global_exit(1);
    }
    memset(priv, 3, max + 4096);
    for (int pass = 0; pass < passes; pass++)
      for (int w = 0; w < n_which; w++)
        for (int i = 0; i < nsizes; i++) {
          bench_progress(which[w], "page*", sizes[i]);
          for (int o = 0; o < n_offsets; o++) {
            const size_t pt = ((size_t)w * nsizes + i) * n_offsets + o;
            count[pt] += sample_point(which[w], priv + offsets[o], h_dst, sizes[i], ns + pt * per_point + count[pt]);
          }
        }
    g_opt.max_samples = all_samples;
    for (int w = 0; w < n_which; w++)
      for (int i = 0; i < nsizes; i++)
        for (int o = 0; o < n_offsets; o++) {
          const size_t pt = ((size_t)w * nsizes + i) * n_offsets + o;
          char mem[16];
          if (o == n_offsets - 1) snprintf(mem, sizeof mem, "pageheap16");
          else snprintf(mem, sizeof mem, "page%d", offsets[o]);
          report_point(which[w], mem, sizes[i], ns + pt * per_point, count[pt]);
        }
    free(count);
    free(ns);
    free(priv);
  }
  shmem_barrier_all();
}

void bench_rma(int me, const char *which) {
  if (me == 0) {
    double *ns = malloc(sizeof(double) * (size_t)g_opt.max_samples);
    /* put writes the peer's *_dst from the local *_src; get reads the peer's *_dst into the local *_src */
    sweep(which, "heap", h_src, h_dst, g_opt.max_size, ns);
    sweep(which, "global", g_src, g_dst, BENCH_GLOBAL_MAX, ns);
    free(ns);
  }
  shmem_barrier_all();
}
