// Dissemination barrier over internal symmetric words, ticket locks, comparison codes.
#include "core/sync.hpp"

#include <mutex>
#include <thread>
#include <unordered_map>

#include "common/log.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"
#include "core/watch.hpp"

namespace rdsm::detail {
namespace {

// Lock words hold (next ticket << 32) | now serving; they live on PE 0.
constexpr int lock_home = 0;
constexpr uint64_t ticket_one = uint64_t{1} << 32;

// The locks this PE holds, and the thread of the PE that set each. A ticket lock serves threads of one PE
// like PEs, one at a time; but a thread setting a lock it holds would wait for itself forever, and a clear
// by a PE that holds no such lock would serve a ticket nobody took (every later set would hang). Both are
// misuse the specification leaves undefined; they end the job instead.
std::mutex held_mu;
std::unordered_map<const long*, std::thread::id> held;

}  // namespace

void sync_all() { group_sync("shmem_sync_all", team_world()->g); }

void barrier_all() { group_barrier("shmem_barrier_all", team_world()->g); }

void lock_set(const char* fn, long* lock) {
  check_atomic_word(fn, "lock", lock);
  {
    std::lock_guard<std::mutex> g(held_mu);
    auto it = held.find(lock);
    if (it != held.end() && it->second == std::this_thread::get_id())
      fatal("%s: PE %d already holds lock %p (set by this thread); a second set would wait for itself forever: "
            "clear it first",
            fn, runtime::get().my_pe(), static_cast<void*>(lock));
  }
  uint64_t ticket = atomic(fn, amo_op::fetch_add, lock, 8, ticket_one, 0, lock_home) >> 32;
  auto served = [&] {
    return (atomic(fn, amo_op::fetch, lock, 8, 0, 0, lock_home) & 0xffffffffu) == (ticket & 0xffffffffu);
  };
  if (!served()) {
    const wait_on on{.call = fn, .what = "lock", .addr = lock, .by_peer = true};  // its holder is not known here
    wait_scope scope(on);
    backoff b;
    while (!served()) b.pause();
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  std::lock_guard<std::mutex> g(held_mu);
  held[lock] = std::this_thread::get_id();
}

void lock_clear(const char* fn, long* lock) {
  check_atomic_word(fn, "lock", lock);
  {
    std::lock_guard<std::mutex> g(held_mu);
    if (held.erase(lock) == 0)
      fatal("%s: lock %p is not held by PE %d; clear only a lock this PE set with shmem_set_lock or won with "
            "shmem_test_lock",
            fn, static_cast<void*>(lock), runtime::get().my_pe());
  }
  quiet();  // everything done under the lock is complete before the next holder enters
  atomic(fn, amo_op::add, lock, 8, 1, 0, lock_home);
  quiet();
}

int lock_test(const char* fn, long* lock) {
  check_atomic_word(fn, "lock", lock);
  {
    std::lock_guard<std::mutex> g(held_mu);
    if (held.count(lock) != 0) return 1;  // set, by this PE
  }
  uint64_t v = atomic(fn, amo_op::fetch, lock, 8, 0, 0, lock_home);
  if ((v >> 32) != (v & 0xffffffffu)) return 1;  // held or queued
  uint64_t old = atomic(fn, amo_op::cswap, lock, 8, v + ticket_one, v, lock_home);
  if (old != v) return 1;
  std::atomic_thread_fence(std::memory_order_acquire);
  std::lock_guard<std::mutex> g(held_mu);
  held[lock] = std::this_thread::get_id();
  return 0;
}

void check_cmp(const char* fn, int cmp) {
  if (cmp < cmp_eq || cmp > cmp_le)
    fatal("%s: cmp %d is not a SHMEM_CMP_* constant (EQ, NE, GT, GE, LT, LE)", fn, cmp);
}

}  // namespace rdsm::detail
