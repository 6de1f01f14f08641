/* Data-race-free kernels on the DSM, checked against serial runs in private memory (see dsm_kernels.h). */
#define _GNU_SOURCE
#include "dsm_kernels.h"

#include <pthread.h>
#include <rdsm/dsm.h>
#include <sched.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* A value in [0, 1) with a full mantissa, from a position. */
static double value_at(uint64_t salt, long i, long j) {
  return (double)(splitmix64(salt ^ ((uint64_t)i << 32 | (uint64_t)j)) >> 11) * 0x1p-53;
}

static void reset(dsm_kernel_result *r) { memset(r, 0, sizeof *r); }

/* The timed part: starts after setup, on this PE; stop() records the time and the DSM counters' growth. */
static void start(dsm_kernel_result *r, double *t0) {
  rdsm_dsm_stats(&r->dsm);
  *t0 = seconds_now();
}

static void stop(dsm_kernel_result *r, double t0) {
  r->seconds = seconds_now() - t0;
  rdsm_dsm_stats_t now, *d = &r->dsm;
  rdsm_dsm_stats(&now);
  d->read_faults = now.read_faults - d->read_faults;
  d->write_faults = now.write_faults - d->write_faults;
  d->fetches = now.fetches - d->fetches;
  d->invalidations = now.invalidations - d->invalidations;
  d->write_backs = now.write_backs - d->write_backs;
  d->diffs = now.diffs - d->diffs;
  d->diff_bytes = now.diff_bytes - d->diff_bytes;
  d->notices = now.notices - d->notices;
  d->requests_served = now.requests_served - d->requests_served;
}

/* The rows [*r0, *r1) whose first byte this PE homes (contiguous under block placement). */
static void rows_homed(const void *base, size_t row_bytes, int n, int *r0, int *r1) {
  int me = shmem_my_pe();
  *r0 = *r1 = 0;
  int first = -1;
  for (int r = 0; r < n; r++) {
    if (rdsm_dsm_home((const char *)base + (size_t)r * row_bytes) != me) continue;
    if (first < 0) first = r;
    *r1 = r + 1;
  }
  *r0 = first < 0 ? 0 : first;
  if (first < 0) *r1 = 0;
}

void dsm_kernel_split(int n, size_t row_bytes, size_t page, int parts, int index, int *r0, int *r1) {
  /* RDSM_DSM_BLOCK: P pages, part i homes pages [i * s, (i + 1) * s) with s = ceil(P / parts) (src/dsm's
   * space::allocate); a row goes with the page of its first byte, so the part of a row never decreases. */
  const size_t pages = ((size_t)n * row_bytes + page - 1) / page;
  const size_t share = (pages + (size_t)parts - 1) / (size_t)parts;
  *r0 = *r1 = n;
  for (int r = n - 1; r >= 0; r--) {
    size_t part = (size_t)r * row_bytes / page / share;
    if (part >= (size_t)index + 1) *r1 = r;
    if (part >= (size_t)index) *r0 = r;
  }
}

/* Under --check: the rows this PE homes must be those dsm_kernel_split gives part `me` of `npes`, or the
 * thread limit (dsm_kernel_*_threads) no longer does a PE's work. */
static void check_split(const char *what, int n, size_t row_bytes, int r0, int r1, dsm_kernel_result *r) {
  int s0, s1, me = shmem_my_pe();
  dsm_kernel_split(n, row_bytes, rdsm_dsm_page_size(), shmem_n_pes(), me, &s0, &s1);
  if (s1 - s0 == r1 - r0 && (s0 == r0 || r0 == r1)) return;
  if (r->mismatches++ == 0)
    snprintf(r->first, sizeof r->first, "%s: PE %d homes rows [%d, %d), dsm_kernel_split gives part %d of %d "
             "rows [%d, %d): the thread limit would not do this PE's work (block placement changed?)", what, me, r0,
             r1, me, shmem_n_pes(), s0, s1);
}

/* One part of a kernel's work, a PE's or a thread's: the rows [r0, r1), and meet() where the parts wait for
 * each other (rdsm_dsm_barrier on PEs, a pthread barrier on threads, nothing in the serial run). The DSM, the
 * serial and the thread runs all go through jacobi_part and matmul_part. */
