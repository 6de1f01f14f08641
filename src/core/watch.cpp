// What each thread waits for, the hang watchdog, the SIGUSR1 report, the finalize mismatch check and the entry
// words that collective_entry publishes (the kind and cycle checks that read them are in watch_stuck.cpp).
//
// Each thread that waits has a word (registered once, on its first wait) that points to its innermost
// wait_scope, on the thread's stack. The watchdog runs in the waiting thread itself (from the
// back-off), so it costs the fast path nothing and needs no other thread. The SIGUSR1 handler reads every
// registered slot; it formats with its own async-signal-safe code and writes with write(2).
//
// Finalize: a PE entering shmem_finalize stores, in every peer's sync region, the number of world barriers
// it has done (plus one). A peer in a world barrier of a higher number is in a barrier that the finalizing PE
// joins only from finalize's own barrier: the calls do not match. Other collectives cannot be matched that
// precisely: a wait for one PE that is finalizing, or for any member when every other member is, and that
// still does so a second later, is a mismatch too (a member that lags behind a collective the finalizing PE
// finished gets what it waits for at once: it was sent already).
#include "core/watch.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "bootstrap/bootstrap.hpp"
#include "common/config.hpp"
#include "common/cpu.hpp"
#include "common/log.hpp"
#include "core/group.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"
#include "core/watch_internal.hpp"

