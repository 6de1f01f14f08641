// What the collectives of group.cpp and group_hier.cpp share: the layout of a group's sync words, the
// counters in them, and small copies.
//
// Word layout (one counter per cache line): 0..15 dissemination rounds; then, for each parity of the
// collective's sequence number, DATA (arrivals), READY (entries), SLICE (broadcast scatter, hosts'
// exchanges) and CHAIN (collect offsets, reduce results). A counter is raised by remote atomic adds and
// consumed by its owner with a local atomic subtract, so nothing is ever reset and idle words are zero (what
// pSync arrays must be between calls). The barrier across hosts uses the last two round words for its
// gathering within a host (a counter) and its release (the epoch, or a counter for active sets).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/group.hpp"

namespace rdsm::detail::coll {

constexpr int max_rounds = 16;
enum word : int {
  w_gather = max_rounds - 2,   // barrier across hosts: members of a host tell their leader they arrived
  w_release = max_rounds - 1,  // ... and the leader lets them go
  w_data = max_rounds,
  w_ready = max_rounds + 2,
  w_slice = max_rounds + 4,
  w_chain = max_rounds + 6
};
static_assert((w_chain + 2) * 8 <= group_sync_longs, "sync words overflow");

inline long* word_at(group& g, int w) { return g.sync + w * 8; }

/// Adds `by` to member `index`'s counter `w`.
void raise(const char* fn, group& g, int index, int w, long by);
/// Waits until the local counter `w` reaches `count`, then takes `count` from it. `from` is the member whose
/// signal is awaited, when one is (for hang reports).
void consume(const char* fn, group& g, int w, long count, int from = -1);
/// Waits until the local word `w` has every bit of `bits` set (counters raised by distinct powers of two).
void await_bits(const char* fn, group& g, int w, long bits, int from);

/// Barrier words: a team's member `index` gets `epoch` stored into its word `w` (epochs only grow, so a store
/// is the whole signal); an active set's gets its counter raised by one.
void signal_epoch(const char* fn, group& g, int index, int w, long epoch);
/// Waits for the matching signal_epoch (from member `from`) on the local word `w`.
void wait_epoch(const char* fn, group& g, int w, long epoch, int from);

/// Dissemination over `n` participants, this one being number `me`: round k signals number me+2^k and waits
/// for number me-2^k on round word k (signal_epoch, wait_epoch). `member(i)` is participant i's group index.
template <class Member>
void disseminate(const char* fn, group& g, int n, int me, long epoch, Member member) {
  for (int k = 0, dist = 1; dist < n && k < max_rounds; ++k, dist <<= 1) {
    signal_epoch(fn, g, member((me + dist) % n), k, epoch);
    wait_epoch(fn, g, k, epoch, member((me - dist % n + n) % n));
  }
}

/// Teams alternate two parities (a member is at most one collective ahead). Active sets have no sequence
/// shared by their members (one pSync may serve several active sets, each PE seeing a different history),
/// so they use parity 0 and end every collective with a sync: nobody runs ahead at all.
inline int parity(group& g) { return g.sequence == nullptr ? 0 : static_cast<int>((*g.sequence)++ & 1); }

struct active_set_exit {
  const char* fn;
  group& g;
  ~active_set_exit() {
    if (g.sequence == nullptr) group_sync(fn, g);
  }
};

inline char* at(void* base, size_t offset) { return static_cast<char*>(base) + offset; }
inline const char* at(const void* base, size_t offset) { return static_cast<const char*>(base) + offset; }

/// Whether every other member's copy of the symmetric address `addr` is mapped here (so, as a host's PEs map
/// each other's memory alike, whether every member maps every other's): then all members share one host.
bool maps_every_member(const group& g, const void* addr);

/// Copies between local buffers that may overlap or be the same.
void copy_local(void* dest, const void* source, size_t bytes);

}  // namespace rdsm::detail::coll