typedef struct {
  int r0, r1;
  void (*meet)(void *arg);
  void *meet_arg;
} kernel_part;

static void meet_dsm(void *arg) {
  (void)arg;
  rdsm_dsm_barrier();
}

static void meet_none(void *arg) { (void)arg; }

/* Bitwise comparison of doubles; records the first difference. */
static void compare_doubles(const char *what, const double *dsm, const double *ref, int n, dsm_kernel_result *r) {
  for (long i = 0; i < (long)n * n; i++) {
    if (memcmp(&dsm[i], &ref[i], sizeof(double)) == 0) continue;
    if (r->mismatches++ == 0)
      snprintf(r->first, sizeof r->first, "%s (%ld, %ld): DSM %.17g, serial %.17g (PE %d)", what, i / n, i % n, dsm[i],
               ref[i], shmem_my_pe());
  }
}

/* ---- Jacobi -------------------------------------------------------------------------------------- */

static double jacobi_init(long i, long j) { return value_at(0x4a41434f4249ull, i, j); }

/* dst = average of src's four neighbours on the interior points of rows [r0, r1); the DSM and the serial
 * run both call this one function, so every element is computed by the same operations in the same order. */
static __attribute__((noinline)) void jacobi_rows(double *restrict dst, const double *restrict src, int n, int r0,
                                                  int r1) {
  if (r0 < 1) r0 = 1;
  if (r1 > n - 1) r1 = n - 1;
  for (long i = r0; i < r1; i++)
    for (long j = 1; j < n - 1; j++)
      dst[i * n + j] = 0.25 * ((src[(i - 1) * n + j] + src[(i + 1) * n + j]) + (src[i * n + j - 1] + src[i * n + j + 1]));
}

static void jacobi_fill(double *g, int n, int r0, int r1) {
  for (long i = r0; i < r1; i++)
    for (long j = 0; j < n; j++) g[i * n + j] = jacobi_init(i, j);
}

/* `iters` sweeps of part p between the grids g[0] and g[1] (the result in g[iters & 1]). */
static void jacobi_part(double *const g[2], int n, int iters, const kernel_part *p) {
  for (int t = 0; t < iters; t++) {
    jacobi_rows(g[(t + 1) & 1], g[t & 1], n, p->r0, p->r1);
    p->meet(p->meet_arg);
  }
}

int dsm_kernel_jacobi(int n, int iters, int check, dsm_kernel_result *r) {
  reset(r);
  if (n < 3) n = 3;
  size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  double *g[2];
  g[0] = rdsm_dsm_alloc_placed(bytes, RDSM_DSM_BLOCK, 0);
  g[1] = rdsm_dsm_alloc_placed(bytes, RDSM_DSM_BLOCK, 0);
  if (!g[0] || !g[1]) {
    if (g[0]) rdsm_dsm_free(g[0]);
    if (g[1]) rdsm_dsm_free(g[1]);
    return -1;
  }
  int r0, r1;
  rows_homed(g[0], (size_t)n * sizeof(double), n, &r0, &r1);
  jacobi_fill(g[0], n, r0, r1); /* both grids: the boundary stays fixed in each */
  jacobi_fill(g[1], n, r0, r1);
  rdsm_dsm_barrier();
  const kernel_part part = {r0, r1, meet_dsm, NULL};
  double t0;
  start(r, &t0);
  jacobi_part(g, n, iters, &part);
  stop(r, t0);
  const double *result = g[iters & 1];
  if (check) {
    double *s[2] = {malloc(bytes), malloc(bytes)};
    if (!s[0] || !s[1]) {
      fprintf(stderr, "dsm_kernel_jacobi: out of private memory\n");
      abort();
    }
    jacobi_fill(s[0], n, 0, n); /* untimed, like the DSM run's fill (and it takes the page faults) */
    jacobi_fill(s[1], n, 0, n);
    const kernel_part all = {0, n, meet_none, NULL};
    double c0 = seconds_now();
    jacobi_part(s, n, iters, &all);
    r->serial_seconds = seconds_now() - c0;
    check_split("jacobi", n, (size_t)n * sizeof(double), r0, r1, r);
    compare_doubles("jacobi", result, s[iters & 1], n, r);
    free(s[0]);
    free(s[1]);
    rdsm_dsm_barrier(); /* nobody frees while another PE still reads */
  }
  rdsm_dsm_free(g[1]);
  rdsm_dsm_free(g[0]);
  return r->mismatches ? 1 : 0;
}

