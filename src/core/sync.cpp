// Dissemination barrier over internal symmetric words, ticket locks, comparison codes.
#include "core/sync.hpp"

#include "common/log.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"

namespace rdsm::detail {
namespace {

// Internal words: round k of the barrier uses word barrier_word + k*8 (one cache line per round).
constexpr size_t barrier_word = 0;
constexpr int max_rounds = 32;
uint64_t g_epoch = 0;

// Lock words hold (next ticket << 32) | now serving; they live on PE 0.
constexpr int lock_home = 0;
constexpr uint64_t ticket_one = uint64_t{1} << 32;

}  // namespace

void sync_all() {
  runtime& rt = runtime::get();
  const int n = rt.n_pes();
  const int me = rt.my_pe();
  const uint64_t epoch = ++g_epoch;
  uint64_t* words = rt.internal() + barrier_word;
  // Round k: tell PE me+2^k we arrived, wait for PE me-2^k. Epochs only grow, so a fast PE that is
  // already in the next barrier can only raise a word past what its partner waits for: never a reset.
  for (int k = 0, dist = 1; dist < n && k < max_rounds; ++k, dist <<= 1) {
    int to = (me + dist) % n;
    uint64_t* word = words + k * 8;
    atomic("shmem_sync_all", amo_op::set, word, 8, epoch, 0, to);
    backoff b;
    while (load_acquire(word) < epoch) b.pause();
  }
}

void barrier_all() {
  quiet();
  sync_all();
}

void lock_set(const char* fn, long* lock) {
  uint64_t ticket = atomic(fn, amo_op::fetch_add, lock, 8, ticket_one, 0, lock_home) >> 32;
  backoff b;
  while ((atomic(fn, amo_op::fetch, lock, 8, 0, 0, lock_home) & 0xffffffffu) != (ticket & 0xffffffffu)) b.pause();
  std::atomic_thread_fence(std::memory_order_acquire);
}

void lock_clear(const char* fn, long* lock) {
  quiet();  // everything done under the lock is complete before the next holder enters
  atomic(fn, amo_op::add, lock, 8, 1, 0, lock_home);
  quiet();
}

int lock_test(const char* fn, long* lock) {
  uint64_t v = atomic(fn, amo_op::fetch, lock, 8, 0, 0, lock_home);
  if ((v >> 32) != (v & 0xffffffffu)) return 1;  // held or queued
  uint64_t old = atomic(fn, amo_op::cswap, lock, 8, v + ticket_one, v, lock_home);
  if (old != v) return 1;
  std::atomic_thread_fence(std::memory_order_acquire);
  return 0;
}

void check_cmp(const char* fn, int cmp) {
  if (cmp < cmp_eq || cmp > cmp_le)
    fatal("%s: cmp %d is not a SHMEM_CMP_* constant (EQ, NE, GT, GE, LT, LE)", fn, cmp);
}

}  // namespace rdsm::detail
