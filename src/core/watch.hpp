// Diagnosis of a stuck job: what each thread of this PE waits for, the RDSM_HANG_REPORT watchdog, the report
// on SIGUSR1, the check that no PE waits in a collective that a peer in shmem_finalize will never join, and the
// checks that PEs are not in different collectives at one point, nor waiting for each other around a cycle.
#pragma once

#include <atomic>
#include <cstdint>

namespace rdsm::detail {

struct group;
struct config;

/// What a blocking call waits for, as the reports name it. Every field but `call` is optional.
struct wait_on {
  const char* call = nullptr;     // the API call ("shmem_barrier_all") or the runtime's action ("DSM write fault")
  const char* what = nullptr;     // the object at `addr` ("lock", "page"), or nullptr for a watched value
  const void* addr = nullptr;     // the word or object waited on
  int pe = -1;                    // the PE whose action ends the wait, -1 when not one known PE
  int cmp = 0;                    // SHMEM_CMP_* code of a value wait (then `value` and `width` are set)
  unsigned width = 0;             // bytes of the watched word (1, 2, 4 or 8)
  bool is_signed = false;
  uint64_t value = 0;             // the value compared with
  const group* g = nullptr;       // the team or active set of a collective
  long epoch = 0;                 // a barrier of the world team: its number (see watch_barrier_done)
  bool by_peer = false;           // point to point: only a peer's put, atomic or lock release ends the wait
};

/// Makes `w` this thread's current wait for the scope's lifetime (nested scopes stack: the reports name the
/// outermost call and the innermost wait). Meant for slow paths, but cheap: a few plain stores (the clock is
/// read by the first watch_tick, which the back-off calls anyway); `w` must outlive the scope.
class wait_scope {
 public:
  /// `timed`: read the clock now (for a scope whose loops do not tick, such as finalize's).
  explicit wait_scope(const wait_on& w, bool timed = false);
  ~wait_scope();
  wait_scope(const wait_scope&) = delete;
  wait_scope& operator=(const wait_scope&) = delete;

  const wait_on& on() const { return on_; }
  const wait_scope* outer() const { return outer_; }
  /// When the wait began (its first watch_tick), or 0 before that.
  uint64_t since_ns() const { return since_ns_; }

 private:
  friend void watch_tick(uint64_t now_ns);
  const wait_on& on_;
  wait_scope* outer_;
  uint64_t since_ns_;
  uint64_t peer_finalizing_ns_ = 0;  // when this wait first saw a member of its group (or, point to point,
                                     // every other PE) in shmem_finalize
  uint64_t kinds_checked_ns_ = 0;    // when this wait last compared its collective with its members'
  bool reported_ = false;
  bool stuck_published_ = false;     // this wait published the PE it waits for in the stuck words (watch_stuck.cpp)
};

/// A wait for every PE of the job in a collective that no group of the runtime runs (one of the bootstrap, the
/// DSM's start): watched as a wait in the world team, so that a peer that finalizes instead ends the job.
class world_wait {
 public:
  explicit world_wait(const char* call);

 private:
  wait_on on_;
  wait_scope scope_;
};

/// The collectives a team's members must call alike, for the check that they do.
enum class coll_kind : uint8_t { sync = 1, broadcast, fcollect, collect, alltoall, alltoalls, reduce, split };

/// At the entry of a collective on a team (the outermost of this thread: collectives built of others name
/// the outer one): publishes its kind, a broadcast's root, and its number on the team (barriers plus other
/// collectives so far, equal on every member at the same call) in this PE's word of the team
/// (team_entry_word). A member that has waited a second in a collective of the team reads its peers' words:
/// one at the same number with another kind, or a broadcast from another root, made another call, and the
/// job ends naming both. One store per collective.
/// A collective whose members must pass the same count (broadcast, fcollect, alltoall, reductions) of 128 KiB
/// or more (any count with SHMEM_DEBUG) also publishes its bytes, and at its exit compares them with the
/// next member's when that member is mapped here and has entered it: members that pass different counts
/// write over each other's blocks, and the job ends naming both sizes instead. A store and two loads.
class collective_entry {
 public:
  static constexpr uint64_t unsized = ~uint64_t{0};
  /// `root`: a broadcast's root (its index in the team), compared too; -1 for other collectives. `bytes`: the
  /// size every member must pass, or unsized.
  collective_entry(const group& g, coll_kind kind, int root = -1, uint64_t bytes = unsized, const char* fn = nullptr);
  ~collective_entry();
  collective_entry(const collective_entry&) = delete;
  collective_entry& operator=(const collective_entry&) = delete;

 private:
  const group* g_ = nullptr;  // set when this PE's size is to be compared at the exit
  const char* fn_ = nullptr;
  uint64_t number_ = 0, bytes_ = 0, kind_ = 0;
};

/// At once, for a collective whose result looks wrong (a team split that finds no free slot): ends the job when
/// a member of `g` mapped here is in another kind of collective at the same point (`call` made this one).
void watch_check_kinds(const group& g, const char* call);

/// Called by waiting loops now and then (the back-off's slow path, which has just read the clock): prints
/// the RDSM_HANG_REPORT line once the current wait is long enough, and ends the job when a member of the
/// collective waited in has entered shmem_finalize instead. Does nothing when the thread has no wait_scope.
void watch_tick(uint64_t now_ns);

/// At init, once the teams exist: reads RDSM_HANG_REPORT and installs the SIGUSR1 report (unless the
/// program handles SIGUSR1 itself).
void watch_start(const config& cfg, int my_pe, int n_pes);
/// At the end of finalize: restores SIGUSR1's previous disposition.
void watch_stop();

/// At the start of shmem_finalize, before any collective of finalize: tells every peer that this PE is
/// finalizing and after how many barriers of the world team. From here on this PE's own waits are
/// finalize's and are never a mismatch.
void watch_finalize_begin();
/// Before the finalize that a normal exit makes for a PE that did not call shmem_finalize: a peer that
/// finds its collective calls do not match says that the PE ended without shmem_finalize.
void watch_finalize_at_exit();

namespace watch_detail {
extern const uint64_t* world_epoch;                   // the world team's barrier count
extern std::atomic<const uint64_t*> finalize_words;   // [0]: some peer finalizes; [1 + pe]: its mark
void check_world_barrier(const char* fn, long epoch);
}  // namespace watch_detail

/// After barrier number `epoch` of `g` completed (a plain load and compare unless a peer is in finalize):
/// ends the job when `g` is the world team and a peer joined that barrier from shmem_finalize.
inline void watch_barrier_done(const char* fn, const uint64_t* group_epoch, long epoch) {
  if (group_epoch != watch_detail::world_epoch) return;
  const uint64_t* w = watch_detail::finalize_words.load(std::memory_order_relaxed);
  if (w != nullptr && __atomic_load_n(w, __ATOMIC_ACQUIRE) != 0) watch_detail::check_world_barrier(fn, epoch);
}

}  // namespace rdsm::detail