/* ---- blocked matrix multiply ---------------------------------------------------------------------- */

static double matmul_a(long i, long k) { return value_at(0x414d41545249ull, i, k) - 0.5; }
static double matmul_b(long k, long j) { return value_at(0x424d41545249ull, k, j) - 0.5; }

/* C[r0..r1) += A[r0..r1) x B in blocks; each C[i][j] sums over k in ascending order whatever r0 is. */
static __attribute__((noinline)) void matmul_rows(double *restrict C, const double *restrict A,
                                                  const double *restrict B, int n, int r0, int r1) {
  const int bs = DSM_KERNEL_MATMUL_BLOCK;
  for (int ii = r0; ii < r1; ii += bs) {
    int ie = ii + bs < r1 ? ii + bs : r1;
    for (int kk = 0; kk < n; kk += bs) {
      int ke = kk + bs < n ? kk + bs : n;
      for (int jj = 0; jj < n; jj += bs) {
        int je = jj + bs < n ? jj + bs : n;
        for (long i = ii; i < ie; i++)
          for (long k = kk; k < ke; k++) {
            double a = A[i * n + k];
            for (long j = jj; j < je; j++) C[i * n + j] += a * B[k * n + j];
          }
      }
    }
  }
}

static void matmul_fill(double *A, double *B, int n, int r0, int r1) {
  for (long i = r0; i < r1; i++)
    for (long j = 0; j < n; j++) {
      A[i * n + j] = matmul_a(i, j);
      B[i * n + j] = matmul_b(i, j);
    }
}

/* Part p's rows of C += A x B, then the meeting. */
static void matmul_part(double *C, const double *A, const double *B, int n, const kernel_part *p) {
  matmul_rows(C, A, B, n, p->r0, p->r1);
  p->meet(p->meet_arg);
}

int dsm_kernel_matmul(int n, int check, dsm_kernel_result *r) {
  reset(r);
  if (n < 1) n = 1;
  size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  double *A = rdsm_dsm_alloc_placed(bytes, RDSM_DSM_BLOCK, 0);
  double *B = rdsm_dsm_alloc_placed(bytes, RDSM_DSM_BLOCK, 0);
  double *C = rdsm_dsm_alloc_placed(bytes, RDSM_DSM_BLOCK, 0);
  if (!A || !B || !C) {
    if (C) rdsm_dsm_free(C);
    if (B) rdsm_dsm_free(B);
    if (A) rdsm_dsm_free(A);
    return -1;
  }
  int r0, r1;
  rows_homed(A, (size_t)n * sizeof(double), n, &r0, &r1); /* A, B and C have the same layout and homes */
  matmul_fill(A, B, n, r0, r1);
  /* C's rows this PE homes and computes, touched first outside the timing, as the threads' limit does */
  memset(C + (size_t)r0 * (size_t)n, 0, (size_t)(r1 - r0) * (size_t)n * sizeof(double));
  rdsm_dsm_barrier();
  rdsm_dsm_advise(A, bytes, RDSM_DSM_READ_ONLY);
  rdsm_dsm_advise(B, bytes, RDSM_DSM_READ_ONLY);
  rdsm_dsm_barrier();
  const kernel_part part = {r0, r1, meet_dsm, NULL};
  double t0;
  start(r, &t0);
  matmul_part(C, A, B, n, &part);
  stop(r, t0);
  if (check) {
    double *sa = malloc(bytes), *sb = malloc(bytes), *sc = calloc((size_t)n * (size_t)n, sizeof(double));
    if (!sa || !sb || !sc) {
      fprintf(stderr, "dsm_kernel_matmul: out of private memory\n");
      abort();
    }
    matmul_fill(sa, sb, n, 0, n);
    memset(sc, 0, bytes); /* first-touch page faults before the timing */
    const kernel_part all = {0, n, meet_none, NULL};
    double c0 = seconds_now();
    matmul_part(sc, sa, sb, n, &all);
    r->serial_seconds = seconds_now() - c0;
    check_split("matmul", n, (size_t)n * sizeof(double), r0, r1, r);
    compare_doubles("matmul C", C, sc, n, r);
    free(sa);
    free(sb);
    free(sc);
    rdsm_dsm_barrier();
  }
  rdsm_dsm_free(C);
  rdsm_dsm_free(B);
  rdsm_dsm_free(A);
  return r->mismatches ? 1 : 0;
}

