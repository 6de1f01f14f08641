/* dsm_bench's parts (dsm_bench.c: options, kernels, main; dsm_bench_costs.c: limits, faults, barrier): what
 * they share. */
#ifndef RDSM_BENCH_DSM_BENCH_H
#define RDSM_BENCH_DSM_BENCH_H

#include <rdsm/dsm.h>
#include <stddef.h>

#define MAX_SAMPLES 16384

extern int me, npes;
extern size_t g_page;        /* the DSM's coherence unit */
extern const char *g_tag;    /* "rc" (release consistency) or "sc" (sequential), appended to the mem field */
extern double *g_buf;        /* symmetric: one PE's samples, gathered by PE 0 */
extern double *g_work;       /* PE 0: the gathered samples */
extern long *g_wrong;        /* symmetric, used on PE 0: wrong values seen by any PE */
extern double g_segv_ns, g_get_ns, g_copy_ns, g_amo_ns; /* PE 0: this run's limits */
extern double g_downgrade_ns; /* PE 0: mprotect taking write access away while another PE runs */
extern double g_wake_ns;     /* PE 0: a sleeping thread's wake-up from the other CPU (not a limit: a cost) */
extern int g_n;              /* symmetric (a global): how many samples this PE put in g_buf */

struct dsm_bench_opts {
  int check, quick, reps;
  int jacobi_n, jacobi_it, matmul_n, hist_bins, hist_chunk;
  long hist_n;
  int fault_pages, fault_rounds, barrier_iters;
  int do_fault, do_barrier, do_jacobi, do_matmul, do_hist;
};
extern struct dsm_bench_opts D;

/* A wrong value: one line, and counted on PE 0. */
void wrong(const char *fmt, long a, long b, long c);
/* The first word of page `page` of `base`. */
long *word(char *base, long page);
/* The mem field: `what` and the consistency tag. */
void mem_name(char *out, size_t n, const char *what);
/* PE 0 reports the samples in PE `from`'s g_buf (their count in its g_n). Collective. */
int report_from(int from, const char *bench, const char *mem, size_t size, double limit);
/* PE 0: g_work[i] = the largest g_buf[i] of all PEs. Collective. */
void gather_max(int n);
rdsm_dsm_stats_t stats(void);

/* dsm_bench_costs.c: the limits and fault latencies (2+ PEs), the barrier against cached and changed pages. */
void bench_faults(void);
void bench_barriers(void);

#endif