namespace rdsm::detail {

namespace watch_detail {
const uint64_t* world_epoch = nullptr;
std::atomic<const uint64_t*> finalize_words{nullptr};
int g_my_pe = 0;
std::atomic<bool> g_self_finalizing{false};

void describe_group(line& l, const group& g) {
  if (g.epoch == world_epoch) {
    l.add("team WORLD");
    return;
  }
  if (g.epoch != nullptr && g.epoch == &team_shared()->epoch) {
    l.add("team SHARED");
    return;
  }
  l.add(g.epoch != nullptr ? "team of " : "active set of ").dec(static_cast<uint64_t>(g.size)).add(" PEs from PE ");
  l.dec(static_cast<uint64_t>(g.start)).add(", stride ").sdec(g.stride);
}
}  // namespace watch_detail

using namespace watch_detail;

namespace {

// How long a wait in a collective other than a world barrier may see a member in finalize before that is
// a mismatch.
constexpr uint64_t mismatch_grace_ns = 1'000'000'000;

int g_n_pes = 1;
uint64_t g_hang_ns = 0;
bool g_handler_installed = false;
struct sigaction g_old_usr1 {};

// The thread's innermost wait. Constant-initialized initial-exec TLS: one instruction away, no guard, so a
// scope costs a few plain stores. A thread registers the address of its word on its first wait; a
// thread_local registration made then removes it when the thread ends.
[[gnu::tls_model("initial-exec")]] thread_local std::atomic<wait_scope*> t_current{nullptr};
[[gnu::tls_model("initial-exec")]] thread_local bool t_registered = false;

constexpr int max_threads = 256;
std::atomic<std::atomic<wait_scope*>*> g_threads[max_threads];

struct registration {
  int index = -1;
  ~registration() {
    if (index >= 0) g_threads[index].store(nullptr, std::memory_order_release);
  }
};

[[gnu::noinline]] void register_thread() {
  t_registered = true;
  static thread_local registration r;
  for (int i = 0; i < max_threads; ++i) {
    std::atomic<wait_scope*>* expected = nullptr;
    if (g_threads[i].compare_exchange_strong(expected, &t_current, std::memory_order_acq_rel)) {
      r.index = i;
      return;
    }
  }  // more threads than slots: this one waits unreported by SIGUSR1 (its watchdog still works)
}

const char* cmp_text(int cmp) {
  static const char* const ops[] = {"?", "==", "!=", ">", ">=", "<", "<="};
  return cmp >= 1 && cmp <= 6 ? ops[cmp] : ops[0];
}

// The value of the watched word now, as the wait reads it.
uint64_t read_word(const wait_on& w) {
  switch (w.width) {
    case 1: return __atomic_load_n(static_cast<const uint8_t*>(w.addr), __ATOMIC_RELAXED);
    case 2: return __atomic_load_n(static_cast<const uint16_t*>(w.addr), __ATOMIC_RELAXED);
    case 4: return __atomic_load_n(static_cast<const uint32_t*>(w.addr), __ATOMIC_RELAXED);
    default: return __atomic_load_n(static_cast<const uint64_t*>(w.addr), __ATOMIC_RELAXED);
  }
}

line& value(line& l, const wait_on& w, uint64_t v) {
  if (!w.is_signed) return l.dec(v);
  const unsigned bits = w.width * 8;
  if (bits < 64 && (v >> (bits - 1) & 1) != 0) v |= ~uint64_t{0} << bits;  // sign-extend
  return l.sdec(static_cast<int64_t>(v));
}

// "rdsm: PE 1 has waited 60.0 s in shmem_barrier_all (team WORLD, waiting for PE 0)"
void describe(line& l, const wait_scope& inner, uint64_t now) {
  const wait_scope* outer = &inner;
  while (outer->outer() != nullptr) outer = outer->outer();
  const wait_on& w = inner.on();
  l.add("rdsm: PE ").dec(static_cast<uint64_t>(g_my_pe));
  const uint64_t since = inner.since_ns();  // 0 until the wait's first tick
  if (since != 0) l.add(" has waited ").seconds(now > since ? now - since : 0).add(" s in ");
  else l.add(" waits in ");
  l.add(outer->on().call);
  const bool nested = outer != &inner && std::strcmp(outer->on().call, w.call) != 0;
  bool first = true;
  auto sep = [&] {
    if (first) {
      l.add(" (");
      if (nested) l.add(w.call).add(": ");
    } else {
      l.add(", ");
    }
    first = false;
  };
  if (w.g != nullptr) {
    sep();
    describe_group(l, *w.g);
  }
  if (w.cmp != 0 && w.addr != nullptr) {
    sep();
    l.add("until the value at ").hex(reinterpret_cast<uintptr_t>(w.addr)).add(" is ").add(cmp_text(w.cmp)).add(" ");
    value(l, w, w.value).add("; it is ");
    value(l, w, read_word(w));
  } else if (w.addr != nullptr) {
    sep();
    l.add(w.what != nullptr ? w.what : "word").add(" ").hex(reinterpret_cast<uintptr_t>(w.addr));
  }
  if (w.pe >= 0) {
    sep();
    l.add("waiting for PE ").dec(static_cast<uint64_t>(w.pe));
  } else if (w.g != nullptr) {
    sep();
    l.add("waiting for other members");
  }
  if (!first) l.add(")");
}

void on_sigusr1(int) {
  const int saved = errno;
  const uint64_t now = monotonic_ns();
  bool any = false;
  for (auto& slot : g_threads) {
    std::atomic<wait_scope*>* s = slot.load(std::memory_order_acquire);
    wait_scope* w = s != nullptr ? s->load(std::memory_order_acquire) : nullptr;
    if (w == nullptr) continue;
    line l;
    describe(l, *w, now);
    l.write_out();
    any = true;
  }
  if (!any) {
    line l;
    l.add("rdsm: PE ").dec(static_cast<uint64_t>(g_my_pe)).add(" is not waiting in an rdsm call (it runs the program)");
    l.write_out();
  }
  errno = saved;
}

// Set by watch_finalize_at_exit: this PE's finalize mark carries at_exit_bit.
std::atomic<bool> g_finalize_at_exit{false};

[[noreturn]] void mismatch(int finalizing_pe, const char* call) {
  const uint64_t* words = finalize_words.load(std::memory_order_relaxed);
  if (words != nullptr && (finalize_word(words, finalizing_pe) & at_exit_bit) != 0)
    fatal("PE %d ended without shmem_finalize (returned from main or called exit; the library finalized it "
          "there) while PE %d waits in %s: collective calls do not match; every PE must make the same collective "
          "calls, in the same order, before it finalizes or ends",
          finalizing_pe, g_my_pe, call);
  fatal("PE %d called shmem_finalize while PE %d waits in %s: collective calls do not match; every PE must make "
        "the same collective calls, in the same order, before shmem_finalize",
        finalizing_pe, g_my_pe, call);
}

void check_group(uint64_t& first_seen, const wait_on& w, const char* call, uint64_t now) {
  const uint64_t* words = finalize_words.load(std::memory_order_relaxed);
  if (words == nullptr || __atomic_load_n(words, __ATOMIC_ACQUIRE) == 0 ||
      g_self_finalizing.load(std::memory_order_relaxed))
    return;
  const group& g = *w.g;
  if (w.epoch != 0 && g.epoch == world_epoch) {  // exact: a peer joins world barriers below its mark only
    for (int i = 0; i < g.size; ++i) {
      const int pe = g.pe(i);
      const uint64_t mark = pe == g_my_pe ? 0 : finalize_mark(words, pe);
      if (mark != 0 && static_cast<uint64_t>(w.epoch) >= mark) mismatch(pe, call);
    }
    return;
  }
  // Otherwise a verdict needs the PE waited for to be finalizing, or, when the wait is for any member (a
  // counter of arrivals), every other member: a member stopped in a debugger halfway through a collective
  // must not be taken for a mismatch because a third PE finished it and went on to finalize.
  int finalizing = -1;
  if (w.pe >= 0) {
    if (w.pe != g_my_pe && finalize_mark(words, w.pe) != 0) finalizing = w.pe;
  } else {
    for (int i = 0; i < g.size; ++i) {
      const int pe = g.pe(i);
      if (pe == g_my_pe) continue;
      if (finalize_mark(words, pe) == 0) {
        finalizing = -1;
        break;
      }
      if (finalizing < 0) finalizing = pe;
    }
  }
  if (finalizing < 0) {
    first_seen = 0;
    return;
  }
  if (first_seen == 0) first_seen = now;
  else if (now - first_seen >= mismatch_grace_ns) mismatch(finalizing, call);
}

// A point-to-point wait while every other PE is in shmem_finalize: finalize completes a PE's puts and atomics
// right after its mark, so what has not arrived a second after the last peer began finalizing never will. Only
// every other PE will do: a peer that still runs may yet store what is waited for. Nor with SHMEM_THREAD_MULTIPLE
// (3), where another thread of this PE may still store it or release the lock.
void check_by_peer(uint64_t& first_seen, const char* call, uint64_t now) {
  if (runtime::get().thread_level() >= 3) return;
  const uint64_t* words = finalize_words.load(std::memory_order_relaxed);
  if (words == nullptr || __atomic_load_n(words, __ATOMIC_ACQUIRE) == 0 ||
      g_self_finalizing.load(std::memory_order_relaxed) || g_n_pes == 1 ||
      static_cast<size_t>(g_n_pes) + 1 > finalize_capacity)
    return;
  for (int pe = 0; pe < g_n_pes; ++pe)
    if (pe != g_my_pe && finalize_mark(words, pe) == 0) {
      first_seen = 0;
      return;
    }
  if (first_seen == 0) {
    first_seen = now;
    return;
  }
  if (now - first_seen < mismatch_grace_ns) return;
  fatal("PE %d waits in %s while every other PE has called shmem_finalize: nothing can satisfy the wait; a PE "
        "must not finalize while a peer still waits for its put, atomic or lock release (a missing store, or a "
        "lock held into shmem_finalize?)",
        g_my_pe, call);
}

}  // namespace

wait_scope::wait_scope(const wait_on& w, bool timed) : on_(w), since_ns_(timed ? monotonic_ns() : 0) {
  if (!t_registered) register_thread();
  outer_ = t_current.load(std::memory_order_relaxed);
  t_current.store(this, std::memory_order_release);
}

wait_scope::~wait_scope() {
  t_current.store(outer_, std::memory_order_release);
  if (stuck_published_) unpublish_stuck(on_.g == nullptr);
}

void watch_tick(uint64_t now_ns) {
  wait_scope* s = t_current.load(std::memory_order_relaxed);
  if (s == nullptr) return;
  if (s->since_ns_ == 0) s->since_ns_ = now_ns;  // the first tick comes after 64 spins: well under 1 ms late
  if (g_hang_ns != 0 && !s->reported_ && now_ns - s->since_ns_ >= g_hang_ns) {
    s->reported_ = true;
    line l;
    describe(l, *s, now_ns);
    l.write_out();
  }
  if (s->on_.g != nullptr) {
    const wait_scope* outer = s;
    while (outer->outer() != nullptr) outer = outer->outer();
    check_group(s->peer_finalizing_ns_, s->on_, outer->on().call, now_ns);
    if (check_kinds(s->kinds_checked_ns_, s->since_ns_, s->on_, outer->on().call, now_ns)) s->stuck_published_ = true;
  } else if (s->on_.by_peer) {
    const wait_scope* outer = s;
    while (outer->outer() != nullptr) outer = outer->outer();
    check_by_peer(s->peer_finalizing_ns_, outer->on().call, now_ns);
    if (check_kinds(s->kinds_checked_ns_, s->since_ns_, s->on_, outer->on().call, now_ns)) s->stuck_published_ = true;
  }
}

world_wait::world_wait(const char* call)
    : on_{.call = call, .g = team_world() != nullptr ? &team_world()->g : nullptr}, scope_(on_, /*timed=*/true) {}

namespace {
thread_local int t_collective_depth = 0;
}  // namespace

// The outermost collective's team and kind, for publish_stuck (watch_internal.hpp).
[[gnu::tls_model("initial-exec")]] constinit thread_local const group* watch_detail::t_outer_group = nullptr;
[[gnu::tls_model("initial-exec")]] constinit thread_local coll_kind watch_detail::t_outer_kind = coll_kind::sync;

collective_entry::collective_entry(const group& g, coll_kind kind, int root, uint64_t bytes, const char* fn) {
  if (t_collective_depth++ != 0) return;
  t_outer_group = &g;
  t_outer_kind = kind;
  const int slot = team_slot_of(g);
  uint64_t* word = team_entry_word_in_slot(slot);
  if (word == nullptr) return;
  const uint64_t number = *g.sequence + *g.epoch;
  // The comparison costs two cache misses (60-120 ns: 25-40% of an 8-byte collective on one host, 4-6% at
  // 16 KiB): always where the data movement dwarfs it, at every size with SHMEM_DEBUG.
  constexpr uint64_t always_from = 131072;
  if (bytes < size_field && g.size > 1 && (bytes >= always_from || runtime::get().checking())) {
    __atomic_store_n(&team_size_words_in_slot(slot)[number & 1], size_word(number, bytes), __ATOMIC_RELAXED);
    g_ = &g;
    fn_ = fn;
    number_ = number;
    bytes_ = bytes;
    kind_ = static_cast<uint8_t>(kind);
  }
  const uint64_t root_field = root >= 0 && root < 0xffff ? entry_root_field(root) : 0;
  __atomic_store_n(word, ((number + 1) << entry_number_shift) | root_field | static_cast<uint8_t>(kind),
                   __ATOMIC_RELEASE);  // after the size: a member that sees the entry sees the size
}

namespace {
// At the exit of a collective with a size: the next member's size for it, if that member is mapped here and
// has entered it (or the next one, whose size has the other parity; it cannot have entered the one after,
// which needs this PE) and published a size for it (the word names the collective's number).
void compare_sizes(const group& g, const char* fn, uint64_t number, uint64_t bytes, uint64_t kind) {
  const int slot = team_slot_of(g);
  const int next = g.pe((g.me + 1) % g.size);
  const auto* entry = static_cast<const uint64_t*>(pointer_to(team_entry_word_in_slot(slot), next));
  const auto* sizes = static_cast<const uint64_t*>(pointer_to(team_size_words_in_slot(slot), next));
  if (entry == nullptr || sizes == nullptr) return;
  const uint64_t theirs = __atomic_load_n(entry, __ATOMIC_ACQUIRE);
  const uint64_t at = entry_number(theirs);  // plus one
  if (at == number + 1 && (theirs & 0xff) != kind) return;  // another collective: the kinds' check names it
  if (at != number + 1 && at != number + 2) return;          // not entered yet
  const uint64_t word = __atomic_load_n(&sizes[number & 1], __ATOMIC_ACQUIRE);
  if (word >> 48 != (number & 0xffff) || word == size_word(number, bytes)) return;
  const uint64_t size = (word & (size_field - 1)) - 1;
  line l;
  describe_group(l, g);
  fatal("%s: PE %d passed %llu bytes and PE %d %llu bytes (%.*s); every member of the team must pass the same "
        "nelems (and element type) to a collective call",
        fn != nullptr ? fn : "a collective call", g_my_pe, static_cast<unsigned long long>(bytes), next,
        static_cast<unsigned long long>(size), static_cast<int>(l.size()), l.text());
}
}  // namespace

collective_entry::~collective_entry() {
  if (t_collective_depth == 1 && g_ != nullptr) compare_sizes(*g_, fn_, number_, bytes_, kind_);
  if (--t_collective_depth == 0) t_outer_group = nullptr;
  if (t_collective_depth == 0 && t_stuck_published) {  // the collective waited a second: no longer stuck
    t_stuck_published = false;
    __atomic_store_n(stuck_word(), 0, __ATOMIC_RELEASE);
  }
}

void watch_start(const config& cfg, int my_pe, int n_pes) {
  g_my_pe = my_pe;
  g_n_pes = n_pes;
  g_hang_ns = cfg.hang_report;
  g_self_finalizing = false;
  world_epoch = &team_world()->epoch;
  // A wait in a collective of the bootstrap (the argument checks of collective allocations) is watched too.
  bootstrap_set_wait_hook([] { watch_tick(monotonic_ns()); });
  finalize_words.store(runtime::get().internal() + finalize_offset / sizeof(uint64_t), std::memory_order_release);
  // The report on SIGUSR1, unless the program handles the signal itself (rdsmrun starts PEs with it
  // ignored, so that a report asked for before init costs nothing).
  struct sigaction old {};
  if (sigaction(SIGUSR1, nullptr, &old) == 0 && (old.sa_flags & SA_SIGINFO) == 0 &&
      (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN)) {
    struct sigaction sa {};
    sa.sa_handler = on_sigusr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGUSR1, &sa, &g_old_usr1) == 0) g_handler_installed = true;
  }
}

