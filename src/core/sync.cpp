// Dissemination barrier over internal symmetric words, ticket locks, comparison codes.
#include "core/sync.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bit>
#include <climits>
#include <ctime>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "common/cpu.hpp"
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

// The locks this PE holds, published for its peers' watch (lock_holder) in its sync region: one word each, the
// lock's region and offset plus one (0: a free slot). Stores to this PE's own memory only, under held_mu. A PE
// holding more locks than slots publishes the first ones.
uint64_t lock_key(const long* lock) {
  const sym_addr s = runtime::get().resolve(lock);
  return s.region < 0 ? 0 : (static_cast<uint64_t>(s.region) << 56 | s.offset) + 1;
}
uint64_t* held_slots() { return runtime::get().internal() + held_locks_offset / sizeof(uint64_t); }
void publish_held(const long* lock, bool holds) {
  const uint64_t key = lock_key(lock);
  if (key == 0) return;
  uint64_t* slots = held_slots();
  for (size_t i = 0; i < held_lock_slots; ++i)
    if (__atomic_load_n(&slots[i], __ATOMIC_RELAXED) == (holds ? 0 : key)) {
      __atomic_store_n(&slots[i], holds ? key : 0, __ATOMIC_RELEASE);
      return;
    }
}

// With more runnable threads than CPUs (more PEs than CPUs, or a loaded machine), a waiter yielding or
// sleeping in steps keeps the CPU from the PE whose ticket comes next, or is itself asleep when its turn
// comes: each hand-off then waited for the scheduler (a locked update loop ran 25x slower on 3 PEs than on
// 2, and as slow on 2 with other work running). There, PEs of the lock's home host sleep on the serving half
// of the lock word (a futex in the shared mapping, one wake bit per ticket modulo 32), counted in the home's
// sync region, and a PE that clears a lock while some PE sleeps wakes the next ticket's sleeper. The timeout
// bounds a wake that never comes (a clear from another host).
constexpr long lock_sleep_ns = 100000;

// The serving half of the home's lock word through this host's mapping, or nullptr (the home is on another
// host).
uint32_t* serving_word(long* lock) {
  auto* word = static_cast<uint32_t*>(pointer_to(lock, lock_home));
  if (word == nullptr) return nullptr;
  return word + (std::endian::native == std::endian::little ? 0 : 1);
}

// The home's count of PEs asleep on its locks (mapped: serving_word was not null).
uint64_t* lock_sleepers() {
  return static_cast<uint64_t*>(pointer_to(runtime::get().internal() + lock_sleepers_offset / 8, lock_home));
}

uint32_t wake_bit(uint64_t ticket) { return uint32_t{1} << (ticket % 32); }

void sleep_on_lock(uint32_t* word, uint32_t serving, uint64_t ticket) {
  timespec until{};
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec += lock_sleep_ns;
  if (until.tv_nsec >= 1000000000) {
    until.tv_nsec -= 1000000000;
    ++until.tv_sec;
  }
  // Counted first, then the futex compares the word: a clear that moved it on either saw the count (and
  // wakes) or came before the comparison (which then returns at once).
  uint64_t* sleepers = lock_sleepers();
  __atomic_fetch_add(sleepers, 1, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, word, FUTEX_WAIT_BITSET, serving, &until, nullptr, wake_bit(ticket));
  __atomic_fetch_sub(sleepers, 1, __ATOMIC_SEQ_CST);
}

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
  uint32_t serving = 0;
  auto served = [&] {
    serving = static_cast<uint32_t>(atomic(fn, amo_op::fetch, lock, 8, 0, 0, lock_home));
    return serving == static_cast<uint32_t>(ticket);
  };
  if (!served()) {
    const wait_on on{.call = fn, .what = "lock", .addr = lock, .by_peer = true};  // its holder is not known here
    wait_scope scope(on);
    uint32_t* word = serving_word(lock);
    const uint64_t start = monotonic_ns();
    backoff b;
    while (!served()) {
      const uint64_t waited = monotonic_ns() - start;
      if (word != nullptr && waited > 20000 && (runtime::get().oversubscribed() || !wait_polls(waited))) {
        sleep_on_lock(word, serving, ticket);
        watch_tick(monotonic_ns());
      } else {
        b.pause();
      }
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  std::lock_guard<std::mutex> g(held_mu);
  held[lock] = std::this_thread::get_id();
  publish_held(lock, true);
}

void lock_clear(const char* fn, long* lock) {
  check_atomic_word(fn, "lock", lock);
  {
    std::lock_guard<std::mutex> g(held_mu);
    if (held.erase(lock) == 0)
      fatal("%s: lock %p is not held by PE %d; clear only a lock this PE set with shmem_set_lock or won with "
            "shmem_test_lock",
            fn, static_cast<void*>(lock), runtime::get().my_pe());
    publish_held(lock, false);
  }
  quiet();  // everything done under the lock is complete before the next holder enters
  const uint64_t old = atomic(fn, amo_op::fetch_add, lock, 8, 1, 0, lock_home);
  quiet();
  const uint64_t next = static_cast<uint32_t>(old + 1);
  if (static_cast<uint32_t>(old >> 32) != next)  // a ticket waits: its PE may sleep (sleep_on_lock)
    if (uint32_t* word = serving_word(lock); word != nullptr && __atomic_load_n(lock_sleepers(), __ATOMIC_SEQ_CST) != 0)
      syscall(SYS_futex, word, FUTEX_WAKE_BITSET, INT_MAX, nullptr, nullptr, wake_bit(next));
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
  publish_held(lock, true);
  return 0;
}

int lock_holder(const void* lock) {
  const uint64_t key = lock_key(static_cast<const long*>(lock));
  if (key == 0) return -1;
  runtime& rt = runtime::get();
  for (int pe = 0; pe < rt.n_pes(); ++pe) {
    const auto* slots = static_cast<const uint64_t*>(pointer_to(held_slots(), pe));
    if (slots == nullptr) continue;
    for (size_t i = 0; i < held_lock_slots; ++i)
      if (__atomic_load_n(&slots[i], __ATOMIC_ACQUIRE) == key) return pe;
  }
  return -1;
}

void check_cmp(const char* fn, int cmp) {
  if (cmp < cmp_eq || cmp > cmp_le)
    fatal("%s: cmp %d is not a SHMEM_CMP_* constant (EQ, NE, GT, GE, LT, LE)", fn, cmp);
}

}  // namespace rdsm::detail
