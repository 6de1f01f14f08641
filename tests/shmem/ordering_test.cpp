// Ordering litmus tests repeated many times: put+fence+flag, put_signal, put_nbi+quiet+flag and AMO+fence+AMO;
// a receiver that sees flag value f must see the data of iteration >= f (iteration counters, no resets).
#include <sched.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

constexpr int W = 4;  // data words per message

long g_data[W];          // global data words
long g_flag;             // global flag
uint64_t g_sig;          // global signal
long g_spread[3][W];     // several separate global locations for the nbi test

int iterations() { return reps(1500, npes() > 2 ? 60 : 150); }

// Receiver side: after observing flag value f, every data word must hold an iteration >= f.
int stale_words(const long* data, long f) {
  int bad = 0;
  for (int w = 0; w < W; ++w) bad += peek(&data[w]) < f;
  return bad;
}

struct buffers {
  long* data;
  long* flag;
  uint64_t* sig;
  long* spread[3];
};

// Each PE sends iterations 1..n to its right neighbour and receives from its left one, interleaved.
template <class Send>
void litmus(const buffers& b, Send send, bool wait_signal, bool check_spread) {
  const int n = iterations();
  for (int w = 0; w < W; ++w) b.data[w] = 0;
  *b.flag = 0;
  *b.sig = 0;
  for (auto* s : b.spread)
    for (int w = 0; w < W; ++w) s[w] = 0;
  shmem_barrier_all();
  int bad = 0;
  for (long i = 1; i <= n; ++i) {
    send(i);
    long f;
    if (wait_signal) {
      f = static_cast<long>(shmem_signal_wait_until(b.sig, SHMEM_CMP_GE, static_cast<uint64_t>(i)));
    } else {
      shmem_long_wait_until(b.flag, SHMEM_CMP_GE, i);
      f = peek(b.flag);
    }
    bad += stale_words(b.data, f);
    if (check_spread)
      for (auto* s : b.spread) bad += stale_words(s, f);
  }
  EXPECT_EQ(bad, 0) << "data older than the flag was observed";
  shmem_barrier_all();
}

void run_on_heap_and_globals(void (*body)(const buffers&)) {
  auto* heap = static_cast<long*>(shmem_calloc(W * 5 + 2, sizeof(long)));
  ASSERT_NE(heap, nullptr);
  buffers h{heap, heap + W, reinterpret_cast<uint64_t*>(heap + W + 1), {heap + W + 2, heap + 2 * W + 2, heap + 3 * W + 2}};
  buffers g{g_data, &g_flag, &g_sig, {g_spread[0], g_spread[1], g_spread[2]}};
  {
    SCOPED_TRACE("heap");
    body(h);
  }
  {
    SCOPED_TRACE("globals");
    body(g);
  }
  // Mixed: heap data, global flag (different paths over TCP: transported heap, mapped globals).
  buffers m{heap, &g_flag, &g_sig, {g_spread[0], heap + 2 * W + 2, g_spread[2]}};
  {
    SCOPED_TRACE("heap data, global flag");
    body(m);
  }
  shmem_free(heap);
}

}  // namespace

TEST(Ordering, PutFencePutFlagDataVisibleWithFlag) {
  run_on_heap_and_globals([](const buffers& b) {
    litmus(b,
           [&](long i) {
             long msg[W] = {i, i, i, i};
             shmem_long_put(b.data, msg, W, right());
             shmem_fence();
             shmem_long_p(b.flag, i, right());
           },
           false, false);
  });
}

TEST(Ordering, PutSignalDataVisibleWithSignal) {
  run_on_heap_and_globals([](const buffers& b) {
    litmus(b,
           [&](long i) {
             long msg[W] = {i, i, i, i};
             shmem_fence();  // orders this iteration's data and signal after the previous iteration's
             if (i % 2 == 0) {
               shmem_long_put_signal(b.data, msg, W, b.sig, static_cast<uint64_t>(i), SHMEM_SIGNAL_SET, right());
             } else {
               // SIGNAL_ADD of 1 per iteration also makes the signal equal to the iteration number.
               shmem_long_put_signal_nbi(b.data, msg, W, b.sig, 1, SHMEM_SIGNAL_ADD, right());
               shmem_quiet();
             }
           },
           true, false);
  });
}