void watch_stop() {
  bootstrap_set_wait_hook(nullptr);
  if (g_handler_installed) sigaction(SIGUSR1, &g_old_usr1, nullptr);
  g_handler_installed = false;
  finalize_words.store(nullptr, std::memory_order_release);
  world_epoch = nullptr;
}

void watch_finalize_at_exit() { g_finalize_at_exit.store(true); }

void watch_finalize_begin() {
  g_self_finalizing.store(true, std::memory_order_relaxed);
  const uint64_t* local = finalize_words.load(std::memory_order_relaxed);
  if (local == nullptr || g_n_pes == 1 || static_cast<size_t>(g_my_pe) + 1 >= finalize_capacity) return;
  // The words are symmetric: the same address names every peer's copy.
  auto* words = const_cast<uint64_t*>(local);
  const uint64_t mark = (*world_epoch + 1) | (g_finalize_at_exit.load() ? at_exit_bit : 0), one = 1;
  const int stream = runtime::get().internal_stream();
  bool sent = false;
  for (int pe = 0; pe < g_n_pes; ++pe) {
    if (pe == g_my_pe) continue;
    uint64_t* mine = &words[1 + g_my_pe];
    if (auto* p = static_cast<uint64_t*>(pointer_to(mine, pe))) {
      __atomic_store_n(p, mark, __ATOMIC_RELEASE);
      __atomic_store_n(static_cast<uint64_t*>(pointer_to(words, pe)), one, __ATOMIC_RELEASE);
      continue;
    }
    put("shmem_finalize", mine, &mark, sizeof mark, pe, false, stream);
    put("shmem_finalize", words, &one, sizeof one, pe, false, stream);
    sent = true;
  }
  // Delivered before any barrier of finalize signals a peer: a peer that leaves a barrier this PE joined
  // from finalize sees the mark.
  if (sent) quiet(stream);
}

namespace watch_detail {

void check_world_barrier(const char* fn, long epoch) {
  if (g_self_finalizing.load(std::memory_order_relaxed)) return;
  const uint64_t* words = finalize_words.load(std::memory_order_relaxed);
  if (words == nullptr) return;
  // The call to name is the API call the barrier serves (rdsm_dsm_barrier, say), when it has a scope.
  for (const wait_scope* s = t_current.load(std::memory_order_relaxed); s != nullptr; s = s->outer())
    if (s->outer() == nullptr) fn = s->on().call;
  for (int pe = 0; pe < g_n_pes; ++pe) {
    const uint64_t mark = pe == g_my_pe ? 0 : finalize_mark(words, pe);
    if (mark != 0 && static_cast<uint64_t>(epoch) >= mark) mismatch(pe, fn);
  }
}

}  // namespace watch_detail

}  // namespace rdsm::detail
