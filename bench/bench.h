/* shmem_bench internals: options, the timer, the sampling loop, result output and the benchmark entry points. */
#ifndef RDSM_BENCH_H
#define RDSM_BENCH_H

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* OpenSHMEM 1.5 has put_signal, signal_wait_until and fetching nbi AMOs; 1.4 (Open MPI's OSHMEM) does not,
 * so there the bench emulates put_signal (putmem + fence + atomic_set, wait_until) and skips nbi AMO rates. */
#if SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define BENCH_HAVE_SHMEM_15 1
#else
#define BENCH_HAVE_SHMEM_15 0
#endif

#define BENCH_MAX_SIZE ((size_t)4 << 20)   /* largest heap message */
#define BENCH_GLOBAL_MAX ((size_t)64 << 10) /* largest message on global variables */
#define BENCH_MAX_WINDOW 64                /* nbi operations in flight per bandwidth sample */

struct bench_opts {
  int quick;          /* few sizes, few samples: for tests */
  int no_cswap32;     /* skip 32-bit compare_swap (crashes under Open MPI 4.1 OSHMEM) */
  int pin;            /* pin PE i to CPU i */
  int tty;            /* stderr is a terminal: progress lines overwrite each other */
  int max_samples;    /* samples per point */
  double budget_s;    /* time budget per point (warm-up excluded) */
  double batch_ns;    /* a sample repeats a cheap operation until it lasts about this long */
  size_t max_size;    /* largest heap message */
  const char *impl;   /* name printed in every CSV line */
  const char *prog;   /* program named in progress lines (default shmem_bench) */
  const char *size_unit; /* what the size counts in the table (default "B") */
  const char *ratio_of;  /* what the ratio of the table divides by (default "limit") */
  FILE *csv;          /* CSV lines also go here (--csv FILE), or NULL */
};
extern struct bench_opts g_opt;

/* The machine's limits measured at the start of the run (filled by bench_limits). */
struct bench_limits {
  double clx_ns;                  /* one-way cache-line transfer between CPU 0 and 1 */
  double memcpy_mbs[24];          /* memcpy bandwidth by log2(size) */
};
extern struct bench_limits g_lim;

/* ---- timer: rdtsc calibrated against CLOCK_MONOTONIC (clock_gettime elsewhere) ---------------- */
/* k copies of c->size bytes from c->src to c->dst (a bench_sample body; every copy is kept). */
struct copy_ctx {
  char *dst, *src;
  size_t size;
};
void do_memcpy(void *p, long k);
/* reps SIGSEGV + mprotect round trips (a handler opens a PROT_NONE page), one time per sample in ns. */
void limit_segv(int reps, double *ns);

void timer_init(void);
uint64_t timer_ticks(void);
double timer_ns(uint64_t ticks);
double now_ns(void);

/* ---- sampling: `fn(ctx, k)` runs the operation k times; each sample is one batch, its value ns/op ---- */
typedef void (*bench_fn)(void *ctx, long k);
/* Warms up, picks the batch size, then fills `out` (capacity g_opt.max_samples) and returns the count. */
int bench_sample(bench_fn fn, void *ctx, double *out);

/* ---- results --------------------------------------------------------------------------------- */
enum bench_kind { KIND_LATENCY, KIND_RATE }; /* latency: p99 is the slow tail; rate: the slow tail too */
/* Sorts `ns_per_op` and prints one result. `units_per_op` converts ns/op to the unit: latency prints ns
 * (units_per_op ignored); "MB/s" gets bytes per op; "Mops/s" gets operations per op. `limit` is the
 * machine limit in the same unit (0: none); the ratio printed is value / limit. */
void bench_report(const char *bench, const char *mem, size_t size, double *ns_per_op, int n, const char *unit,
                  double units_per_op, double limit);
/* A line of the human-readable table, or a note, on stdout (and as a CSV comment). */
void bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bench_progress(const char *bench, const char *mem, size_t size);
void bench_progress_done(void);
/* Sizes of a sweep: 1 B .. max in powers of two, or a few in --quick mode. Returns the count. */
int bench_sizes(size_t max, size_t *out);
double median_of(double *v, int n); /* sorts v */

/* ---- benchmarks; every PE calls each one, PE 0 measures and PE 1 serves --------------------- */
void bench_limits(int me, int at_end);      /* machine limits, outside SHMEM */
double bench_clx_ns(int reps, long iters);  /* median one-way cache-line transfer, threads on CPU 0 and 1 */
void bench_rma_init(void);                  /* allocates the heap buffers (collective) */
void bench_rma(int me, const char *which);  /* put/get latency and bandwidth: heap and globals */
void bench_align(int me);                   /* the same from private buffers at page offsets 0, 16, 64, 2048 */
void bench_amo(int me);
void bench_signal(int me);                   /* put_signal ping-pong, PEs 0 and 1 */
void bench_put_pingpong(int me);            /* 8-byte put ping-pong, PEs 0 and 1 */
void bench_barrier(int me);
void bench_lock(int me);                    /* contended shmem_set_lock/clear_lock: every PE takes part */
void bench_coll(int me, const char *which); /* broadcast, fcollect, alltoall, reduce: every PE takes part */

#endif
