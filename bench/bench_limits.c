/* shmem_bench: this machine's limits, measured without SHMEM (memcpy, cache-line transfer, atomics, faults). */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <shmem.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>


static void pin_self(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % CPU_SETSIZE, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* ---- memcpy bandwidth per size, in one PE ---------------------------------------------------- */
void do_memcpy(void *p, long k) {
  struct copy_ctx *c = p;
  for (long i = 0; i < k; i++) {
    memcpy(c->dst, c->src, c->size);
    __asm__ __volatile__("" ::: "memory"); /* keep every copy */
  }
}

static void limit_memcpy(double *ns) {
  struct copy_ctx c = {malloc(BENCH_MAX_SIZE), malloc(BENCH_MAX_SIZE), 0};
  memset(c.dst, 1, BENCH_MAX_SIZE);
  memset(c.src, 2, BENCH_MAX_SIZE);
  size_t sizes[32];
  int ns_sizes = bench_sizes(g_opt.max_size, sizes);
  for (int i = 0; i < ns_sizes; i++) {
    c.size = sizes[i];
    bench_progress("limit_memcpy", "local", c.size);
    int n = bench_sample(do_memcpy, &c, ns);
    bench_report("limit_memcpy", "local", c.size, ns, n, "MB/s", (double)c.size, 0);
    int lg = 0;
    while (((size_t)1 << lg) < c.size) lg++;
    g_lim.memcpy_mbs[lg] = (double)c.size / median_of(ns, n) * 1e3;
  }
  free(c.dst);
  free(c.src);
}

/* ---- two threads on CPU 0 and 1: flag ping-pong and a contended fetch_add ------------------- */
struct pair {
  _Alignas(128) atomic_long flag;
  _Alignas(128) atomic_long counter;
  _Alignas(128) atomic_int ready;
  long iters;
  int mode; /* 0: ping-pong, 1: contended fetch_add */
  double ns[2];
};

static void *pair_thread(void *p) {
  struct pair *x = p;
  int id = atomic_fetch_add(&x->ready, 1);
  pin_self(id);
  while (atomic_load(&x->ready) < 2) {
  }
  uint64_t t0 = timer_ticks();
  if (x->mode == 0) {
    /* thread 0 turns even values odd, thread 1 odd values even: each step is one line transfer */
    for (long i = 0; i < x->iters; i++) {
      long want = 2 * i + id;
      while (atomic_load_explicit(&x->flag, memory_order_acquire) != want) {
      }
      atomic_store_explicit(&x->flag, want + 1, memory_order_release);
    }
  } else {
    for (long i = 0; i < x->iters; i++) atomic_fetch_add(&x->counter, 1);
  }
  x->ns[id] = timer_ns(timer_ticks() - t0);
  return NULL;
}

static double run_pair(int mode, long iters) {
  struct pair x;
  memset(&x, 0, sizeof x);
  x.mode = mode;
  x.iters = iters;
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, pair_thread, &x);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  /* ping-pong: 2*iters one-way transfers in the slower thread's time; fetch_add: ns per op per thread */
  double ns = x.ns[0] > x.ns[1] ? x.ns[0] : x.ns[1];
  return mode == 0 ? ns / (2.0 * (double)iters) : ns / (double)iters;
}

double bench_clx_ns(int reps, long iters) {
  double ns[64];
  if (reps > 64) reps = 64;
  for (int r = 0; r < reps; r++) ns[r] = run_pair(0, iters);
  return median_of(ns, reps);
}

static void limit_pair(const char *name, int mode, int reps, long iters, double *ns) {
  bench_progress(name, "cpu0-1", 64);
  for (int r = 0; r < reps; r++) ns[r] = run_pair(mode, iters);
  bench_report(name, "cpu0-1", 64, ns, reps, "ns", 1, 0);
}

/* ---- page faults and SIGSEGV + mprotect --------------------------------------------------------- */
static double limit_fault_once(size_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 0;
  madvise(p, bytes, MADV_NOHUGEPAGE); /* one fault per 4 KiB page, not per 2 MiB */
  uint64_t t0 = timer_ticks();
  for (size_t off = 0; off < bytes; off += (size_t)page) p[off] = 1;
  double ns = timer_ns(timer_ticks() - t0);
  munmap(p, bytes);
  return ns / (double)(bytes / (size_t)page);
}

