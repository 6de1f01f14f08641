// Dissemination barrier over internal symmetric words, ticket locks, comparison codes.
#include "core/sync.hpp"

#include "common/log.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"

namespace rdsm::detail {
namespace {

// Lock words hold (next ticket << 32) | now serving; they live on PE 0.
constexpr int lock_home = 0;
constexpr uint64_t ticket_one = uint64_t{1} << 32;

}  // namespace

void sync_all() { group_sync("shmem_sync_all", team_world()->g); }

void barrier_all() { group_barrier("shmem_barrier_all", team_world()->g); }

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
