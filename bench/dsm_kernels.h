/* Data-race-free kernels on rdsm's DSM (rdsm/dsm.h), each checked against the same computation done serially
 * in private memory: a Jacobi 2-D stencil, a blocked matrix multiply and a lock-protected histogram.
 *
 * Every function is collective (every PE calls it with the same arguments, after shmem_init), allocates
 * its DSM memory, runs, optionally checks, and frees it. Used by dsm_bench (bench/dsm_bench.c) and usable
 * from a test: link bench/dsm_kernels.c with rdsm.
 *
 * Checking: with `check` set, every PE computes the same kernel serially in malloc'ed memory and compares
 * the whole DSM result with it, element by element and exactly (integers by value, doubles bit for bit).
 * The doubles come out bitwise identical because the DSM and the serial runs call the same non-inlined
 * row function, which fixes each element's order of operations (and the file is compiled with
 * -ffp-contract=off so no fused multiply-add can differ between the two). */
#ifndef RDSM_BENCH_DSM_KERNELS_H
#define RDSM_BENCH_DSM_KERNELS_H

#include <rdsm/dsm.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double seconds;        /* the parallel part on this PE: from a barrier after setup to the last barrier */
  double serial_seconds; /* the serial reference's compute in private memory, set-up excluded (check only) */
  long mismatches;       /* elements of the DSM result different from the serial one (check only) */
  char first[200];       /* the first mismatch, described; "" when none */
  rdsm_dsm_stats_t dsm;  /* this PE's DSM counters during the timed part (rdsm_dsm_stats difference) */
  long acquisitions;     /* histogram: this PE's lock acquisitions */
  long handoffs;         /* histogram: those that took the lock from another PE (the previous holder) */
} dsm_kernel_result;

/* Jacobi on an n x n grid of doubles (n >= 3): two grids placed by block (rdsm_dsm_alloc_placed(...,
 * RDSM_DSM_BLOCK, 0)), each PE updates the interior points of the rows whose first byte it homes, one
 * rdsm_dsm_barrier() per iteration. Returns 0 (checked and equal, or not checked), 1 (a mismatch on this
 * PE), -1 (the DSM space is too small). With `check`, the rows this PE homes must also be those of
 * dsm_kernel_split (else a mismatch: the thread limit would not do a PE's work); so for matmul. */
int dsm_kernel_jacobi(int n, int iters, int check, dsm_kernel_result *r);

/* C = A x B, n x n doubles, blocked by DSM_KERNEL_MATMUL_BLOCK: each PE writes its block rows of A and B,
 * a barrier, both advised RDSM_DSM_READ_ONLY, then each PE computes the rows of C it homes (block
 * placement), and a barrier. */
#define DSM_KERNEL_MATMUL_BLOCK 64
int dsm_kernel_matmul(int n, int check, dsm_kernel_result *r);

/* Histogram of `elements` pseudo-random 32-bit values (splitmix64 of the index, kept in DSM, each PE
 * writing its share) into `bins` longs in DSM memory; each PE takes the values of its share `chunk` at a
 * time and adds each chunk to the bins under one rdsm_dsm_lock. Counts this PE's acquisitions and hand-offs
 * (a word beside the bins names the last holder). */
int dsm_kernel_histogram(long elements, int bins, int chunk, int check, dsm_kernel_result *r);

/* Part `index` of `parts` of an n-row matrix (rows of `row_bytes`) placed by RDSM_DSM_BLOCK with DSM pages of
 * `page` bytes: the rows [*r0, *r1) whose first byte that part (PE) homes. */
void dsm_kernel_split(int n, size_t row_bytes, size_t page, int parts, int index, int *r0, int *r1);

/* The machine's limit for Jacobi and matmul: the PEs' per-part functions run by `threads` threads of this
 * process on private memory (malloc), thread i doing what PE i of `threads` PEs does (the rows of
 * dsm_kernel_split with this DSM page size, filled by that thread, untimed), pinned to CPU i mod CPUs as
 * dsm_bench pins PE i, a thread barrier where the PEs have rdsm_dsm_barrier. Returns the slowest thread's
 * timed part in seconds (set-up excluded). */
double dsm_kernel_jacobi_threads(int n, int iters, int threads);
double dsm_kernel_matmul_threads(int n, int threads);

#ifdef __cplusplus
}
#endif

#endif
