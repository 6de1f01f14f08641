// The checks that PEs are not in different collectives at one point, nor waiting for each other around a cycle:
// compare_kinds reads the members' entry words of a team (collective_entry publishes them), publish_stuck tells
// the peers what this PE has waited in for a second and for which PE (its stuck words), and check_cycle and
// check_chain follow those words from PE to PE back to this one. watch_tick runs them through check_kinds; only
// PEs whose sync region is mapped here are looked at.
#include <cstring>

#include "common/log.hpp"
#include "core/group.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/sync.hpp"
#include "core/team.hpp"
#include "core/watch_internal.hpp"

namespace rdsm::detail::watch_detail {

uint64_t* stuck_word() { return runtime::get().internal() + stuck_offset / sizeof(uint64_t); }
[[gnu::tls_model("initial-exec")]] constinit thread_local bool t_stuck_published = false;

namespace {

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
// (0-7); a lock wait (a DSM lock's, or a ticket lock's whose holder is known), stuck_lock in the top byte.
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

}  // namespace

// At the end of a wait that published the PE it waits for: that PE is stale (the collective's next wait may be
// for another); a lock wait takes back word [0] too.
void unpublish_stuck(bool lock_wait) {
  uint64_t* stuck = stuck_word();
  __atomic_store_n(&stuck[1], 0, __ATOMIC_RELEASE);
  if (lock_wait && !t_stuck_published) __atomic_store_n(&stuck[0], 0, __ATOMIC_RELEASE);
}

namespace {

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
    else l.add("a lock's wait");
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
    fatal("%.*s: each waits for the next, in a cycle (a deadlock); a PE that holds a lock must release it before "
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

}  // namespace

// After a second of waiting, every 100 ms: compare_kinds, then publish_stuck, check_cycle and check_chain.
// Returns whether it published the wait in the stuck words.
bool check_kinds(uint64_t& checked, uint64_t since, const wait_on& w, const char* call, uint64_t now) {
  constexpr uint64_t after_ns = 1'000'000'000, every_ns = 100'000'000;
  if (since == 0 || now - since < after_ns || now - checked < every_ns) return false;
  // Finalize's own waits, and waits for a member in finalize, are check_group's (watch.cpp).
  if (g_self_finalizing.load(std::memory_order_relaxed)) return false;
  checked = now;
  if (w.g != nullptr) compare_kinds(*w.g, call);
  // A wait for a lock names the PE ahead of it (a DSM lock's queue) or, for a ticket lock, none: the lock's
  // holder, when a PE of this host publishes that it holds it, is the PE the wait is for.
  wait_on resolved = w;
  const bool ticket_wait =
      w.pe < 0 && w.by_peer && w.addr != nullptr && w.what != nullptr && std::strcmp(w.what, "lock") == 0;
  if (ticket_wait) resolved.pe = lock_holder(w.addr);
  if (ticket_wait && resolved.pe < 0) {
    // The holder is not seen here (it changed hands, to a PE of another host): a holder published before is
    // stale, and a peer must not find this wait in a cycle through it.
    unpublish_stuck(true);
    return false;
  }
  const uint64_t mine = publish_stuck(resolved);
  if (mine == 0) return false;
  if (w.g != nullptr && stuck_in_team(mine)) check_cycle(*w.g, w.pe, call);
  check_chain(resolved, mine, call);
  return true;
}

}  // namespace rdsm::detail::watch_detail

namespace rdsm::detail {

void watch_check_kinds(const group& g, const char* call) {
  if (!watch_detail::g_self_finalizing.load(std::memory_order_relaxed)) watch_detail::compare_kinds(g, call);
}

}  // namespace rdsm::detail
