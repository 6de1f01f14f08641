/* Cache maintenance in a DSM job, counted per PE: pages homed on the first PE are read by every other PE, and
 * pages homed on the last PE are written by it and then read by the others. A PE whose maintenance is on
 * (RDSM_CACHE_MAINTENANCE=auto turns it on for aarch64 and off for x86-64) and that reaches a home through the
 * network must invalidate each page fetched from there (at least one invalidation per fetch) and, as a home,
 * clean the frames it wrote before peers read them; a PE whose maintenance is off must count none.
 * Usage: dsm_cache_maintenance [pages]. Prints one line per PE and "cache maintenance: ok" on PE 0. */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__)
static const char arch[] = "aarch64";
#elif defined(__x86_64__)
static const char arch[] = "x86_64";
#else
static const char arch[] = "other";
#endif

static long failures; /* symmetric: every PE adds its failures to PE 0's */

static void fail(const char* what, int me) {
  fprintf(stderr, "PE %d (%s): %s\n", me, arch, what);
  shmem_long_atomic_add(&failures, 1, 0);
}

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), last = n - 1;
  const size_t pages = argc > 1 ? (size_t)atol(argv[1]) : 16;
  const size_t page = rdsm_dsm_page_size(), words = page / sizeof(long);
  long* first = rdsm_dsm_alloc_placed(pages * page, RDSM_DSM_ON_PE, 0);
  long* second = rdsm_dsm_alloc_placed(pages * page, RDSM_DSM_ON_PE, (size_t)last);
  /* Whether this PE reaches each home through the network: PEs of one host map each other's DSM frames, and
     RDSM_HOST_ID tells "hosts" of one machine apart (tests/multihost/netns_job.sh). */
  long* host_of = shmem_calloc((size_t)n, sizeof(long));
  long host = 0;
  for (const char* c = getenv("RDSM_HOST_ID"); c != NULL && *c != '\0'; ++c) host = host * 131 + *c;
  for (int pe = 0; pe < n; ++pe) shmem_long_p(&host_of[me], host, pe);
  shmem_barrier_all();
  const int far_first = host_of[0] != host, far_second = host_of[last] != host;
  const char* mode = getenv("RDSM_CACHE_MAINTENANCE");
  const int maintains = mode != NULL && strcmp(mode, "on") == 0 ? 1
                        : mode != NULL && strcmp(mode, "off") == 0 ? 0
                        : strcmp(arch, "aarch64") == 0;
  if (me == 0)
    for (size_t i = 0; i < pages * words; ++i) first[i] = (long)i;
  if (me == last)
    for (size_t i = 0; i < pages * words; ++i) second[i] = 3 * (long)i + 1;
  rdsm_dsm_barrier();

  /* Each region read on its own, with the counters around it: pages fetched through the network must be
     invalidated (one invalidation per read of a run of pages: at least one per fault), pages copied from a
     home of this host need none. */
  for (int r = 0; r < 2; ++r) {
    const long* region = r == 0 ? first : second;
    const int home = r == 0 ? 0 : last, far = r == 0 ? far_first : far_second;
    if (me == home) continue;
    rdsm_dsm_stats_t before, after;
    rdsm_dsm_stats(&before);
    long sum = 0, want = 0;
    for (size_t p = 0; p < pages; ++p) {
      const size_t i = p * words + (size_t)me % words;
      sum += region[i];
      want += r == 0 ? (long)i : 3 * (long)i + 1;
    }
    rdsm_dsm_stats(&after);
    if (sum != want) fail("read wrong values from the DSM", me);
    const unsigned long long faults = after.read_faults - before.read_faults;
    const unsigned long long fetches = after.fetches - before.fetches;
    const unsigned long long inval = after.cache_invalidates - before.cache_invalidates;
    printf("PE %d (%s, maintenance %s): pages of PE %d (%s): %llu read faults, %llu pages fetched, %llu "
           "invalidations (%.2f per fault)\n",
           me, arch, maintains ? "on" : "off", home, far ? "through the network" : "same host", faults, fetches,
           inval, faults ? (double)inval / (double)faults : 0.0);
    if (maintains && far && (faults == 0 || inval < faults))
      fail("fetched pages through the network without invalidating them", me);
    if (!far && inval != 0) fail("invalidated pages copied from a home on its own host", me);
  }
  rdsm_dsm_stats_t all;
  rdsm_dsm_stats(&all);
  printf("PE %d (%s): %llu cleans, %llu invalidations, %llu cache lines in all\n", me, arch,
         (unsigned long long)all.cache_cleans, (unsigned long long)all.cache_invalidates,
         (unsigned long long)all.cache_lines);
  fflush(stdout);
  if (maintains && me == last && n > 1 && all.cache_cleans == 0) fail("as a home it wrote frames and cleaned none", me);
  if (!maintains && (all.cache_invalidates != 0 || all.cache_cleans != 0))
    fail("maintained caches with maintenance off", me);
  shmem_barrier_all();
  if (me == 0) printf("cache maintenance: %s\n", shmem_long_atomic_fetch(&failures, 0) == 0 ? "ok" : "FAILED");
  const int ok = shmem_long_atomic_fetch(&failures, 0) == 0;
  rdsm_dsm_free(second);
  rdsm_dsm_free(first);
  shmem_free(host_of);
  shmem_finalize();
  return ok ? 0 : 1;
}