TEST(Ordering, SignalAddOnlyDataVisibleWithSignal) {
  run_on_heap_and_globals([](const buffers& b) {
    litmus(b,
           [&](long i) {
             long msg[W] = {i, i, i, i};
             shmem_fence();
             shmem_putmem_signal(b.data, msg, sizeof msg, b.sig, 1, SHMEM_SIGNAL_ADD, right());
           },
           true, false);
  });
}

TEST(Ordering, PutNbiToSeveralLocationsQuietFlag) {
  run_on_heap_and_globals([](const buffers& b) {
    litmus(b,
           [&](long i) {
             long msg[W] = {i, i, i, i};
             shmem_long_put_nbi(b.data, msg, W, right());
             for (auto* s : b.spread) shmem_long_put_nbi(s, msg, W, right());
             shmem_quiet();
             shmem_long_p(b.flag, i, right());
           },
           false, true);
  });
}

TEST(Ordering, AtomicSetFenceAtomicIncVisibleToWaitUntil) {
  run_on_heap_and_globals([](const buffers& b) {
    litmus(b,
           [&](long i) {
             for (int w = 0; w < W; ++w) shmem_long_atomic_set(&b.data[w], i, right());
             for (auto* s : b.spread) {
               shmem_long_atomic_set(&s[0], i, right());
               for (int w = 1; w < W; ++w) shmem_long_p(&s[w], i, right());
             }
             shmem_fence();
             shmem_long_atomic_inc(b.flag, right());  // the flag equals i after iteration i
           },
           false, true);
  });
}

TEST(Ordering, FetchingAtomicCompletesBeforeFlag) {
  // A fetching AMO is complete when it returns: a flag put after it (no fence) must not overtake it.
  run_on_heap_and_globals([](const buffers& b) {
    litmus(b,
           [&](long i) {
             for (int w = 0; w < W; ++w) (void)shmem_long_atomic_swap(&b.data[w], i, right());
             for (auto* s : b.spread)
               for (int w = 0; w < W; ++w) (void)shmem_long_atomic_fetch_add(&s[w], 1, right());
             shmem_long_atomic_set(b.flag, i, right());  // no fence: the fetching AMOs are already done
           },
           false, true);
  });
}

TEST(Ordering, APutsLastElementChangesOnceAndLast) {
  // Programs wait for a put by polling its last element (no ordering is promised within a put, yet every
  // implementation's copy ends there). Ping-pong in pairs: the receiver waits for the last word, checks the
  // rest, resets the word and answers. A copy that stores the end first and again at the end wakes the
  // receiver early (rest not there yet) and undoes its reset (the next wait returns at once, or never).
  const int pair = me() ^ 1;
  const bool in_pair = pair < npes();
  const size_t max_words = 32768;  // 256 KiB
  long* inbox = static_cast<long*>(shmem_calloc(max_words, sizeof(long)));
  std::vector<long> out(max_words);
  int bad = 0, stuck = 0;
  for (size_t words : {size_t{128}, size_t{512}, size_t{4096}, max_words}) {
    shmem_barrier_all();
    if (!in_pair) continue;
    const int rounds = reps(words > 4096 ? 40 : 200, 10);
    for (long i = 1; i <= rounds && stuck == 0; ++i) {
      const bool sends_first = me() % 2 == 0;
      for (int leg = 0; leg < 2; ++leg) {
        if ((leg == 0) == sends_first) {
          for (size_t w = 0; w + 1 < words; ++w) out[w] = i * 1000003 + static_cast<long>(w);
          out[words - 1] = i;
          shmem_long_put(inbox, out.data(), words, pair);
        } else {
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (shmem_long_test(&inbox[words - 1], SHMEM_CMP_NE, 0) == 0 &&
                 std::chrono::steady_clock::now() < deadline)
            sched_yield();
          if (const long last = peek(&inbox[words - 1]); last != i) {
            ADD_FAILURE() << "PE " << me() << ", " << words << " words, round " << i << ": last word " << last
                          << " instead of " << i;
            stuck = 1;
            break;
          }
          for (size_t w = 0; w + 1 < words; ++w) bad += peek(&inbox[w]) != i * 1000003 + static_cast<long>(w);
          inbox[words - 1] = 0;
        }
      }
    }
  }
  EXPECT_EQ(bad, 0) << "words of a put not there when its last word was";
  shmem_barrier_all();
  shmem_free(inbox);
}
