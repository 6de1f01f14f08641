/* dsm_bench's costs of the DSM's mechanisms beside this machine's limits: SIGSEGV + mprotect, a page copy and
 * get, a fetch-add round trip, a thread's wake-up; the read- and write-fault latencies; rdsm_dsm_barrier
 * against the number of cached and of changed pages. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <rdsm/dsm.h>
#include <sched.h>
#include <shmem.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "dsm_bench.h"

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

/* Taking write access away from a written page of a shared file mapping (mprotect to read-only), as a
 * sequential-mode owner does when another PE reads its page, while another PE keeps its CPU busy (PE 0 polls
 * in shmem_long_wait_until): a guest with shadow page tables may then flush the other CPU as well. */
static int limit_downgrade(double *ns, int reps) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  int fd = memfd_create("rdsm-bench-downgrade", 0);
  if (fd < 0 || ftruncate(fd, (off_t)page) != 0) return 0;
  volatile char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return 0;
  for (int i = 0; i < reps; i++) {
    p[0] = (char)i; /* written: the entry is writable and dirty, as an owner's page */
    uint64_t t0 = timer_ticks();
    mprotect((void *)p, page, PROT_READ);
    ns[i] = timer_ns(timer_ticks() - t0);
    mprotect((void *)p, page, PROT_READ | PROT_WRITE);
  }
  munmap((void *)p, page);
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
  static long measured; /* PE 1 sets PE 0's when done; PE 0 polls for it meanwhile */
  if (me == 1) {
    bench_progress("limit_downgrade", "busy-cpu", (size_t)sysconf(_SC_PAGESIZE));
    g_n = limit_downgrade(g_buf, D.quick ? 200 : 2000);
    shmem_long_atomic_set(&measured, 1, 0);
  } else if (me == 0) {
    shmem_long_wait_until(&measured, SHMEM_CMP_NE, 0);
    measured = 0;
  }
  n = report_from(1, "limit_downgrade", "busy-cpu", (size_t)sysconf(_SC_PAGESIZE), 0);
  if (me == 0) g_downgrade_ns = median_of(g_work, n);
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
    bench_note("limits: mprotect taking write access away while another PE runs %.3g ns (a sequential-mode read of a "
               "page another PE writes needs one at least: its floor is SIGSEGV+mprotect + that + get, %.3g ns)",
               g_downgrade_ns, g_segv_ns + g_downgrade_ns + g_get_ns);
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

void bench_faults(void) {
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
    g_opt.ratio_of = "barrier_all";
    bench_report("dsm_barrier", mem, (size_t)pages, g_work, n, "ns", 1, ref);
    g_opt.ratio_of = NULL;
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

void bench_barriers(void) {
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

