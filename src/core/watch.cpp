// What each thread waits for, the hang watchdog, the SIGUSR1 report and the finalize mismatch check.
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

namespace rdsm::detail {

namespace watch_detail {
const uint64_t* world_epoch = nullptr;
std::atomic<const uint64_t*> finalize_words{nullptr};
}  // namespace watch_detail

namespace {

using watch_detail::finalize_words;
using watch_detail::world_epoch;

// The finalize words sit at the end of the sync region, after the team slots: [0] and one per PE. PEs past
// the capacity do not publish (a job that large is told of mismatches by its watchdog only).
constexpr size_t finalize_capacity = 2048;
constexpr size_t finalize_offset = internal_bytes - finalize_capacity * sizeof(uint64_t);
// Before them, the stuck words: [0] what this PE has waited in for a second (see publish_stuck), 0 when
// nothing; [1] the PE that wait is for plus one, 0 when not one known PE (see check_cycle, check_chain).
constexpr size_t stuck_offset = finalize_offset - 64;
static_assert(4096 + team_slots * (group_sync_longs * sizeof(long) + sizeof(uint64_t)) <= stuck_offset,
              "the finalize and stuck words must not overlap the team slots and their entry words");

// A team's entry word: the collective's number plus one from this bit up, a broadcast's root plus one in bits
// 8-23 (0: none, or a root past 65534), its kind in bits 0-7.
constexpr unsigned entry_number_shift = 24;
constexpr uint64_t entry_root_mask = uint64_t{0xffff} << 8;
constexpr uint64_t entry_number(uint64_t entry) { return entry >> entry_number_shift; }  // plus one; 0: none
// The root field of a broadcast whose root is member `index` of the team.
constexpr uint64_t entry_root_field(int index) { return static_cast<uint64_t>(index + 1) << 8; }

// How long a wait in a collective other than a world barrier may see a member in finalize before that is
// a mismatch.
constexpr uint64_t mismatch_grace_ns = 1'000'000'000;

int g_my_pe = 0;
int g_n_pes = 1;
uint64_t g_hang_ns = 0;
std::atomic<bool> g_self_finalizing{false};
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

// A line built without allocation or stdio (the SIGUSR1 handler uses it too).
class line {
 public:
  line& add(const char* s) {
    while (*s != '\0' && n_ < sizeof buf_ - 1) buf_[n_++] = *s++;
    return *this;
  }
  line& dec(uint64_t v, bool negative = false) {
    char t[24];
    int k = 0;
    do t[k++] = static_cast<char>('0' + v % 10);
    while ((v /= 10) != 0);
    if (negative) t[k++] = '-';
    while (k > 0 && n_ < sizeof buf_ - 1) buf_[n_++] = t[--k];
    return *this;
  }
  line& sdec(int64_t v) { return v < 0 ? dec(0 - static_cast<uint64_t>(v), true) : dec(static_cast<uint64_t>(v)); }
  line& hex(uintptr_t v) {
    char t[20];
    int k = 0;
    do t[k++] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) != 0);
    add("0x");
    while (k > 0 && n_ < sizeof buf_ - 1) buf_[n_++] = t[--k];
    return *this;
  }
  line& seconds(uint64_t ns) {  // one decimal
    const uint64_t tenths = ns / 100'000'000;
    return dec(tenths / 10).add(".").dec(tenths % 10);
  }
  void write_out() {
    buf_[n_++] = '\n';
    size_t done = 0;
    while (done < n_) {
      ssize_t w = ::write(STDERR_FILENO, buf_ + done, n_ - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return;
      done += static_cast<size_t>(w);
    }
  }

  const char* text() const { return buf_; }
  size_t size() const { return n_; }

 private:
  char buf_[512];
  size_t n_ = 0;
};

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

// A finalize mark's top bit: the PE finalizes at exit, without having called shmem_finalize.
constexpr uint64_t at_exit_bit = uint64_t{1} << 63;
std::atomic<bool> g_finalize_at_exit{false};

uint64_t finalize_word(const uint64_t* words, int pe) {
  return pe >= 0 && static_cast<size_t>(pe) + 1 < finalize_capacity
             ? __atomic_load_n(&words[1 + pe], __ATOMIC_ACQUIRE)
             : 0;
}
// The number of world barriers the PE had done when it began finalizing, plus one (0: not finalizing).
uint64_t finalize_mark(const uint64_t* words, int pe) { return finalize_word(words, pe) & ~at_exit_bit; }

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

const char* kind_text(uint64_t entry) {
  static const char* const texts[] = {"another collective", "a barrier or sync", "a broadcast", "an fcollect",
                                      "a collect", "an alltoall", "an alltoalls", "a reduction", "a team split"};
  const uint64_t k = entry & 0xff;
  return k < sizeof texts / sizeof texts[0] ? texts[k] : texts[0];
}

// A member of the team at the same collective number in another kind of collective made another call (see
// collective_entry). Members not mapped here are not looked at.
void compare_kinds(const group& g, const char* call) {
  const uint64_t* finalizing = finalize_words.load(std::memory_order_relaxed);
  uint64_t* word = team_entry_word(g);
  if (word == nullptr) return;
  const uint64_t mine = __atomic_load_n(word, __ATOMIC_RELAXED);
  if (mine == 0) return;
  for (int i = 0; i < g.size; ++i) {
    const int pe = g.pe(i);
    if (pe == g_my_pe) continue;
    const auto* theirs = static_cast<const uint64_t*>(pointer_to(word, pe));
    if (theirs == nullptr || (finalizing != nullptr && finalize_mark(finalizing, pe) != 0)) continue;
    const uint64_t entry = __atomic_load_n(theirs, __ATOMIC_ACQUIRE);
    if (entry_number(entry) != entry_number(mine) || entry == mine) continue;
    if ((entry & 0xff) == (mine & 0xff) && (entry & entry_root_mask) != 0 && (mine & entry_root_mask) != 0)
      fatal("PE %d waits in %s with root %llu while PE %d is in a broadcast with root %llu of the same team, at the "
            "same point (collective %llu of the team): collective calls do not match; every member must name the "
            "same root",
            g_my_pe, call, static_cast<unsigned long long>(((mine & entry_root_mask) >> 8) - 1), pe,
            static_cast<unsigned long long>(((entry & entry_root_mask) >> 8) - 1),
            static_cast<unsigned long long>(entry_number(mine) - 1));
    if ((entry & 0xff) == (mine & 0xff)) continue;
    fatal("PE %d waits in %s while PE %d is in %s of the same team, at the same point (collective %llu of the "
          "team): collective calls do not match; every member of a team must make the same collective calls in "
          "the same order",
          g_my_pe, call, pe, kind_text(entry), static_cast<unsigned long long>(entry_number(mine) - 1));
  }
}

uint64_t* stuck_word() { return runtime::get().internal() + stuck_offset / sizeof(uint64_t); }
[[gnu::tls_model("initial-exec")]] thread_local bool t_stuck_published = false;
// The team of this thread's outermost collective: a wait in another group (a step of that collective) has
// a stale entry word, and is not compared.
[[gnu::tls_model("initial-exec")]] thread_local const group* t_outer_group = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local coll_kind t_outer_kind = coll_kind::sync;

// Two members each waiting in a collective of a different team that the other has not joined, where each
// collective needs the other (any kind but a broadcast, which needs its root only): neither can go on. Both
// have waited a second (this side: in `g`, for `waited_pe` when its wait names one), and each publishes its
// collective (the team's slot, the entry word) in its stuck word; teams in one slot are disjoint, so a slot
// that holds both PEs on each side names the same team.
void check_cycle(const group& g, int waited_pe, const char* call) {
  // Threads of one PE may run collectives of different teams at once (SHMEM_THREAD_MULTIPLE, 3): a member's
  // other thread may yet join the peer's collective.
  if (runtime::get().thread_level() >= 3) return;
  const int slot = team_slot_of(g);
  uint64_t* word = team_entry_word(g);
  if (slot < 0 || word == nullptr) return;
  const uint64_t mine = __atomic_load_n(word, __ATOMIC_RELAXED);
  if (mine == 0 || mine >> 56 != 0) return;
  uint64_t* stuck = stuck_word();  // published by publish_stuck
  const auto kind = static_cast<coll_kind>(mine & 0xff);
  for (int i = 0; i < g.size; ++i) {
    const int pe = g.pe(i);
    if (pe == g_my_pe) continue;
    // Waiting in a broadcast, this PE needs its root, the PE its wait names, or (the root waiting for
    // arrivals) every member.
    const bool root_here = (mine & entry_root_mask) == entry_root_field(g.me);
    if (kind == coll_kind::broadcast && (mine & entry_root_mask) != entry_root_field(i) && pe != waited_pe &&
        !(waited_pe < 0 && root_here))
      continue;
    const auto* their_stuck = static_cast<const uint64_t*>(pointer_to(stuck, pe));
    const auto* their_entry = static_cast<const uint64_t*>(pointer_to(word, pe));
    if (their_stuck == nullptr || their_entry == nullptr) continue;
    const uint64_t s = __atomic_load_n(their_stuck, __ATOMIC_ACQUIRE);
    const int other_slot = static_cast<int>(s >> 56) - 1;
    if (s == 0 || other_slot == slot) continue;
    const team* other = team_in_slot(other_slot);
    if (other == nullptr || other->g.index_of(pe) < 0 || other->g.me < 0) continue;
    const uint64_t theirs = s & ((uint64_t{1} << 56) - 1);
    // The peer has not joined this collective, and this PE has not joined the peer's.
    if (entry_number(__atomic_load_n(their_entry, __ATOMIC_ACQUIRE)) >= entry_number(mine)) continue;
    if (*other->g.sequence + *other->g.epoch >= entry_number(theirs)) continue;
    if (static_cast<coll_kind>(theirs & 0xff) == coll_kind::broadcast &&
        (theirs & entry_root_mask) != entry_root_field(other->g.me))
      continue;  // its broadcast needs its root, not this PE
    line l;
    describe_group(l, other->g);
    line m;
    describe_group(m, g);
    fatal("PE %d waits in %s (%.*s) for PE %d, which waits in %s of another team (%.*s) that PE %d has not joined: "
          "each waits for the other; collective calls do not match; every member of a team must make the same "
          "collective calls in the same order",
          g_my_pe, call, static_cast<int>(m.size()), m.text(), pe, kind_text(theirs), static_cast<int>(l.size()),
          l.text(), g_my_pe);
  }
}

// Stuck word [0]: a team's collective is its slot plus one in the top byte over its entry word; an active set's,
// stuck_active_set in the top byte over its start (bits 8-23), size (24-39), log2 stride (40-44) and the kind
// (0-7); a DSM lock wait, stuck_lock in the top byte.
constexpr uint64_t stuck_active_set = 0xff, stuck_lock = 0xfe;
constexpr uint64_t low56 = (uint64_t{1} << 56) - 1;
bool stuck_in_team(uint64_t c) { return c >> 56 >= 1 && c >> 56 <= team_slots; }
int stuck_slot(uint64_t c) { return static_cast<int>(c >> 56) - 1; }

// An active set's collective as stuck word [0], or 0 when the set does not fit the fields.
uint64_t active_set_word(const group& g, coll_kind kind) {
  const bool fits = g.start >= 0 && g.start <= 0xffff && g.size >= 1 && g.size <= 0xffff && g.stride >= 1 &&
                    (g.stride & (g.stride - 1)) == 0;
  if (!fits) return 0;
  return stuck_active_set << 56 | static_cast<uint64_t>(__builtin_ctz(static_cast<unsigned>(g.stride))) << 40 |
         static_cast<uint64_t>(g.size) << 24 | static_cast<uint64_t>(g.start) << 8 | static_cast<uint8_t>(kind);
}
group active_set_in(uint64_t c) {
  group g;
  g.start = static_cast<int>(c >> 8 & 0xffff);
  g.size = static_cast<int>(c >> 24 & 0xffff);
  g.stride = 1 << (c >> 40 & 31);
  g.me = g.index_of(g_my_pe);
  return g;
}

// Publishes in the stuck words what this thread has waited in for a second (the outermost collective, or a DSM
// lock wait for the PE ahead in the queue) and the PE it waits for; returns word [0], or 0 when it published
// nothing. Not with SHMEM_THREAD_MULTIPLE (3): threads of a PE may wait in different collectives at once, and
// another thread may release a lock.
uint64_t publish_stuck(const wait_on& w) {
  if (runtime::get().thread_level() >= 3) return 0;
  uint64_t c = 0;
  if (w.g != nullptr) {
    if (w.g != t_outer_group) return 0;  // a step of a collective in another group: the outer one's word is stale
    if (const int slot = team_slot_of(*w.g); slot >= 0) {
      const uint64_t* word = team_entry_word(*w.g);
      const uint64_t mine = word != nullptr ? __atomic_load_n(word, __ATOMIC_RELAXED) : 0;
      if (mine == 0 || mine >> 56 != 0) return 0;
      c = static_cast<uint64_t>(slot + 1) << 56 | mine;
    } else {
      c = active_set_word(*w.g, t_outer_kind);
    }
  } else if (w.by_peer && w.pe >= 0 && w.what != nullptr && std::strcmp(w.what, "lock") == 0) {
    c = stuck_lock << 56;
  }
  if (c == 0) return 0;
  uint64_t* stuck = stuck_word();
  __atomic_store_n(&stuck[1], w.pe >= 0 ? static_cast<uint64_t>(w.pe) + 1 : 0, __ATOMIC_RELEASE);
  __atomic_store_n(&stuck[0], c, __ATOMIC_RELEASE);
  if (w.g != nullptr) t_stuck_published = true;  // cleared at the collective's exit
  return c;
}

// At the end of a wait that published the PE it waits for: that PE is stale (the collective's next wait may be
// for another); a lock wait takes back word [0] too.
void unpublish_stuck(bool lock_wait) {
  uint64_t* stuck = stuck_word();
  __atomic_store_n(&stuck[1], 0, __ATOMIC_RELEASE);
  if (lock_wait && !t_stuck_published) __atomic_store_n(&stuck[0], 0, __ATOMIC_RELEASE);
}

struct stuck_node {
  int pe;
  uint64_t what;  // its stuck word [0]
  int waited;     // the PE it waits for, -1 when not one known PE
};

bool read_node(int pe, stuck_node& n) {
  const auto* s = static_cast<const uint64_t*>(pointer_to(stuck_word(), pe));
  if (s == nullptr) return false;
  const uint64_t what = __atomic_load_n(&s[0], __ATOMIC_ACQUIRE);
  const uint64_t waited = __atomic_load_n(&s[1], __ATOMIC_ACQUIRE);
  if (what == 0 || __atomic_load_n(&s[0], __ATOMIC_ACQUIRE) != what) return false;
  n = {pe, what, static_cast<int>(waited) - 1};
  return true;
}

// Whether `pe`, stuck in `its`, has joined (or passed) the collective `c`, or may have: then it is no link of a
// cycle. Nobody joins a lock wait. An active set has no numbers, but its collectives end with a sync of every
// member: a member stuck in something else has not joined it (or that wait would have ended).
bool may_have_joined(int pe, uint64_t c, uint64_t its) {
  if (c >> 56 == stuck_lock) return false;
  if (c == its) return true;
  if (!stuck_in_team(c)) return false;
  const uint64_t number = entry_number(c & low56);
  if (pe == g_my_pe) {
    const team* t = team_in_slot(stuck_slot(c));
    return t == nullptr || t->g.me < 0 || *t->g.sequence + *t->g.epoch >= number;
  }
  const auto* theirs = static_cast<const uint64_t*>(pointer_to(team_entry_word_in_slot(stuck_slot(c)), pe));
  return theirs == nullptr || entry_number(__atomic_load_n(theirs, __ATOMIC_ACQUIRE)) >= number;
}

// Whether what `n` waits in cannot end without `target`: the PE its wait names, or, when it names none, any
// member of an active set, or of a team this PE knows (a broadcast: its root, or every member for the root).
bool needs(const stuck_node& n, int target) {
  if (n.waited >= 0) return n.waited == target;
  if (n.what >> 56 == stuck_active_set) {
    const group g = active_set_in(n.what);
    return g.index_of(n.pe) >= 0 && g.index_of(target) >= 0;
  }
  if (!stuck_in_team(n.what)) return false;
  const team* t = team_in_slot(stuck_slot(n.what));
  if (t == nullptr || t->g.me < 0) return false;
  const int at = t->g.index_of(n.pe), ti = t->g.index_of(target);
  if (at < 0 || ti < 0) return false;
  const uint64_t root = n.what & entry_root_mask;
  if (static_cast<coll_kind>(n.what & 0xff) == coll_kind::broadcast && root != 0)
    return root == entry_root_field(at) || root == entry_root_field(ti);
  return true;
}

void describe_node(line& l, const stuck_node& n, const char* call, const wait_on* w) {
  l.add("PE ").dec(static_cast<uint64_t>(n.pe)).add(call != nullptr ? " waits in " : " in ");
  if (n.what >> 56 == stuck_lock) {
    if (call != nullptr) l.add(call).add(" (").add(w->what).add(" ").hex(reinterpret_cast<uintptr_t>(w->addr)).add(")");
    else l.add("a DSM lock's queue");
    return;
  }
  l.add(call != nullptr ? call : kind_text(n.what)).add(" (");
  if (n.what >> 56 == stuck_active_set) {
    describe_group(l, active_set_in(n.what));
  } else {
    const team* t = team_in_slot(stuck_slot(n.what));
    if (t != nullptr && t->g.index_of(n.pe) >= 0) describe_group(l, t->g);
    else l.add("another team");
  }
  l.add(")");
}

[[noreturn]] void report_chain(const stuck_node* path, int len, const wait_on& w, const char* call) {
  line l;
  bool lock = false;
  for (int i = 0; i < len; ++i) {
    if (i > 0) l.add(i + 1 < len ? ", " : " and ");
    describe_node(l, path[i], i == 0 ? call : nullptr, &w);
    l.add(" for PE ").dec(static_cast<uint64_t>(i + 1 < len ? path[i + 1].pe : g_my_pe));
    lock = lock || path[i].what >> 56 == stuck_lock;
  }
  if (lock)
    fatal("%.*s: each waits for the next, in a cycle (a deadlock); a PE that holds a DSM lock must release it before "
          "a collective call that a PE waiting for the lock has yet to make",
          static_cast<int>(l.size()), l.text());
  fatal("%.*s: each waits for the next, in a cycle; collective calls do not match; every PE must make the same "
        "collective calls, on the same teams and active sets, in the same order",
        static_cast<int>(l.size()), l.text());
}

// The PEs stuck for a second, each waiting for the next, around a cycle through this PE (of any length; with
// active sets and DSM lock waits too): from the PE this wait is for (or each member it needs), follow the PE
// each waits for, through PEs that have not joined what the one before waits in, back to this PE, which has
// not joined what the last waits in. Only PEs mapped here are followed. A cycle must be found at two checks in
// a row (100 ms apart), so that words read one after the other while some PE moved on cannot make one up.
[[gnu::tls_model("initial-exec")]] thread_local uint64_t t_chain_seen = 0;
void check_chain(const wait_on& w, uint64_t mine, const char* call) {
  constexpr int max_chain = 16;
  const stuck_node self{g_my_pe, mine, w.pe};
  stuck_node path[max_chain];
  int len = 0;
  auto walk = [&](int next) {
    path[0] = self;
    len = 1;
    while (len < max_chain && next >= 0 && next != g_my_pe) {
      stuck_node n{};
      if (!read_node(next, n) || may_have_joined(next, path[len - 1].what, n.what)) return false;
      for (int i = 1; i < len; ++i)
        if (path[i].pe == next) return false;  // a cycle without this PE: its members name it
      path[len++] = n;
      if (needs(n, g_my_pe) && !may_have_joined(g_my_pe, n.what, mine)) return true;
      next = n.waited;
    }
    return false;
  };
  bool found = false;
  if (w.pe >= 0) {
    found = walk(w.pe);
  } else if (w.g != nullptr) {
    for (int i = 0; i < w.g->size && !found; ++i)
      if (const int pe = w.g->pe(i); pe != g_my_pe && needs(self, pe)) found = walk(pe);
  }
  if (!found) {
    t_chain_seen = 0;
    return;
  }
  uint64_t sig = 1469598103934665603ULL;
  for (int i = 0; i < len; ++i) sig = (sig ^ path[i].what ^ static_cast<uint64_t>(path[i].pe) << 40) * 1099511628211ULL;
  if (sig != t_chain_seen) {
    t_chain_seen = sig;
    return;
  }
  report_chain(path, len, w, call);
}

// After a second of waiting, every 100 ms: compare_kinds, then publish_stuck, check_cycle and check_chain.
// Returns whether it published the wait in the stuck words.
bool check_kinds(uint64_t& checked, uint64_t since, const wait_on& w, const char* call, uint64_t now) {
  constexpr uint64_t after_ns = 1'000'000'000, every_ns = 100'000'000;
  if (since == 0 || now - since < after_ns || now - checked < every_ns) return false;
  // Finalize's own waits, and waits for a member in finalize, are check_group's.
  if (g_self_finalizing.load(std::memory_order_relaxed)) return false;
  checked = now;
  if (w.g != nullptr) compare_kinds(*w.g, call);
  const uint64_t mine = publish_stuck(w);
  if (mine == 0) return false;
  if (w.g != nullptr && stuck_in_team(mine)) check_cycle(*w.g, w.pe, call);
  check_chain(w, mine, call);
  return true;
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

void watch_check_kinds(const group& g, const char* call) {
  if (!g_self_finalizing.load(std::memory_order_relaxed)) compare_kinds(g, call);
}

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

collective_entry::collective_entry(const group& g, coll_kind kind, int root) {
  if (t_collective_depth++ != 0) return;
  t_outer_group = &g;
  t_outer_kind = kind;
  uint64_t* word = team_entry_word(g);
  if (word == nullptr) return;
  const uint64_t number = *g.sequence + *g.epoch;
  const uint64_t root_field = root >= 0 && root < 0xffff ? entry_root_field(root) : 0;
  __atomic_store_n(word, ((number + 1) << entry_number_shift) | root_field | static_cast<uint8_t>(kind),
                   __ATOMIC_RELEASE);
}

collective_entry::~collective_entry() {
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
