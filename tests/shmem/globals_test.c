/* Global variables shared between the PEs of a host (RDSM_SHARE_GLOBALS=1): argv[1] names the case.
 * "untouched": a large static array the program never touched takes no memory in the memory file that holds
 * the globals, and a peer reads through its mapping what was stored before shmem_init, and zeros elsewhere.
 * "stores_during_init": a thread started before shmem_init sets each byte of a global array once while
 * shmem_init moves the globals onto that file; none of its stores is lost, here or as a peer sees them.
 * "fork": a child forked after shmem_init starts with the PE's globals, and its stores to them are its own. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNTOUCHED_BYTES (64L << 20)
#define STORED_LONGS (1L << 20)

static char untouched[UNTOUCHED_BYTES]; /* never written (but by a forked child) */
static long stored[STORED_LONGS];       /* three entries written before shmem_init */
long initialized = 42;                  /* .data */
#define FLAGS (16L << 20)
/* The pages are copied in address order: flags' first, then the ballast's, which takes a while. */
static struct {
  char flags[FLAGS]; /* each byte set once by the thread */
  char ballast[16L << 20];
} moved;
long counter = 5;         /* .data, written by a forked child */
static long bss_value;    /* .bss, written by a forked child */
static volatile int stop; /* tells the thread to stop */
static long flags_set;    /* how many it set: flags[0, flags_set) */

static int failures;
#define CHECK(cond, ...)                                                 \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "globals_test: PE %d: ", shmem_my_pe());          \
      fprintf(stderr, __VA_ARGS__);                                      \
      fprintf(stderr, "\n");                                             \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

/* Bytes of memory the memory file of this process's globals holds, or -1 if there is none. */
static long long globals_file_bytes(void) {
  DIR* dir = opendir("/proc/self/fd");
  long long bytes = -1;
  struct dirent* e;
  while (dir != NULL && (e = readdir(dir)) != NULL) {
    char path[300], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    const ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    struct stat st;
    if (strncmp(target, "/memfd:rdsm-globals", 19) == 0 && stat(path, &st) == 0) bytes = (long long)st.st_blocks * 512;
  }
  if (dir != NULL) closedir(dir);
  return bytes;
}

static void untouched_case(void) {
  stored[0] = 1;
  stored[12345] = 2;
  stored[STORED_LONGS - 1] = 3;
  shmem_init();
  const int me = shmem_my_pe(), peer = (me + 1) % shmem_n_pes();
  const long long bytes = globals_file_bytes();
  CHECK(bytes >= 0, "no memory file holds the global variables");
  CHECK(bytes < (4L << 20), "the memory file of the globals holds %lld bytes; the data written is a few pages",
        bytes);
  shmem_barrier_all(); /* every PE measured its file before any reads a peer's */
  const long* s = shmem_ptr(stored, peer);
  const char* u = shmem_ptr(untouched, peer);
  const long* i = shmem_ptr(&initialized, peer);
  CHECK(s != NULL && u != NULL && i != NULL, "PE %d's globals are not mapped here", peer);
  if (s != NULL && u != NULL && i != NULL) {
    CHECK(s[0] == 1 && s[12345] == 2 && s[STORED_LONGS - 1] == 3, "PE %d's stores before shmem_init: %ld %ld %ld",
          peer, s[0], s[12345], s[STORED_LONGS - 1]);
    CHECK(s[1] == 0 && s[54321] == 0 && s[STORED_LONGS - 2] == 0, "PE %d's zeros: %ld %ld %ld", peer, s[1], s[54321],
          s[STORED_LONGS - 2]);
    CHECK(u[0] == 0 && u[UNTOUCHED_BYTES / 2] == 0 && u[UNTOUCHED_BYTES - 1] == 0, "PE %d's untouched array",
          peer);
    CHECK(*i == 42, "PE %d's initialized variable: %ld", peer, *i);
  }
  shmem_barrier_all();
}

static void* set_flags(void* unused) {
  (void)unused;
  long i = 0;
  for (; !stop && i < FLAGS; ++i) {
    moved.flags[i] = 1;
    for (volatile int k = 0; k < 200; ++k) { /* ~4 s for all: the thread still runs when shmem_init ends */
    }
  }
  flags_set = i;
  return NULL;
}

static void stores_during_init_case(void) {
  memset(moved.ballast, 0x5a, sizeof moved.ballast);
  pthread_t thread;
  if (pthread_create(&thread, NULL, set_flags, NULL) != 0) {
    fprintf(stderr, "globals_test: pthread_create failed\n");
    exit(1);
  }
  while (*(volatile char*)&moved.flags[4096] == 0) sched_yield(); /* under way */
  shmem_init();
  stop = 1;
  pthread_join(thread, NULL);
  long lost = 0, first = -1;
  for (long i = 0; i < flags_set; ++i)
    if (moved.flags[i] != 1 && lost++ == 0) first = i;
  CHECK(lost == 0, "%ld of the %ld stores a thread made to a global array during shmem_init were lost (the first at %ld)",
        lost, flags_set, first);
  shmem_barrier_all();
  const int peer = (shmem_my_pe() + 1) % shmem_n_pes();
  const char* f = shmem_ptr(moved.flags, peer);
  const long peer_set = shmem_long_g(&flags_set, peer);
  CHECK(f != NULL, "PE %d's globals are not mapped here", peer);
  for (long i = 0; f != NULL && i < peer_set; ++i)
    if (f[i] != 1) {
      CHECK(0, "PE %d's byte %ld, set during its shmem_init, reads %d here", peer, i, f[i]);
      break;
    }
  shmem_barrier_all();
}

static void fork_case(void) {
  shmem_init();
  const pid_t child = fork();
  if (child == 0) {
    const int inherited = counter == 5 && bss_value == 0;
    counter = 999;
    bss_value = 777;
    untouched[0] = 1;
    _exit(inherited ? 0 : 3);
  }
  int status = -1;
  CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "the forked child did not start with the parent's globals (wait status %d)", status);
  CHECK(counter == 5 && bss_value == 0 && untouched[0] == 0,
        "the forked child's stores reached the parent's globals: counter %ld, bss_value %ld, untouched[0] %d",
        counter, bss_value, untouched[0]);
  shmem_barrier_all();
  const int peer = (shmem_my_pe() + 1) % shmem_n_pes();
  CHECK(shmem_long_g(&counter, peer) == 5, "PE %d's counter reads %ld: its child's store reached it", peer,
        shmem_long_g(&counter, peer));
  shmem_barrier_all();
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: globals_test untouched|stores_during_init|fork\n");
    return 2;
  }
  if (strcmp(argv[1], "untouched") == 0) {
    untouched_case();
  } else if (strcmp(argv[1], "stores_during_init") == 0) {
    stores_during_init_case();
  } else if (strcmp(argv[1], "fork") == 0) {
    fork_case();
  } else {
    fprintf(stderr, "globals_test: unknown case %s\n", argv[1]);
    return 2;
  }
  shmem_finalize();
  return failures != 0;
}
