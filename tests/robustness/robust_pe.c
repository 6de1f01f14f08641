/* A small OpenSHMEM program for the robustness cases (robust_cases.sh).
 * Usage: robust_pe sleep MS | dsm | exhaust | stdio | alloc BYTES ok|null | exit CODE | tty | children |
 *        lines [LEN] | late MS
 *   sleep MS  init, barrier, PE 0 prints "ready", sleep MS milliseconds (signals caught meanwhile do not
 *             shorten it), barrier, finalize
 *   dsm       allocate 1 MiB of DSM memory, write it, barrier, finalize
 *   exhaust   ask the symmetric heap and the DSM for more than they hold, three times each: NULL every time
 *             (prints "exhausted N times")
 *   stdio     PE 0 reads its standard input to the end, then every PE writes 200 lines to standard output and
 *             200 to standard error; barrier, finalize (started with 0-2 closed, none may reach the runtime's
 *             own descriptors)
 *   alloc     shmem_malloc(BYTES) on every PE must succeed (ok) or return NULL (null)
 *   exit      PE 0 calls shmem_global_exit(CODE) after a barrier
 *   tty       when standard output is a terminal, set its attributes (tcsetattr, unchanged) and print "tty ok"
 *   children  fork two children that exit at once, then wait until no child is left: exactly two are reaped
 *   lines     print 2000 lines "PE <me> line <i> ......" (for the check that PEs' lines do not mix); with LEN,
 *             200 lines of LEN characters, "PE <me> " and the digit <me> repeated
 *   late MS   the PE of RDSM_RANK 1 sleeps MS milliseconds before shmem_init; then init, barrier, finalize */
#include <rdsm/dsm.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  const char *rank = getenv("RDSM_RANK");
  if (strcmp(mode, "late") == 0 && argc > 2 && rank != NULL && strcmp(rank, "1") == 0) {
    long ms = atol(argv[2]);
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
  }
  shmem_init();
  const int me = shmem_my_pe();
  int status = 0;
  if (strcmp(mode, "sleep") == 0 || strcmp(mode, "misuse") == 0) {
    long ms = argc > 2 ? atol(argv[2]) : 0;
    shmem_barrier_all();
    if (me == 0) {
      printf("ready\n");
      fflush(stdout);
    }
    /* The whole time, whatever signals a handler catches meanwhile. */
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
    if (strcmp(mode, "misuse") == 0) { /* every PE at once: each ends the job */
      static long word;
      shmem_long_p(&word, 1, 99);
    }
    shmem_barrier_all();
  } else if (strcmp(mode, "dsm") == 0) {
    long *p = rdsm_dsm_alloc(1 << 20);
    if (p == NULL) status = 1;
    else p[me * 512] = me + 1;
    rdsm_dsm_barrier();
  } else if (strcmp(mode, "exhaust") == 0) {
    int nulls = 0;
    for (int i = 0; i < 3; ++i) nulls += shmem_malloc((size_t)1 << 40) == NULL;
    for (int i = 0; i < 3; ++i) nulls += rdsm_dsm_alloc((size_t)1 << 40) == NULL;
    if (me == 0) printf("exhausted %d times\n", nulls);
    status = nulls != 6;
  } else if (strcmp(mode, "stdio") == 0) {
    char buf[4096];
    if (me == 0)
      while (read(STDIN_FILENO, buf, sizeof buf) > 0) {
      }
    memset(buf, 'a' + me % 26, 300);
    buf[300] = '\0';
    for (int i = 0; i < 200; ++i) {
      printf("PE %d line %d %s\n", me, i, buf);
      fprintf(stderr, "PE %d line %d %s\n", me, i, buf);
    }
    shmem_barrier_all();
  } else if (strcmp(mode, "alloc") == 0 && argc > 3) {
    const size_t bytes = strtoull(argv[2], NULL, 10);
    void *p = shmem_malloc(bytes);
    if ((p != NULL) != (strcmp(argv[3], "ok") == 0)) {
      fprintf(stderr, "PE %d: shmem_malloc(%zu) returned %p, expected %s\n", me, bytes, p, argv[3]);
      status = 1;
    }
    shmem_free(p);
  } else if (strcmp(mode, "exit") == 0 && argc > 2) {
    shmem_barrier_all();
    if (me == 0) shmem_global_exit(atoi(argv[2]));
    shmem_barrier_all();
  } else if (strcmp(mode, "tty") == 0) {
    struct termios t;
    if (isatty(STDOUT_FILENO) && (tcgetattr(STDOUT_FILENO, &t) != 0 || tcsetattr(STDOUT_FILENO, TCSANOW, &t) != 0))
      status = 1;
    printf("tty ok\n");
  } else if (strcmp(mode, "children") == 0) {
    for (int i = 0; i < 2; ++i)
      if (fork() == 0) _exit(0);
    int reaped = 0;
    while (wait(NULL) > 0) ++reaped;
    if (reaped != 2) {
      fprintf(stderr, "PE %d reaped %d children, expected 2\n", me, reaped);
      status = 1;
    }
    shmem_barrier_all();
  } else if (strcmp(mode, "lines") == 0 && argc > 2) {
    const int len = atoi(argv[2]); /* 200 lines "PE <me> " and len - 5 digits of <me> */
    for (int i = 0; i < 200; ++i) {
      printf("PE %d ", me);
      for (int k = 5; k < len; ++k) putchar('0' + me);
      putchar('\n');
    }
  } else if (strcmp(mode, "lines") == 0) {
    for (int i = 0; i < 2000; ++i) printf("PE %d line %04d ..........................................\n", me, i);
  } else if (strcmp(mode, "late") == 0) {
    shmem_barrier_all();
  } else {
    fprintf(stderr, "usage: robust_pe sleep MS | misuse MS | dsm | exhaust | stdio | alloc BYTES ok|null | exit CODE | tty | children | lines [LEN] | late MS\n");
    status = 2;
  }
  shmem_finalize();
  return status;
}