/* ---- the machine's limit: the same parts by threads of one process on private memory ---------------- */

/* One thread of the limit: part `index` of `threads`, split as block placement splits the PEs' rows. */
struct rows_job {
  int kind, n, iters, threads, index;
  size_t page;                 /* the DSM page: the split's unit */
  double *g[2];                /* Jacobi: the two grids */
  double *a, *b, *c;           /* matmul: C = A x B */
  pthread_barrier_t *barrier;
  double seconds;              /* this thread's timed part */
};

static void meet_threads(void *arg) { pthread_barrier_wait(arg); }

static void *rows_thread(void *p) {
  struct rows_job *j = p;
  cpu_set_t set; /* pinned as dsm_bench pins PE i */
  CPU_ZERO(&set);
  CPU_SET(j->index % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  kernel_part part = {0, 0, meet_threads, j->barrier};
  dsm_kernel_split(j->n, (size_t)j->n * sizeof(double), j->page, j->threads, j->index, &part.r0, &part.r1);
  /* Each thread fills its own rows, as each PE fills the rows it homes (untimed; the first touch too). */
  if (j->kind == 0) {
    jacobi_fill(j->g[0], j->n, part.r0, part.r1);
    jacobi_fill(j->g[1], j->n, part.r0, part.r1);
  } else {
    matmul_fill(j->a, j->b, j->n, part.r0, part.r1);
    memset(j->c + (size_t)part.r0 * (size_t)j->n, 0, (size_t)(part.r1 - part.r0) * (size_t)j->n * sizeof(double));
  }
  pthread_barrier_wait(j->barrier); /* every part filled: the PEs' barrier after set-up */
  double t0 = seconds_now();
  if (j->kind == 0)
    jacobi_part(j->g, j->n, j->iters, &part);
  else
    matmul_part(j->c, j->a, j->b, j->n, &part);
  j->seconds = seconds_now() - t0;
  return NULL;
}

/* Runs `proto` on `threads` threads (each with its index); returns the slowest thread's time, as dsm_bench
 * reports the slowest PE's. */
static double run_threads(struct rows_job proto, int threads) {
  struct rows_job *jobs = calloc((size_t)threads, sizeof *jobs);
  pthread_t *tids = calloc((size_t)threads, sizeof *tids);
  pthread_barrier_t barrier;
  if (!jobs || !tids || pthread_barrier_init(&barrier, NULL, (unsigned)threads) != 0) {
    fprintf(stderr, "dsm_kernels: cannot start %d threads\n", threads);
    abort();
  }
  cpu_set_t saved;
  pthread_getaffinity_np(pthread_self(), sizeof saved, &saved); /* thread 0 is the caller: restored after */
  for (int k = 0; k < threads; k++) {
    jobs[k] = proto;
    jobs[k].index = k;
    jobs[k].threads = threads;
    jobs[k].page = rdsm_dsm_page_size();
    jobs[k].barrier = &barrier;
    if (k > 0 && pthread_create(&tids[k], NULL, rows_thread, &jobs[k]) != 0) abort();
  }
  rows_thread(&jobs[0]);
  double seconds = jobs[0].seconds;
  for (int k = 1; k < threads; k++) {
    pthread_join(tids[k], NULL);
    if (jobs[k].seconds > seconds) seconds = jobs[k].seconds;
  }
  pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
  pthread_barrier_destroy(&barrier);
  free(tids);
  free(jobs);
  return seconds;
}

double dsm_kernel_jacobi_threads(int n, int iters, int threads) {
  if (n < 3) n = 3;
  size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  struct rows_job j = {.kind = 0, .n = n, .iters = iters, .g = {malloc(bytes), malloc(bytes)}};
  if (!j.g[0] || !j.g[1]) abort();
  double seconds = run_threads(j, threads);
  free(j.g[0]);
  free(j.g[1]);
  return seconds;
}

double dsm_kernel_matmul_threads(int n, int threads) {
  if (n < 1) n = 1;
  size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  struct rows_job j = {.kind = 1, .n = n, .a = malloc(bytes), .b = malloc(bytes), .c = malloc(bytes)};
  if (!j.a || !j.b || !j.c) abort();
  double seconds = run_threads(j, threads);
  free(j.a);
  free(j.b);
  free(j.c);
  return seconds;
}

/* ---- lock-protected histogram -------------------------------------------------------------------- */

static uint32_t hist_input(long i) { return (uint32_t)(splitmix64(0x48495354ull + (uint64_t)i) >> 32); }

int dsm_kernel_histogram(long elements, int bins, int chunk, int check, dsm_kernel_result *r) {
  reset(r);
  if (elements < 1) elements = 1;
  if (bins < 1) bins = 1;
  if (chunk < 1) chunk = 1;
  int me = shmem_my_pe(), npes = shmem_n_pes();
  uint32_t *in = rdsm_dsm_alloc_placed((size_t)elements * sizeof(uint32_t), RDSM_DSM_BLOCK, 0);
  /* The bins, then the last holder of the lock (PE + 1; 0: nobody yet), read and written under the lock to
   * count the hand-offs: acquisitions that took the lock from another PE. */
  long *h = rdsm_dsm_alloc((size_t)(bins + 1) * sizeof(long));
  if (!in || !h) {
    if (h) rdsm_dsm_free(h);
    if (in) rdsm_dsm_free(in);
    return -1;
  }
  rdsm_dsm_lock_t *lock = rdsm_dsm_lock_create();
  long lo = elements * me / npes, hi = elements * (me + 1) / npes;
  for (long i = lo; i < hi; i++) in[i] = hist_input(i);
  rdsm_dsm_barrier();
  double t0;
  start(r, &t0);
  for (long c = lo; c < hi; c += chunk) {
    long e = c + chunk < hi ? c + chunk : hi;
    rdsm_dsm_lock(lock);
    r->acquisitions++;
    if (h[bins] != me + 1) {
      r->handoffs += h[bins] != 0;
      h[bins] = me + 1;
    }
    for (long i = c; i < e; i++) h[in[i] % (uint32_t)bins] += 1;
    rdsm_dsm_unlock(lock);
  }
  rdsm_dsm_barrier();
  stop(r, t0);
  if (check) {
    long *ref = calloc((size_t)bins, sizeof(long));
    uint32_t *values = malloc((size_t)elements * sizeof(uint32_t));
    if (!ref || !values) {
      fprintf(stderr, "dsm_kernel_histogram: out of private memory\n");
      abort();
    }
    for (long i = 0; i < elements; i++) values[i] = hist_input(i); /* like the DSM run's input, untimed */
    double c0 = seconds_now();
    for (long i = 0; i < elements; i++) ref[values[i] % (uint32_t)bins] += 1;
    r->serial_seconds = seconds_now() - c0;
    free(values);
    for (int b = 0; b < bins; b++) {
      if (h[b] == ref[b]) continue;
      if (r->mismatches++ == 0)
        snprintf(r->first, sizeof r->first, "histogram bin %d: DSM %ld, serial %ld (PE %d)", b, h[b], ref[b], me);
    }
    free(ref);
  }
  rdsm_dsm_barrier();
  rdsm_dsm_lock_destroy(lock);
  rdsm_dsm_free(h);
  rdsm_dsm_free(in);
  return r->mismatches ? 1 : 0;
}
