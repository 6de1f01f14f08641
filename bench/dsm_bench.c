/* dsm_bench: the DSM's costs (rdsm only: OSHMEM has no DSM) beside the limits of this machine they are compared
 * with: read- and write-fault latency, rdsm_dsm_barrier against the number of cached and of changed pages,
 * and the kernels of dsm_kernels.c (Jacobi, blocked matrix multiply, lock-protected histogram) with an
 * optional check against the serial result. Output: the BENCH lines of shmem_bench (bench_util.c); rdsm-bench
 * (tools/rdsm-bench) runs it on 2 PEs and the kernels on 1 PE, per consistency mode. */
#define _GNU_SOURCE
#include <pthread.h>
#include <rdsm/dsm.h>
#include <sched.h>
#include <shmem.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "dsm_kernels.h"

#define MAX_SAMPLES 16384

static int me, npes;
static size_t g_page;         /* the DSM's coherence unit */
static const char *g_tag;     /* "rc" (release consistency) or "sc" (sequential), appended to the mem field */
static double *g_buf;         /* symmetric: one PE's samples, gathered by PE 0 */
static double *g_work;        /* PE 0: the gathered samples */
static long *g_wrong;         /* symmetric, used on PE 0: wrong values seen by any PE */
static double g_segv_ns, g_get_ns, g_copy_ns, g_amo_ns; /* PE 0: this run's limits */
static double g_wake_ns;      /* PE 0: a sleeping thread's wake-up by a thread on the other CPU (not a limit: a cost) */
static int g_n;               /* symmetric (a global): how many samples this PE put in g_buf */
static const char *g_csv_path;

static struct {
  int check, quick, reps;
  int jacobi_n, jacobi_it, matmul_n, hist_bins, hist_chunk;
  long hist_n;
  int fault_pages, fault_rounds, barrier_iters;
  int do_fault, do_barrier, do_jacobi, do_matmul, do_hist;
} D;

static void usage(FILE *f) {
  fprintf(f,
          "usage: dsm_bench [options] [fault] [barrier] [kernels | jacobi matmul histogram]   (default: all)\n"
          "  fault     2+ PEs: PE 1 faults on pages of PE 0: read fault (PE 0 wrote the page), write fault on a\n"
          "            page held shared (upgrade), on a page the home owns (remote-owner), on a page homed on PE 1\n"
          "            that PE 0 owns (recall); median and p99 of one fault per page; beside the limits measured\n"
          "            in the same run: SIGSEGV + mprotect round trip, memcpy of a page, shmem_getmem of a page, and\n"
          "            the wake-up of a sleeping thread from the other CPU (futex ping-pong)\n"
          "  barrier   2+ PEs: rdsm_dsm_barrier with 0, 64, 1024, 16384 cached unchanged pages per PE and with\n"
          "            k changed pages per PE (slowest PE per barrier), each alternating with a shmem_barrier_all\n"
          "  kernels   any number of PEs: time of each kernel (slowest PE, median of --reps runs)\n"
          "  --check          compare each kernel's result with a serial run on every PE; exit 1 on a mismatch\n"
          "  --jacobi N[,IT]  Jacobi grid side and iterations (default 2048,50)\n"
          "  --matmul N       matrix side (default 512)\n"
          "  --hist M[,B[,C]] histogram: M values, B bins, C values per lock hold (default 1048576,256,1024)\n"
          "  --reps R         runs per kernel (default 3, quick 1); the check runs on the first\n"
          "  --pages P        pages per fault round (default 1024, quick 256)\n"
          "  --quick          fewer samples and sizes (tests)\n"
          "  --no-pin         do not pin PE i to CPU i mod ncpus\n"
          "  --csv FILE       also write the BENCH lines to FILE (PE 0)\n"
          "  --impl NAME      name in the BENCH lines (default rdsm)\n"
          "output: `BENCH,impl,bench,mem,size,samples,median,p99,unit,ratio,clx_ns` lines; mem ends in -rc or -sc\n"
          "(RDSM_DSM_CONSISTENCY release or sequential); size is bytes (faults), pages (barrier) or the problem\n"
          "size (kernels); ratio: fault / limit, DSM barrier / shmem_barrier_all, kernel / serial run.\n");
}

static int parse_ints(const char *s, long *v, int max) {
  int n = 0;
  char *end;
  while (n < max) {
    v[n++] = strtol(s, &end, 0);
    if (*end != ',') break;
    s = end + 1;
  }
  return n;
}