static char *g_segv_page;
static long g_segv_size;
static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)si, (void)uc;
  mprotect(g_segv_page, (size_t)g_segv_size, PROT_READ | PROT_WRITE);
}

void limit_segv(int reps, double *ns) {
  g_segv_size = sysconf(_SC_PAGESIZE);
  g_segv_page = mmap(NULL, (size_t)g_segv_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (g_segv_page == MAP_FAILED) return;
  g_segv_page[0] = 0;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &old); /* UCX installs its own handler: put it back afterwards */
  for (int r = 0; r < reps; r++) {
    mprotect(g_segv_page, (size_t)g_segv_size, PROT_NONE);
    uint64_t t0 = timer_ticks();
    *(volatile char *)g_segv_page = (char)r; /* faults; the handler opens the page; the store retries */
    ns[r] = timer_ns(timer_ticks() - t0);
  }
  sigaction(SIGSEGV, &old, NULL);
  munmap(g_segv_page, (size_t)g_segv_size);
  bench_report("limit_segv", "local", (size_t)g_segv_size, ns, reps, "ns", 1, 0);
}

/* PE 1 waits on a FIFO while PE 0 measures: no CPU used and no SHMEM call, since OSHMEM completes some
 * puts (to globals, or over TCP) only while the target calls into it, and a spinning PE 1 would take
 * the CPU the pinned threads need. Both PEs are on this host. */
static long g_fifo_owner; /* PE 0's pid: names the FIFO through which PE 0 holds PE 1 still */

void bench_limits(int me, int at_end) {
  /* PE 1 waits on a FIFO while PE 0 measures, so it takes no CPU. The FIFO is named after PE 0's pid, which
   * PE 1 reads with a get after a barrier (PEs need not share a parent: under the tcp rendezvous each has its
   * own; a put of the name was once overtaken by the barrier under OSHMEM over TCP, a get cannot be). */
  char path[64];
  if (me == 0) {
    g_fifo_owner = (long)getpid();
    snprintf(path, sizeof path, "/tmp/shmem_bench.%ld.%d", g_fifo_owner, at_end);
    unlink(path);
    if (mkfifo(path, 0600) != 0) perror("shmem_bench: mkfifo"), shmem_global_exit(1);
  }
  shmem_barrier_all();
  if (me == 1) snprintf(path, sizeof path, "/tmp/shmem_bench.%ld.%d", shmem_long_g(&g_fifo_owner, 0), at_end);
  shmem_barrier_all(); /* PE 0 blocks in open() below: it must not before the get is served (OSHMEM needs it) */
  if (me > 1) { /* further PEs (collectives over more PEs) just wait at PE 0's closing barrier */
    shmem_barrier_all();
    return;
  }
  int fd = open(path, me == 0 ? O_WRONLY : O_RDONLY); /* each open waits for the other side's */
  if (fd < 0) perror("shmem_bench: open fifo"), shmem_global_exit(1);
  if (me != 0) {
    char c;
    while (read(fd, &c, 1) < 0 && errno == EINTR) {
    }
    close(fd);
    shmem_barrier_all();
    return;
  }
  double *ns = malloc(sizeof(double) * (size_t)(g_opt.max_samples > 4096 ? g_opt.max_samples : 4096));
  int reps = g_opt.quick ? 5 : 15;
  long iters = g_opt.quick ? 20000 : 100000;
  limit_pair(at_end ? "limit_clx_end" : "limit_clx", 0, reps, iters, ns);
  double clx = median_of(ns, reps);
  if (!at_end) {
    g_lim.clx_ns = clx;
    limit_pair("limit_atomic", 1, reps, iters, ns);
    for (int r = 0; r < reps; r++) ns[r] = limit_fault_once(g_opt.quick ? (8u << 20) : (32u << 20));
    bench_report("limit_fault", "local", 4096, ns, reps, "ns", 1, 0);
    limit_segv(g_opt.quick ? 200 : 2000, ns);
    limit_memcpy(ns);
  }
  bench_note("cache-line transfer %.1f ns one-way (%s mode)%s", clx, clx < 140 ? "near" : clx < 400 ? "far" : "busy (other load)",
             at_end ? " at the end of the run" : "");
  free(ns);
  if (g_opt.pin) pin_self(0);
  if (write(fd, "x", 1) != 1) perror("shmem_bench: write fifo");
  close(fd);
  unlink(path);
  shmem_barrier_all();
}
