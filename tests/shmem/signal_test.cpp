// Put-with-signal: putmem/typed/sized put_signal(+nbi) with SIGNAL_SET and SIGNAL_ADD, signal_wait_until
// and signal_fetch, with heap and global data and signal words.
#include <cstdint>
#include <vector>

#include "shmem_test_util.hpp"

using namespace shtest;

namespace {

constexpr size_t K = 32;

uint64_t g_sig;                 // bss signal word
uint64_t g_sig_data = 5;        // data-section signal word
unsigned char g_buf[64 * 16];   // global data target (bss)
uint64_t g_add_sig;             // SIGNAL_ADD target on PE 0
long g_slots[64 * K];           // PE 0: slot pe receives PE pe's data

// Signature of every put-with-signal form, seen through bytes (typed forms are wrapped below).
using put_signal_fn = void (*)(void* dest, const void* src, size_t nelems, uint64_t* sig, uint64_t signal,
                               int sig_op, int pe);

struct form {
  const char* name;
  size_t elem_bytes;
  put_signal_fn fn;
  bool nbi;
};

#define RDSM_TYPED_FORM(T, N)                                                                              \
  form{#N "_put_signal", sizeof(T),                                                                        \
       [](void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) {                   \
         shmem_##N##_put_signal(static_cast<T*>(d), static_cast<const T*>(s), n, sig, v, op, pe);          \
       },                                                                                                  \
       false},                                                                                             \
      form{#N "_put_signal_nbi", sizeof(T),                                                                \
           [](void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) {               \
             shmem_##N##_put_signal_nbi(static_cast<T*>(d), static_cast<const T*>(s), n, sig, v, op, pe); \
           },                                                                                              \
           true},
#define RDSM_SIZED_FORM(B) \
  form{"put" #B "_signal", B / 8, shmem_put##B##_signal, false}, form{"put" #B "_signal_nbi", B / 8, shmem_put##B##_signal_nbi, true},

const std::vector<form>& forms() {
  static const std::vector<form> all = {
      form{"putmem_signal", 1, shmem_putmem_signal, false},
      form{"putmem_signal_nbi", 1, shmem_putmem_signal_nbi, true},
      RDSM_SHMEM_SIZES(RDSM_SIZED_FORM) RDSM_SHMEM_RMA_TYPES(RDSM_TYPED_FORM)};
  return all;
}

unsigned char byte_of(int pe, size_t i, uint64_t round) {
  return static_cast<unsigned char>(1 + (pe * 41 + i * 3 + round * 7) % 250);
}

// One form, SIGNAL_SET: send K elements to the right neighbour, wait for the left's signal, check data.
// `round` grows across calls, so a signal never needs a reset and a stale one never satisfies the wait.
void set_round(const form& f, unsigned char* dst, uint64_t* sig, uint64_t round) {
  const size_t bytes = K * f.elem_bytes;
  std::vector<unsigned char> src(bytes);
  for (size_t i = 0; i < bytes; ++i) src[i] = byte_of(me(), i, round);
  f.fn(dst, src.data(), K, sig, round, SHMEM_SIGNAL_SET, right());
  if (f.nbi) shmem_quiet();
  uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, round);
  EXPECT_EQ(got, round) << f.name;
  EXPECT_EQ(shmem_signal_fetch(sig), round) << f.name;
  int bad = 0;
  for (size_t i = 0; i < bytes; ++i) bad += dst[i] != byte_of(left(), i, round);
  EXPECT_EQ(bad, 0) << f.name << ": data not complete when the signal arrived";
  shmem_barrier_all();  // the next round's data must not overwrite before this check
}

}  // namespace

TEST(Signal, EveryFormWithSignalSetOnHeap) {
  auto* dst = static_cast<unsigned char*>(shmem_malloc(K * 16));
  auto* sig = static_cast<uint64_t*>(shmem_malloc_with_hints(sizeof(uint64_t), SHMEM_MALLOC_SIGNAL_REMOTE));
  ASSERT_NE(dst, nullptr);
  ASSERT_NE(sig, nullptr);
  *sig = 0;
  shmem_barrier_all();
  uint64_t round = 0;
  for (const form& f : forms()) set_round(f, dst, sig, ++round);
  shmem_free(sig);
  shmem_free(dst);
}

