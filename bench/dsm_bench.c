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
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bench.h"
#include "dsm_bench.h"
#include "dsm_kernels.h"

int me, npes;
size_t g_page;
const char *g_tag;
double *g_buf;
double *g_work;
long *g_wrong;
double g_segv_ns, g_get_ns, g_copy_ns, g_amo_ns;
double g_wake_ns;
double g_downgrade_ns;
int g_n;
struct dsm_bench_opts D;
static const char *g_csv_path;
static long *g_locks; /* symmetric, used on PE 0: per rep, the histogram's lock acquisitions [rep] and hand-offs
                       * [MAX_REPS + rep] summed over the PEs */
#define MAX_REPS 64

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
          "  kernels   any number of PEs: time of each kernel (slowest PE, median of --reps runs); on 1 PE also\n"
          "            Jacobi's and matmul's limit, threads2: 2 threads on private memory, thread i doing PE i's\n"
          "            rows of a 2-PE run; on 2+ PEs also the histogram per lock hand-off (its time / the\n"
          "            acquisitions that took the lock from another PE) beside fetch-add + fault limit (with fault)\n"
          "  --check          compare each kernel's result with a serial run on every PE; exit 1 on a mismatch\n"
          "  --jacobi N[,IT]  Jacobi grid side and iterations (default 2048,50)\n"
          "  --matmul N       matrix side (default 512)\n"
          "  --hist M[,B[,C]] histogram: M values, B bins, C values per lock hold (default 1048576,256,1024)\n"
          "  --reps R         runs per kernel (default 3, quick 1); with --check each is followed by the serial run\n"
          "  --pages P        pages per fault round (default 1024, quick 256)\n"
          "  --quick          fewer samples and sizes (tests)\n"
          "  --no-pin         do not pin PE i to CPU i mod ncpus\n"
          "  --csv FILE       also write the BENCH lines to FILE (PE 0)\n"
          "  --impl NAME      name in the BENCH lines (default rdsm)\n"
          "output: `BENCH,impl,bench,mem,size,samples,median,p99,unit,ratio,clx_ns` lines; mem ends in -rc or -sc\n"
          "(RDSM_DSM_CONSISTENCY release or sequential); size is bytes (faults), pages (barrier) or the problem\n"
          "size (kernels); ratio: fault / limit, DSM barrier / shmem_barrier_all, kernel / serial run, hand-off / limit.\n");
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
  if (D.reps > MAX_REPS) D.reps = MAX_REPS;
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

void wrong(const char *fmt, long a, long b, long c) {
  char text[200];
  snprintf(text, sizeof text, fmt, a, b, c);
  printf("# WRONG RESULT (PE %d): %s\n", me, text);
  fflush(stdout);
  shmem_long_atomic_add(g_wrong, 1, 0);
}

long *word(char *base, long page) { return (long *)(base + (size_t)page * g_page); }

void mem_name(char *out, size_t n, const char *what) { snprintf(out, n, "%s-%s", what, g_tag); }

/* PE 0 reports the samples in PE `from`'s g_buf (their count in its g_n). Collective. */
int report_from(int from, const char *bench, const char *mem, size_t size, double limit) {
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
void gather_max(int n) {
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

rdsm_dsm_stats_t stats(void) {
  rdsm_dsm_stats_t s;
  rdsm_dsm_stats(&s);
  return s;
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
  if (me == 0) memset(g_locks, 0, 2 * MAX_REPS * sizeof(long));
  shmem_barrier_all();
  double serial = 0, serials[MAX_REPS];
  for (int rep = 0; rep < D.reps; rep++) {
    dsm_kernel_result r;
    int check = D.check, rc;
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
    if (which == K_HIST) {
      shmem_long_atomic_add(&g_locks[rep], r.acquisitions, 0);
      shmem_long_atomic_add(&g_locks[MAX_REPS + rep], r.handoffs, 0);
    }
    if (rep == 0 && (me == 0 || me == npes - 1)) {
      const rdsm_dsm_stats_t *d = &r.dsm;
      printf("# %s PE %d, first run: %llu read faults, %llu write faults, %llu fetches, %llu invalidations, "
             "%llu write-backs, %llu notices, %llu requests served\n", name, me, (unsigned long long)d->read_faults,
             (unsigned long long)d->write_faults, (unsigned long long)d->fetches, (unsigned long long)d->invalidations,
             (unsigned long long)d->write_backs, (unsigned long long)d->notices, (unsigned long long)d->requests_served);
      fflush(stdout);
    }
    serials[rep] = r.serial_seconds * 1e9;
  }
  /* The serial run follows each DSM run: its median over the same runs (one serial run is at the machine's
   * mercy, and this machine's speed drifts by 10% between runs a second apart). */
  if (D.check && me == 0) serial = median_of(serials, D.reps);
  gather_max(D.reps);
  double per_rep[MAX_REPS]; /* the slowest PE's time per run, in run order (bench_report sorts g_work) */
  memcpy(per_rep, g_work, (size_t)D.reps * sizeof(double));
  if (me == 0) {
    g_opt.ratio_of = "serial";
    bench_report(name, mem, size, g_work, D.reps, "ns", 1, serial);
    g_opt.ratio_of = NULL;
    if (serial > 0) {
      double one = serial;
      bench_report(name, "serial", size, &one, 1, "ns", 1, 0);
    }
  }
  if (me == 0 && which == K_HIST && npes > 1) {
    /* Per lock hand-off (an acquisition that took the lock, and with it the bins' page, from another PE),
     * beside one fetch-add round trip plus the fault limit (SIGSEGV+mprotect + a page get) when this run
     * measured them. Each run's time divided by its own hand-offs. */
    int n = 0, len = 0;
    char counts[256] = "";
    for (int rep = 0; rep < D.reps; rep++) {
      long h = g_locks[MAX_REPS + rep];
      if (h > 0) g_work[n++] = per_rep[rep] / (double)h;
      if (len < (int)sizeof counts - 24)
        len += snprintf(counts + len, sizeof counts - (size_t)len, "%s%ld", rep ? ", " : "", h);
    }
    bench_note("dsm_histogram: %ld lock acquisitions per run; hand-offs between PEs per run: %s", g_locks[0], counts);
    snprintf(mem, sizeof mem, "handoff-%s", g_tag);
    if (n > 0)
      bench_report(name, mem, size, g_work, n, "ns", 1, g_segv_ns > 0 ? g_amo_ns + g_segv_ns + g_get_ns : 0);
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
  const char *same_host = getenv("RDSM_DSM_SAME_HOST");
  g_tag = mode && !strcmp(mode, "sequential") ? "sc" : same_host && !strcasecmp(same_host, "copy") ? "rcopy" : "rc";
  pin();
  timer_init();
  g_page = rdsm_dsm_page_size();
  g_buf = shmem_calloc(MAX_SAMPLES, sizeof(double));
  g_wrong = shmem_calloc(2, sizeof(long));
  g_locks = shmem_calloc(2 * MAX_REPS, sizeof(long));
  g_work = calloc(MAX_SAMPLES, sizeof(double));
  if (me == 0) {
    bench_note("dsm_bench: %s, %d PEs, %ld CPUs, consistency %s%s, DSM page %zu B, %s%s", g_opt.impl, npes,
               sysconf(_SC_NPROCESSORS_ONLN), g_tag[0] == 'r' ? "release" : "sequential",
               !strcmp(g_tag, "rcopy") ? " (pages of other homes copied: RDSM_DSM_SAME_HOST=copy)" : "", g_page,
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
