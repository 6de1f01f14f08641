/* Polling calls progress the transport: PE 0 and PE 1 (on two hosts) ping-pong through loops of shmem_test,
 * shmem_test_any, shmem_test_some, shmem_test_all and shmem_signal_fetch, never a blocking call. Run with
 * RDSM_PROGRESS_THREAD=off across hosts, the loops are the only thing that reads what the peer sends: a
 * polling call that does not progress hangs the ping-pong (and ctest's timeout ends it). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

enum { rounds = 200 };

static long ball[2];     /* symmetric: [0] for shmem_test, [1] for _any/_some/_all */
static uint64_t signal_; /* symmetric */
static long payload;     /* symmetric */

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), peer = 1 - me;
  int ok = 1;
  if (me < 2) {
    for (long r = 1; r <= rounds; ++r) {
      /* shmem_test on one word */
      if (me == 0) shmem_long_p(&ball[0], r, peer);
      while (!shmem_long_test(&ball[0], SHMEM_CMP_GE, r)) {
      }
      if (me == 1) shmem_long_p(&ball[0], r, peer);
      /* the vector tests, in turn */
      const int which = (int)(r % 3);
      if (me == 0) shmem_long_p(&ball[1], r, peer);
      size_t idx[2];
      if (which == 0)
        while (shmem_long_test_any(&ball[1], 1, NULL, SHMEM_CMP_GE, r) == SIZE_MAX) {
        }
      else if (which == 1)
        while (shmem_long_test_some(&ball[1], 1, idx, NULL, SHMEM_CMP_GE, r) == 0) {
        }
      else
        while (!shmem_long_test_all(&ball[1], 1, NULL, SHMEM_CMP_GE, r)) {
        }
      if (me == 1) shmem_long_p(&ball[1], r, peer);
      /* a put with signal, polled with shmem_signal_fetch */
      if (me == 0) shmem_long_put_signal(&payload, &r, 1, &signal_, (uint64_t)r, SHMEM_SIGNAL_SET, peer);
      while (shmem_signal_fetch(&signal_) < (uint64_t)r) {
      }
      if (payload != r) ok = 0;
      if (me == 1) shmem_long_put_signal(&payload, &r, 1, &signal_, (uint64_t)r, SHMEM_SIGNAL_SET, peer);
    }
    /* PE 0 saw PE 1's last answers come back through every loop. */
    while (!shmem_long_test(&ball[1], SHMEM_CMP_GE, rounds)) {
    }
  }
  shmem_barrier_all();
  if (me == 0) printf("test loops: %s\n", ok ? "ok" : "WRONG PAYLOAD");
  shmem_finalize();
  return ok ? 0 : 1;
}