static void parse(int argc, char **argv) {
  const char *csv = NULL;
  int reps = 0, pages = 0, any = 0;
  g_opt.pin = 1;
  g_opt.batch_ns = 200;
  g_opt.prog = "dsm_bench";
  D.jacobi_n = 2048, D.jacobi_it = 50, D.matmul_n = 512;
  D.hist_n = 1L << 20, D.hist_bins = 256, D.hist_chunk = 1024;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    long v[3];
    if (!strcmp(a, "--check")) {
      D.check = 1;
    } else if (!strcmp(a, "--quick")) {
      D.quick = g_opt.quick = 1;
    } else if (!strcmp(a, "--no-pin")) {
      g_opt.pin = 0;
    } else if (!strcmp(a, "--csv") && more) {
      csv = argv[++i];
    } else if (!strcmp(a, "--impl") && more) {
      g_opt.impl = argv[++i];
    } else if (!strcmp(a, "--reps") && more) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(a, "--pages") && more) {
      pages = atoi(argv[++i]);
    } else if (!strcmp(a, "--jacobi") && more) {
      int n = parse_ints(argv[++i], v, 2);
      D.jacobi_n = (int)v[0];
      if (n > 1) D.jacobi_it = (int)v[1];
    } else if (!strcmp(a, "--matmul") && more) {
      D.matmul_n = atoi(argv[++i]);
    } else if (!strcmp(a, "--hist") && more) {
      int n = parse_ints(argv[++i], v, 3);
      D.hist_n = v[0];
      if (n > 1) D.hist_bins = (int)v[1];
      if (n > 2) D.hist_chunk = (int)v[2];
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    } else if (!strcmp(a, "fault")) {
      D.do_fault = any = 1;
    } else if (!strcmp(a, "barrier")) {
      D.do_barrier = any = 1;
    } else if (!strcmp(a, "kernels")) {
      D.do_jacobi = D.do_matmul = D.do_hist = any = 1;
    } else if (!strcmp(a, "jacobi")) {
      D.do_jacobi = any = 1;
    } else if (!strcmp(a, "matmul")) {
      D.do_matmul = any = 1;
    } else if (!strcmp(a, "histogram")) {
      D.do_hist = any = 1;
    } else {
      fprintf(stderr, "dsm_bench: unknown argument '%s'\n", a);
      usage(stderr);
      exit(2);
    }
  }
  if (!any) D.do_fault = D.do_barrier = D.do_jacobi = D.do_matmul = D.do_hist = 1;
  if (D.jacobi_n < 3 || D.jacobi_it < 1 || D.matmul_n < 1 || D.hist_n < 1 || D.hist_bins < 1 || D.hist_chunk < 1) {
    fprintf(stderr, "dsm_bench: bad kernel size\n");
    exit(2);
  }
  D.reps = reps > 0 ? reps : D.quick ? 1 : 3;
  if (D.reps > 64) D.reps = 64;
  D.fault_pages = pages > 0 ? pages : D.quick ? 256 : 1024;
  D.fault_rounds = D.quick ? 2 : 4;
  if (D.fault_pages * D.fault_rounds > MAX_SAMPLES) D.fault_pages = MAX_SAMPLES / D.fault_rounds;
  D.barrier_iters = D.quick ? 200 : 2000;
  g_opt.max_samples = D.quick ? 100 : 1000;
  g_opt.budget_s = D.quick ? 0.01 : 0.2;
  g_opt.tty = isatty(2);
  g_opt.csv = NULL;
  g_csv_path = csv; /* opened by PE 0 only, after shmem_init */
}

