/* shmem_bench support: calibrated timer, batched sampling, median/p99 and CSV + table output. */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct bench_opts g_opt;
struct bench_limits g_lim;

static double g_ns_per_tick = 1.0;

double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
uint64_t timer_ticks(void) { return __builtin_ia32_rdtsc(); }
void timer_init(void) {
  /* Two 20 ms windows; the TSC is invariant on every x86 this runs on (kvm-clock guests included). */
  double best = 0;
  for (int r = 0; r < 2; r++) {
    double t0 = now_ns();
    uint64_t c0 = timer_ticks();
    while (now_ns() - t0 < 20e6) {
    }
    double t1 = now_ns();
    uint64_t c1 = timer_ticks();
    best = (t1 - t0) / (double)(c1 - c0);
  }
  g_ns_per_tick = best;
}
#else
uint64_t timer_ticks(void) { return (uint64_t)now_ns(); }
void timer_init(void) { g_ns_per_tick = 1.0; }
#endif

double timer_ns(uint64_t ticks) { return (double)ticks * g_ns_per_tick; }

int bench_sample(bench_fn fn, void *ctx, double *out) {
  /* Batch size: double until one batch lasts batch_ns (the best of 3 tries, after a few cold calls), so
   * the timer's cost (about 10 ns) stays a few percent of a sample. */
  for (int w = 0; w < 10; w++) fn(ctx, 1);
  long k = 1;
  for (;;) {
    double best = 1e30;
    for (int t = 0; t < 3; t++) {
      uint64_t t0 = timer_ticks();
      fn(ctx, k);
      double ns = timer_ns(timer_ticks() - t0);
      best = ns < best ? ns : best;
    }
    if (best >= g_opt.batch_ns || k >= (1L << 16)) break;
    k *= 2;
  }
  uint64_t budget = (uint64_t)(g_opt.budget_s * 1e9 / g_ns_per_tick);
  uint64_t warm_end = timer_ticks() + budget / 10;
  for (int w = 0; w < 1000 && (w < 3 || timer_ticks() < warm_end); w++) fn(ctx, k);
  uint64_t end = timer_ticks() + budget;
  int n = 0;
  while (n < g_opt.max_samples) {
    uint64_t t0 = timer_ticks();
    fn(ctx, k);
    uint64_t t1 = timer_ticks();
    out[n++] = timer_ns(t1 - t0) / (double)k;
    if (n >= 10 && t1 > end) break;
  }
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double median_of(double *v, int n) {
  if (n <= 0) return 0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_report(const char *bench, const char *mem, size_t size, double *ns, int n, const char *unit,
                  double units_per_op, double limit) {
  double med_ns = median_of(ns, n);
  int i99 = (int)ceil(0.99 * n) - 1;
  double p99_ns = ns[i99 < 0 ? 0 : i99];
  double med = med_ns, p99 = p99_ns;
  if (strcmp(unit, "ns") != 0) { /* a rate: the slow tail is the low value */
    med = units_per_op / med_ns * 1e3;
    p99 = units_per_op / p99_ns * 1e3;
  }
  double ratio = limit > 0 ? med / limit : 0;
  char line[512];
  snprintf(line, sizeof line, "BENCH,%s,%s,%s,%zu,%d,%.4g,%.4g,%s,%.4g,%.1f\n", g_opt.impl, bench, mem, size, n,
           med, p99, unit, ratio, g_lim.clx_ns);
  bench_progress_done();
  fputs(line, stdout);
  if (g_opt.csv) fputs(line, g_opt.csv);
  printf("  %-14s %-7s %8zu %-2s median %10.4g %-6s p99 %10.4g", bench, mem, size, g_opt.size_unit ? g_opt.size_unit : "B",
         med, unit, p99);
  if (limit > 0) printf("   %.3gx %s", ratio, g_opt.ratio_of ? g_opt.ratio_of : "limit");
  printf("\n");
  fflush(stdout);
}

void bench_note(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  bench_progress_done();
  printf("# %s\n", buf);
  if (g_opt.csv) fprintf(g_opt.csv, "# %s\n", buf);
  fflush(stdout);
}

static int g_progress_open;

void bench_progress(const char *bench, const char *mem, size_t size) {
  if (g_opt.tty) {
    fprintf(stderr, "\r[%s] %s %s %zu B          ", g_opt.prog ? g_opt.prog : "shmem_bench", bench, mem, size);
    g_progress_open = 1;
  } else {
    static char last[128];
    char cur[128];
    snprintf(cur, sizeof cur, "%s %s", bench, mem);
    if (strcmp(cur, last) != 0)
      fprintf(stderr, "[%s %s] %s ...\n", g_opt.prog ? g_opt.prog : "shmem_bench", g_opt.impl, cur);
    snprintf(last, sizeof last, "%s", cur);
  }
  (void)size;
  fflush(stderr);
}

void bench_progress_done(void) {
  if (g_progress_open) fputs("\r\033[K", stderr);
  g_progress_open = 0;
}

int bench_sizes(size_t max, size_t *out) {
  static const size_t quick[] = {1, 8, 4096, 65536, 1 << 20};
  int n = 0;
  if (g_opt.quick) {
    for (size_t i = 0; i < sizeof quick / sizeof *quick; i++)
      if (quick[i] <= max) out[n++] = quick[i];
    return n;
  }
  for (size_t s = 1; s <= max; s *= 2) out[n++] = s;
  return n;
}