TEST(Signal, EveryFormWithSignalSetOnGlobals) {
  g_sig = 0;
  shmem_barrier_all();
  uint64_t round = 100;
  for (const form& f : forms()) set_round(f, g_buf, &g_sig, ++round);
  // Data-section signal word, heap data: mixed placement.
  auto* dst = static_cast<unsigned char*>(shmem_malloc(K * 16));
  ASSERT_NE(dst, nullptr);
  g_sig_data = 0;
  shmem_barrier_all();
  for (const form& f : forms()) set_round(f, dst, &g_sig_data, ++round);
  shmem_free(dst);
}

TEST(Signal, SignalAddFromEveryPeCountsArrivals) {
  auto* heap_sig = static_cast<uint64_t*>(shmem_malloc(sizeof(uint64_t)));
  ASSERT_NE(heap_sig, nullptr);
  uint64_t* sigs[] = {heap_sig, &g_add_sig};
  for (uint64_t* sig : sigs) {
    SCOPED_TRACE(sig == heap_sig ? "heap signal" : "global signal");
    for (int rep = 0; rep < reps(20, 5); ++rep) {
      if (me() == 0) {
        *sig = 0;
        std::memset(g_slots, 0, sizeof g_slots);
      }
      shmem_barrier_all();
      long mine[K];
      for (size_t i = 0; i < K; ++i) mine[i] = rep * 10000L + me() * 100L + static_cast<long>(i);
      // Alternate forms: putmem_signal, long_put_signal_nbi, put64_signal; each adds me+1.
      long* slot = &g_slots[me() * K];
      switch (rep % 3) {
        case 0: shmem_putmem_signal(slot, mine, sizeof mine, sig, me() + 1, SHMEM_SIGNAL_ADD, 0); break;
        case 1:
          shmem_long_put_signal_nbi(slot, mine, K, sig, me() + 1, SHMEM_SIGNAL_ADD, 0);
          shmem_quiet();
          break;
        default: shmem_put64_signal(slot, mine, K, sig, me() + 1, SHMEM_SIGNAL_ADD, 0); break;
      }
      if (me() == 0) {
        const uint64_t want = static_cast<uint64_t>(npes()) * (npes() + 1) / 2;
        EXPECT_EQ(shmem_signal_wait_until(sig, SHMEM_CMP_GE, want), want);
        int bad = 0;
        for (int pe = 0; pe < npes(); ++pe)
          for (size_t i = 0; i < K; ++i) bad += g_slots[pe * K + i] != rep * 10000L + pe * 100L + static_cast<long>(i);
        EXPECT_EQ(bad, 0) << "rep " << rep;
        EXPECT_EQ(shmem_signal_fetch(sig), want);
      }
      shmem_barrier_all();
    }
  }
  shmem_free(heap_sig);
}

TEST(Signal, SignalWaitUntilEachComparison) {
  struct cse {
    int cmp;
    uint64_t init, operand, final;
  };
  const cse cases[] = {{SHMEM_CMP_EQ, 1, 9, 9},   {SHMEM_CMP_NE, 4, 4, 5},  {SHMEM_CMP_GT, 4, 4, 6},
                       {SHMEM_CMP_GE, 3, 4, 4},   {SHMEM_CMP_LT, 9, 4, 3},  {SHMEM_CMP_LE, 9, 4, 4}};
  static long data;
  ASSERT_EQ(npes() % 2, 0) << "run on an even number of PEs";
  for (const cse& c : cases) {
    for (int sender_parity = 0; sender_parity < 2; ++sender_parity) {
      const bool sender = me() % 2 == sender_parity;
      g_sig = c.init;
      data = 0;
      shmem_barrier_all();
      if (sender) {
        sleep_ms(3);  // the receiver is already waiting: a wait that returns early sees init, not final
        long v = 1000 + me();
        shmem_putmem_signal(&data, &v, sizeof v, &g_sig, c.final, SHMEM_SIGNAL_SET, right());
      } else {
        uint64_t got = shmem_signal_wait_until(&g_sig, c.cmp, c.operand);
        EXPECT_EQ(got, c.final) << "cmp " << c.cmp;
        EXPECT_EQ(data, 1000 + left()) << "cmp " << c.cmp;
      }
      shmem_barrier_all();
    }
  }
}