static void pin(void) {
  if (!g_opt.pin) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(me % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void wrong(const char *fmt, long a, long b, long c) {
  char text[200];
  snprintf(text, sizeof text, fmt, a, b, c);
  printf("# WRONG RESULT (PE %d): %s\n", me, text);
  fflush(stdout);
  shmem_long_atomic_add(g_wrong, 1, 0);
}

static long *word(char *base, long page) { return (long *)(base + (size_t)page * g_page); }

static void mem_name(char *out, size_t n, const char *what) { snprintf(out, n, "%s-%s", what, g_tag); }

/* PE 0 reports the samples in PE `from`'s g_buf (their count in its g_n). Collective. */
static int report_from(int from, const char *bench, const char *mem, size_t size, double limit) {
  int n = 0;
  shmem_barrier_all();
  if (me == 0) {
    n = shmem_int_g(&g_n, from);
    shmem_getmem(g_work, g_buf, (size_t)n * sizeof(double), from);
    bench_report(bench, mem, size, g_work, n, "ns", 1, limit);
  }
  shmem_barrier_all();
  return n;
}

/* PE 0: g_work[i] = the largest g_buf[i] of all PEs (the slowest PE's time per iteration). Collective. */
static void gather_max(int n) {
  shmem_barrier_all();
  if (me == 0) {
    double *tmp = malloc((size_t)n * sizeof(double));
    memcpy(g_work, g_buf, (size_t)n * sizeof(double));
    for (int pe = 1; pe < npes; pe++) {
      shmem_getmem(tmp, g_buf, (size_t)n * sizeof(double), pe);
      for (int i = 0; i < n; i++)
        if (tmp[i] > g_work[i]) g_work[i] = tmp[i];
    }
    free(tmp);
  }
  shmem_barrier_all();
}

static rdsm_dsm_stats_t stats(void) {
  rdsm_dsm_stats_t s;
  rdsm_dsm_stats(&s);
  return s;
}

/* ---- this machine's limits (on PE 1, the faulting PE, while PE 0 waits) --------------------------- */


/* A thread's wake-up by another on the other CPU: a futex ping-pong where each side sleeps (no spinning), as a
 * progress thread or a faulting thread sleeps. One sample is half a round trip. */
struct wake_pair {
  _Alignas(64) atomic_int turn;
  int iters, cpu;
};
static void futex_wait(atomic_int *a, int v) { syscall(SYS_futex, a, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0); }
static void futex_wake(atomic_int *a) { syscall(SYS_futex, a, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }
static void *wake_peer(void *p) {
  struct wake_pair *w = p;
  if (g_opt.pin) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  for (int i = 0; i < w->iters; i++) {
    while (atomic_load(&w->turn) != 1) futex_wait(&w->turn, 0);
    atomic_store(&w->turn, 0);
    futex_wake(&w->turn);
  }
  return NULL;
}
static int limit_wake(double *ns, int reps) {
  struct wake_pair w;
  atomic_init(&w.turn, 0);
  w.iters = reps;
  w.cpu = (me + 1) % (int)sysconf(_SC_NPROCESSORS_ONLN);
  pthread_t t;
  if (pthread_create(&t, NULL, wake_peer, &w) != 0) return 0;
  for (int i = 0; i < reps; i++) {
    uint64_t t0 = timer_ticks();
    atomic_store(&w.turn, 1);
    futex_wake(&w.turn);
    while (atomic_load(&w.turn) != 0) futex_wait(&w.turn, 1);
    ns[i] = timer_ns(timer_ticks() - t0) / 2;
  }
  pthread_join(t, NULL);
  return reps;
}

static void do_get(void *p, long k) {
  struct copy_ctx *c = p;
  for (long i = 0; i < k; i++) shmem_getmem(c->dst, c->src, c->size, 0);
}

static void do_amo(void *p, long k) {
  long *target = p;
  for (long i = 0; i < k; i++) (void)shmem_long_atomic_fetch_add(target, 1, 0);
}

static void limits(void) {
  char *remote = shmem_malloc(g_page); /* symmetric: PE 1 gets PE 0's */
  memset(remote, 7, g_page);
  char *dst = malloc(g_page), *src = malloc(g_page);
  memset(dst, 1, g_page);
  memset(src, 2, g_page);
  struct copy_ctx copy = {dst, src, g_page}, get = {dst, remote, g_page};
  shmem_barrier_all();
  g_n = 0;
  if (me == 1) {
    bench_progress("limit_segv", "local", (size_t)sysconf(_SC_PAGESIZE));
    g_n = D.quick ? 200 : 2000;
    limit_segv(g_n, g_buf);
  }
  int n = report_from(1, "limit_segv", "local", (size_t)sysconf(_SC_PAGESIZE), 0);
  if (me == 0) g_segv_ns = median_of(g_work, n);
  if (me == 1) {
    bench_progress("limit_copy", "local", g_page);
    g_n = bench_sample(do_memcpy, &copy, g_buf);
  }
  n = report_from(1, "limit_copy", "local", g_page, 0);
  if (me == 0) g_copy_ns = median_of(g_work, n);
  if (me == 1) {
    bench_progress("limit_get", "remote", g_page);
    g_n = bench_sample(do_get, &get, g_buf);
  }
  n = report_from(1, "limit_get", "remote", g_page, 0);
  if (me == 0) g_get_ns = median_of(g_work, n);
  long *counter = shmem_calloc(1, sizeof(long));
  if (me == 1) {
    bench_progress("limit_amo", "remote", sizeof(long));
    g_n = bench_sample(do_amo, counter, g_buf);
  }
  n = report_from(1, "limit_amo", "remote", sizeof(long), 0);
  if (me == 0) g_amo_ns = median_of(g_work, n);
  shmem_free(counter);
  if (me == 1) {
    bench_progress("limit_wake", "cpu-cpu", 0);
    g_n = limit_wake(g_buf, D.quick ? 200 : 2000);
  }
  n = report_from(1, "limit_wake", "cpu-cpu", 0, 0);
  if (me == 0) g_wake_ns = median_of(g_work, n);
  if (me == 0)
    bench_note("limits: SIGSEGV+mprotect %.3g ns, memcpy of %zu B %.3g ns, shmem_getmem of %zu B %.3g ns: "
               "fault limit (SIGSEGV+mprotect + get) %.3g ns; 8-byte fetch-add round trip %.3g ns; a thread's "
               "wake-up from another CPU %.3g ns",
               g_segv_ns, g_page, g_copy_ns, g_page, g_get_ns, g_segv_ns + g_get_ns, g_amo_ns, g_wake_ns);
  free(dst);
  free(src);
  shmem_barrier_all();
  shmem_free(remote);
}

/* ---- faults ------------------------------------------------------------------------------------ */

/* Pages of round r: [r * P, (r + 1) * P) of an allocation of R * P pages, so that every timed access meets a
 * page this PE never held (a copy it held would be refreshed in place at the barrier, with no fault). They are
 * touched last to first: a read fault then copies only its own page, whatever RDSM_DSM_PREFETCH (it copies
 * following pages only). */
static long fault_page(int r, long i) { return (long)r * D.fault_pages + (D.fault_pages - 1 - i); }

/* One read fault per page: PE 0 (the home) writes every page, a barrier, PE 1 reads each page once. */
static void fault_read(void) {
  const int P = D.fault_pages, R = D.fault_rounds;
  char *a = rdsm_dsm_alloc_placed((size_t)P * R * g_page, RDSM_DSM_ON_PE, 0);
  if (!a) {
    if (me == 0) bench_note("dsm_read_fault: rdsm_dsm_alloc_placed of %d pages failed", P);
    return;
  }
  rdsm_dsm_stats_t d = {0}, s0, s1;
  int n = 0;
  if (me == 1) bench_progress("dsm_read_fault", "remote", g_page);
  for (int r = 0; r < R; r++) {
    if (me == 0)
      for (long i = 0; i < P; i++) *word(a, fault_page(r, i)) = r * 1000003L + i;
    rdsm_dsm_barrier();
    if (me == 1) {
      s0 = stats();
      for (long i = 0; i < P; i++) {
        uint64_t t0 = timer_ticks();
        long v = *(volatile long *)word(a, fault_page(r, i));
        uint64_t t1 = timer_ticks();
        g_buf[n++] = timer_ns(t1 - t0);
        if (v != r * 1000003L + i) wrong("dsm_read_fault: page %ld read %ld, expected %ld", i, v, r * 1000003L + i);
      }
      s1 = stats();
      d.read_faults += s1.read_faults - s0.read_faults;
      d.fetches += s1.fetches - s0.fetches;
    }
    rdsm_dsm_barrier();
  }
  char mem[64];
  mem_name(mem, sizeof mem, "remote");
  g_n = n;
  report_from(1, "dsm_read_fault", mem, g_page, g_segv_ns + g_get_ns);
  if (me == 1)
    printf("# dsm_read_fault: PE 1 took %llu read faults and %llu fetches for %d page reads\n",
           (unsigned long long)d.read_faults, (unsigned long long)d.fetches, n);
  fflush(stdout);
  shmem_barrier_all();
  rdsm_dsm_free(a);
}

/* One write fault per page by PE 1. `home`: the pages' home. PE 0 writes every page first (it owns them);
 * with `read_first` PE 1 then reads each (untimed: it holds the page shared, the write upgrades it). */
static void fault_write(const char *what, int home, int read_first, double limit) {
  const int P = D.fault_pages, R = D.fault_rounds;
  char *a = rdsm_dsm_alloc_placed((size_t)P * R * g_page, RDSM_DSM_ON_PE, (size_t)home);
  if (!a) {
    if (me == 0) bench_note("dsm_write_fault: rdsm_dsm_alloc_placed of %d pages failed", P);
    return;
  }
  int n = 0;
  if (me == 1) bench_progress("dsm_write_fault", what, g_page);
  rdsm_dsm_stats_t d = {0}, s0, s1;
  for (int r = 0; r < R; r++) {
    if (me == 0)
      for (long i = 0; i < P; i++) *word(a, fault_page(r, i)) = r * 1000003L + i;
    rdsm_dsm_barrier();
    if (me == 1) {
      if (read_first)
        for (long i = 0; i < P; i++) {
          long v = *(volatile long *)word(a, fault_page(r, i));
          if (v != r * 1000003L + i) wrong("dsm_write_fault: page %ld read %ld, expected %ld", i, v, r * 1000003L + i);
        }
      s0 = stats();
      for (long i = 0; i < P; i++) {
        uint64_t t0 = timer_ticks();
        *(volatile long *)word(a, fault_page(r, i)) = -(r * 1000003L + i) - 1;
        uint64_t t1 = timer_ticks();
        g_buf[n++] = timer_ns(t1 - t0);
      }
      s1 = stats();
      d.write_faults += s1.write_faults - s0.write_faults;
      d.read_faults += s1.read_faults - s0.read_faults;
      d.fetches += s1.fetches - s0.fetches;
    }
    rdsm_dsm_barrier();
    if (me == 0) /* PE 1's writes are visible */
      for (long i = 0; i < P; i++) {
        long v = *(volatile long *)word(a, fault_page(r, i));
        if (v != -(r * 1000003L + i) - 1)
          wrong("dsm_write_fault: PE 0 read %ld on page %ld after PE 1 wrote %ld", v, i, -(r * 1000003L + i) - 1);
      }
  }
  char mem[64];
  mem_name(mem, sizeof mem, what);
  g_n = n;
  report_from(1, "dsm_write_fault", mem, g_page, limit);
  if (me == 1)
    printf("# dsm_write_fault %s: PE 1 took %llu write faults, %llu read faults and %llu fetches for %d page writes\n",
           what, (unsigned long long)d.write_faults, (unsigned long long)d.read_faults, (unsigned long long)d.fetches, n);
  fflush(stdout);
  shmem_barrier_all();
  rdsm_dsm_free(a);
}

static void bench_faults(void) {
  g_opt.size_unit = "B";
  if (npes < 2) {
    if (me == 0) bench_note("fault: needs 2 PEs (has %d): skipped", npes);
    return;
  }
  limits();
  fault_read();
  fault_write("upgrade", 0, 1, g_segv_ns);
  fault_write("remote-owner", 0, 0, g_segv_ns + g_get_ns);
  fault_write("recall", 1, 0, g_segv_ns + g_get_ns);
}

/* ---- barrier ----------------------------------------------------------------------------------- */

/* One timed barrier; the PEs enter it together (an untimed shmem_barrier_all first). */
static double timed_barrier(int dsm) {
  shmem_barrier_all();
  uint64_t t0 = timer_ticks();
  if (dsm)
    rdsm_dsm_barrier();
  else
    shmem_barrier_all();
  return timer_ns(timer_ticks() - t0);
}

/* PE 0 reports the DSM barriers in g_buf[0, n) against the shmem_barrier_all calls timed alternately with them
 * in g_buf[n, 2n) (the slowest PE each time): the ratio cancels the machine's drift between configurations. */
static void report_barriers(const char *what, long pages, int n) {
  gather_max(2 * n);
  if (me == 0) {
    double ref = median_of(g_work + n, n), ref_p99 = g_work[n + (int)(0.99 * n)];
    char mem[64];
    mem_name(mem, sizeof mem, what);
    bench_report("dsm_barrier", mem, (size_t)pages, g_work, n, "ns", 1, ref);
    if (!strcmp(what, "cached") && pages == 0) {
      memmove(g_work, g_work + n, (size_t)n * sizeof(double));
      bench_report("limit_barrier_all", "shmem", 0, g_work, n, "ns", 1, 0);
    } else {
      bench_note("dsm_barrier %s %ld: shmem_barrier_all timed alternately: median %.4g ns, p99 %.4g ns", what, pages, ref,
                 ref_p99);
    }
  }
  shmem_barrier_all();
}

/* Each PE caches `c` pages of the next PE (it read them once), unchanged: the barrier should not care. */
static void barrier_cached(long c) {
  const int next = (me + 1) % npes;
  const int n = D.barrier_iters;
  char *a = NULL;
  if (c > 0) {
    a = rdsm_dsm_alloc_placed((size_t)c * (size_t)npes * g_page, RDSM_DSM_BLOCK, 0);
    if (!a) {
      if (me == 0) bench_note("dsm_barrier: rdsm_dsm_alloc_placed of %ld pages failed (RDSM_DSM_SIZE)", c * npes);
      return;
    }
    for (long i = 0; i < c; i++) *word(a, me * c + i) = me * 1000003L + i;
    rdsm_dsm_barrier();
    for (long i = 0; i < c; i++)
      if (*word(a, next * c + i) != next * 1000003L + i)
        wrong("dsm_barrier: page %ld read %ld, expected %ld", next * c + i, *word(a, next * c + i), next * 1000003L + i);
    rdsm_dsm_barrier();
  }
  if (me == 0) bench_progress("dsm_barrier", "cached", (size_t)c);
  rdsm_dsm_stats_t s0 = stats();
  for (int i = 0; i < n; i++) {
    g_buf[i] = timed_barrier(1);
    g_buf[n + i] = timed_barrier(0);
  }
  long seen = 0;
  for (long i = 0; i < c; i++) seen += *word(a, next * c + i) == next * 1000003L + i;
  rdsm_dsm_stats_t s1 = stats();
  if (seen != c) wrong("dsm_barrier: %ld of %ld cached pages changed (c = %ld)", c - seen, c, c);
  long dropped = (long)(s1.read_faults - s0.read_faults + s1.invalidations - s0.invalidations);
  shmem_long_atomic_add(g_wrong + 1, dropped, 0);
  report_barriers("cached", c, n);
  if (me == 0) {
    long total = shmem_long_atomic_fetch(g_wrong + 1, 0);
    bench_note("dsm_barrier cached %ld: %ld cached copies dropped or fetched again over %d barriers (all PEs)", c, total,
               n);
    *(g_wrong + 1) = 0;
  }
  shmem_barrier_all();
  if (a) rdsm_dsm_free(a);
}

/* Before each barrier every PE writes `k` of its own pages, which the next PE has cached and reads after it. */
static void barrier_changed(long k, int iters) {
  const int next = (me + 1) % npes;
  char *a = rdsm_dsm_alloc_placed((size_t)k * (size_t)npes * g_page, RDSM_DSM_BLOCK, 0);
  if (!a) {
    if (me == 0) bench_note("dsm_barrier: rdsm_dsm_alloc_placed of %ld pages failed", k * npes);
    return;
  }
  for (long i = 0; i < k; i++) *word(a, me * k + i) = -1;
  rdsm_dsm_barrier();
  for (long i = 0; i < k; i++) (void)*(volatile long *)word(a, next * k + i);
  rdsm_dsm_barrier();
  if (me == 0) bench_progress("dsm_barrier", "changed", (size_t)k);
  for (int s = 0; s < iters; s++) {
    for (long i = 0; i < k; i++) *word(a, me * k + i) = s * 1000003L + i; /* write faults, untimed */
    g_buf[s] = timed_barrier(1);
    for (long i = 0; i < k; i++) {
      long v = *(volatile long *)word(a, next * k + i);
      if (v != s * 1000003L + i) wrong("dsm_barrier changed: page %ld read %ld, expected %ld", next * k + i, v, s * 1000003L + i);
    }
    rdsm_dsm_barrier(); /* the next PE reads before this one writes again */
    g_buf[iters + s] = timed_barrier(0);
  }
  report_barriers("changed", k, iters);
  rdsm_dsm_free(a);
}

static void bench_barriers(void) {
  if (npes < 2) {
    if (me == 0) bench_note("barrier: needs 2 PEs (has %d): skipped", npes);
    return;
  }
  g_opt.size_unit = "pages";
  for (int i = 0; i < D.barrier_iters / 4; i++) { /* warm-up: the first barriers of a run are slower */
    timed_barrier(1);
    timed_barrier(0);
  }
  static const long cached[] = {0, 64, 1024, 16384};
  for (size_t i = 0; i < sizeof cached / sizeof *cached; i++)
    if (!D.quick || cached[i] <= 1024) barrier_cached(cached[i]);
  static const long changed[] = {1, 16, 256};
  for (size_t i = 0; i < sizeof changed / sizeof *changed; i++) {
    int iters = (int)(4096 / changed[i]);
    iters = iters > 200 ? 200 : iters < 20 ? 20 : iters;
    if (D.quick) iters = iters / 4 < 5 ? 5 : iters / 4;
    barrier_changed(changed[i], iters);
  }
}

/* ---- kernels ----------------------------------------------------------------------------------- */

enum { K_JACOBI, K_MATMUL, K_HIST };

static void run_kernel(int which) {
  static const char *const names[] = {"dsm_jacobi", "dsm_matmul", "dsm_histogram"};
  const char *name = names[which];
  size_t size = which == K_JACOBI ? (size_t)D.jacobi_n : which == K_MATMUL ? (size_t)D.matmul_n : (size_t)D.hist_n;
  char mem[64], what[32];
  snprintf(what, sizeof what, "np%d", npes);
  mem_name(mem, sizeof mem, what);
  if (me == 0) bench_progress(name, mem, size);
  double serial = 0;
  for (int rep = 0; rep < D.reps; rep++) {
    dsm_kernel_result r;
    int check = D.check && rep == 0, rc;
    if (which == K_JACOBI)
      rc = dsm_kernel_jacobi(D.jacobi_n, D.jacobi_it, check, &r);
    else if (which == K_MATMUL)
      rc = dsm_kernel_matmul(D.matmul_n, check, &r);
    else
      rc = dsm_kernel_histogram(D.hist_n, D.hist_bins, D.hist_chunk, check, &r);
    if (rc < 0) {
      if (me == 0) bench_note("%s: the DSM space is too small (RDSM_DSM_SIZE)", name);
      shmem_long_atomic_add(g_wrong, 1, 0);
      return;
    }
    if (rc > 0) {
      printf("# WRONG RESULT (PE %d): %s: %ld elements differ from the serial result; first: %s\n", me, name,
             r.mismatches, r.first);
      fflush(stdout);
      shmem_long_atomic_add(g_wrong, 1, 0);
    }
    g_buf[rep] = r.seconds * 1e9;
    if (rep == 0 && (me == 0 || me == npes - 1)) {
      const rdsm_dsm_stats_t *d = &r.dsm;
      printf("# %s PE %d, first run: %llu read faults, %llu write faults, %llu fetches, %llu invalidations, "
             "%llu write-backs, %llu notices, %llu requests served\n", name, me, (unsigned long long)d->read_faults,
             (unsigned long long)d->write_faults, (unsigned long long)d->fetches, (unsigned long long)d->invalidations,
             (unsigned long long)d->write_backs, (unsigned long long)d->notices, (unsigned long long)d->requests_served);
      fflush(stdout);
    }
    if (check && me == 0) serial = r.serial_seconds * 1e9;
  }
  gather_max(D.reps);
  if (me == 0) {
    bench_report(name, mem, size, g_work, D.reps, "ns", 1, serial);
    if (serial > 0) {
      double one = serial;
      bench_report(name, "serial", size, &one, 1, "ns", 1, 0);
    }
  }
  if (me == 0 && which == K_HIST && npes > 1) {
    /* Per lock hold, each handing the lock (and the bins' page) to another PE, beside one fetch-add round
     * trip plus the fault limit (SIGSEGV+mprotect + a page get) when this run measured them. */
    long holds = 0;
    for (int pe = 0; pe < npes; pe++) {
      long lo = D.hist_n * pe / npes, hi = D.hist_n * (pe + 1) / npes;
      holds += (hi - lo + D.hist_chunk - 1) / D.hist_chunk;
    }
    for (int rep = 0; rep < D.reps; rep++) g_work[rep] /= (double)holds;
    snprintf(mem, sizeof mem, "handoff-%s", g_tag);
    bench_report(name, mem, size, g_work, D.reps, "ns", 1, g_segv_ns > 0 ? g_amo_ns + g_segv_ns + g_get_ns : 0);
  }
  shmem_barrier_all();
  if (npes == 1 && which != K_HIST) { /* the 2-thread limit, where no other PE takes a CPU */
    bench_progress(name, "threads2", size);
    for (int rep = 0; rep < D.reps; rep++)
      g_work[rep] = 1e9 * (which == K_JACOBI ? dsm_kernel_jacobi_threads(D.jacobi_n, D.jacobi_it, 2)
                                             : dsm_kernel_matmul_threads(D.matmul_n, 2));
    bench_report(name, "threads2", size, g_work, D.reps, "ns", 1, 0);
  }
}

static void bench_kernels(void) {
  g_opt.size_unit = "n";
  if (me == 0) {
    if (D.do_jacobi) bench_note("dsm_jacobi: %d x %d doubles, %d iterations, block placement", D.jacobi_n, D.jacobi_n, D.jacobi_it);
    if (D.do_matmul) bench_note("dsm_matmul: %d x %d doubles, blocks of %d, A and B read-only", D.matmul_n, D.matmul_n,
                                DSM_KERNEL_MATMUL_BLOCK);
    if (D.do_hist)
      bench_note("dsm_histogram: %ld values, %d bins, %d values per lock hold", D.hist_n, D.hist_bins, D.hist_chunk);
  }
  long before = shmem_long_atomic_fetch(g_wrong, 0);
  shmem_barrier_all();
  if (D.do_jacobi) run_kernel(K_JACOBI);
  if (D.do_matmul) run_kernel(K_MATMUL);
  if (D.do_hist) run_kernel(K_HIST);
  shmem_barrier_all();
  if (me == 0 && D.check) {
    long bad = shmem_long_atomic_fetch(g_wrong, 0) - before;
    if (bad)
      bench_note("CHECK FAILED: %ld kernel results (PE, kernel) differ from the serial ones: see the WRONG RESULT lines "
                 "(%d PEs, consistency %s)", bad, npes, g_tag[0] == 'r' ? "release" : "sequential");
    else
      bench_note("CHECK passed: every kernel result equals the serial one on every PE (%d PEs, consistency %s)", npes,
                 g_tag[0] == 'r' ? "release" : "sequential");
  }
}

int main(int argc, char **argv) {
  parse(argc, argv);
  const char *csv = g_csv_path;
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (!g_opt.impl) g_opt.impl = "rdsm";
  if (csv && me == 0) {
    g_opt.csv = fopen(csv, "w");
    if (!g_opt.csv) perror(csv), shmem_global_exit(2);
  }
  const char *mode = getenv("RDSM_DSM_CONSISTENCY");
  g_tag = mode && !strcmp(mode, "sequential") ? "sc" : "rc";
  pin();
  timer_init();
  g_page = rdsm_dsm_page_size();
  g_buf = shmem_calloc(MAX_SAMPLES, sizeof(double));
  g_wrong = shmem_calloc(2, sizeof(long));
  g_work = calloc(MAX_SAMPLES, sizeof(double));
  if (me == 0) {
    bench_note("dsm_bench: %s, %d PEs, %ld CPUs, consistency %s, DSM page %zu B, %s%s", g_opt.impl, npes,
               sysconf(_SC_NPROCESSORS_ONLN), g_tag[0] == 'r' ? "release" : "sequential", g_page,
               D.quick ? "quick" : "full", D.check ? ", results checked" : "");
    double clx = bench_clx_ns(D.quick ? 5 : 15, D.quick ? 20000 : 100000);
    g_lim.clx_ns = clx;
    bench_report("limit_clx", "cpu0-1", 64, &clx, 1, "ns", 1, 0);
    bench_note("cache-line transfer %.1f ns one-way (%s mode)", clx, clx < 140 ? "near" : clx < 400 ? "far" : "busy (other load)");
  }
  shmem_barrier_all();
  if (D.do_fault) bench_faults();
  if (D.do_barrier) bench_barriers();
  if (D.do_jacobi || D.do_matmul || D.do_hist) bench_kernels();
  shmem_barrier_all();
  long bad = shmem_long_atomic_fetch(g_wrong, 0);
  if (me == 0) {
    double clx = bench_clx_ns(D.quick ? 5 : 15, D.quick ? 20000 : 100000);
    g_opt.size_unit = "B";
    bench_report("limit_clx_end", "cpu0-1", 64, &clx, 1, "ns", 1, 0);
    if (bad) bench_note("WRONG RESULTS: %ld (see the lines above)", bad);
  }
  shmem_barrier_all();
  if (g_opt.csv) fclose(g_opt.csv);
  shmem_finalize();
  return bad ? 1 : 0;
}
