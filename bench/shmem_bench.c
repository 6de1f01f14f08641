/* shmem_bench: OSU-style OpenSHMEM benchmarks beside this machine's limits; plain C11 for rdsm and OSHMEM alike. */
#define _GNU_SOURCE
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <shmem.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const k_all[] = {"put_lat", "get_lat",  "put_bw",    "get_bw",   "align",    "amo",   "signal",
                                    "put_pp",  "barrier",  "broadcast", "fcollect", "alltoall", "reduce"};
#define N_ALL (sizeof k_all / sizeof *k_all)

static int g_want_lock;

static void usage(FILE *f) {
  fprintf(f,
          "usage: shmem_bench [options] [bench...]   (2 PEs or more: PE 0 measures against PE 1; barrier and\n"
          "         collectives take every PE)\n"
          "benches: put_lat get_lat put_bw get_bw align amo signal put_pp barrier broadcast fcollect alltoall\n"
          "         reduce (put_pp: 8-byte put ping-pong, half the round trip)\n"
          "         lock (not in all: every PE sets one of min(PEs, 8) locks at random, updates a word of\n"
          "         a PE's table under it, clears it; the time per acquisition of the whole job)\n"
          "         (default: all; coll: the last four); the machine's limits (memcpy, cache-line transfer,\n"
          "         contended atomic, page fault, SIGSEGV) are always measured\n"
          "  --quick          few sizes and samples (tests)\n"
          "  --no-cswap32     skip 32-bit compare_swap (crashes in Open MPI 4.1's OSHMEM)\n"
          "  --no-pin         do not pin PE i to CPU i\n"
          "  --csv FILE       also write the CSV lines to FILE\n"
          "  --impl NAME      name in the CSV lines (default: from shmem_info_get_name)\n"
          "  --samples N      samples per point (default 1000, quick 30)\n"
          "  --budget S       seconds per point, warm-up excluded (default 0.2, quick 0.01)\n"
          "  --max-size B     largest heap message (default and maximum 4194304)\n"
          "output: lines `BENCH,impl,bench,mem,size,samples,median,p99,unit,ratio_to_limit,clx_ns` and\n"
          "a table; p99 is the slow tail (high for ns, low for MB/s and Mops/s); a sample is a batch of\n"
          "operations lasting >= 200 ns, its value the time per operation. Collectives: every PE calls,\n"
          "then an untimed barrier; a sample is one call, timed by each PE, the slowest PE's time.\n");
}

static void parse(int argc, char **argv, int *selected) {
  g_opt.pin = 1;
  g_opt.max_size = BENCH_MAX_SIZE;
  g_opt.batch_ns = 200;
  int samples = 0, any = 0;
  double budget = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "--quick")) {
      g_opt.quick = 1;
    } else if (!strcmp(a, "--no-cswap32")) {
      g_opt.no_cswap32 = 1;
    } else if (!strcmp(a, "--no-pin")) {
      g_opt.pin = 0;
    } else if (!strcmp(a, "--csv") && more) {
      g_opt.csv = fopen(argv[++i], "w");
      if (!g_opt.csv) perror(argv[i]), exit(2);
    } else if (!strcmp(a, "--impl") && more) {
      g_opt.impl = argv[++i];
    } else if (!strcmp(a, "--samples") && more) {
      samples = atoi(argv[++i]);
    } else if (!strcmp(a, "--budget") && more) {
      budget = atof(argv[++i]);
    } else if (!strcmp(a, "--max-size") && more) {
      g_opt.max_size = strtoul(argv[++i], NULL, 0);
      if (g_opt.max_size == 0 || g_opt.max_size > BENCH_MAX_SIZE) g_opt.max_size = BENCH_MAX_SIZE;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    } else {
      size_t j = 0;
      if (!strcmp(a, "lock")) { /* only when asked for: not part of "all" */
        g_want_lock = 1;
        any = 1;
        continue;
      }
      if (!strcmp(a, "coll")) { /* the collectives: the last four */
        for (size_t k = N_ALL - 4; k < N_ALL; k++) selected[k] = 1;
        any = 1;
        continue;
      }
      while (j < N_ALL && strcmp(a, k_all[j]) != 0) j++;
      if (j == N_ALL && strcmp(a, "all") != 0) {
        fprintf(stderr, "shmem_bench: unknown argument '%s'\n", a);
        usage(stderr);
        exit(2);
      }
      for (size_t k = 0; k < N_ALL; k++)
        if (j == N_ALL || k == j) selected[k] = 1;
      any = 1;
    }
  }
  if (!any)
    for (size_t k = 0; k < N_ALL; k++) selected[k] = 1;
  g_opt.max_samples = samples > 0 ? samples : g_opt.quick ? 30 : 1000;
  g_opt.budget_s = budget > 0 ? budget : g_opt.quick ? 0.01 : 0.2;
  g_opt.tty = isatty(2);
}

int main(int argc, char **argv) {
  int selected[N_ALL] = {0};
  parse(argc, argv, selected);
  shmem_init();
  int me = shmem_my_pe(), npes = shmem_n_pes();
  static char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_name(name);
  for (char *p = name; *p; p++)
    if (*p == ',' || *p == ' ') *p = '_';
  if (!g_opt.impl) g_opt.impl = name;
  if (npes < 2) {
    if (me == 0) fprintf(stderr, "shmem_bench: needs 2 PEs (has %d)\n", npes);
    shmem_finalize();
    return 2;
  }
  if (g_opt.pin) { /* PE i on CPU i: both implementations placed alike */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(me % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  timer_init();
  if (me == 0) {
    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    bench_note("shmem_bench: %s (%s), OpenSHMEM %d.%d, %d PEs, %ld CPUs, %s, %d samples/point, %.3g s/point",
               g_opt.impl, name, major, minor, npes, sysconf(_SC_NPROCESSORS_ONLN), g_opt.quick ? "quick" : "full",
               g_opt.max_samples, g_opt.budget_s);
  }
  bench_rma_init();
  bench_limits(me, 0);
  for (size_t k = 0; k < N_ALL; k++) {
    if (!selected[k]) continue;
    const char *b = k_all[k];
    if (!strcmp(b, "amo"))
      bench_amo(me);
    else if (!strcmp(b, "align"))
      bench_align(me);
    else if (!strcmp(b, "signal"))
      bench_signal(me);
    else if (!strcmp(b, "put_pp"))
      bench_put_pingpong(me);
    else if (!strcmp(b, "barrier"))
      bench_barrier(me);
    else if (!strcmp(b, "broadcast") || !strcmp(b, "fcollect") || !strcmp(b, "alltoall") || !strcmp(b, "reduce"))
      bench_coll(me, b);
    else
      bench_rma(me, b);
  }
  if (g_want_lock) bench_lock(me);
  bench_limits(me, 1);
  if (g_opt.csv) fclose(g_opt.csv);
  shmem_finalize();
  return 0;
}
