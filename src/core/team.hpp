// Teams: strided subsets of the world with their own synchronization words and collectives.
#pragma once

#include "core/group.hpp"

namespace rdsm::detail {

/// Teams share a pool of sync-word slots in the heap's internal area; slot 0 is the world, 1 the shared
/// team. A new team takes the lowest slot free on every member of its parent (found by an AND-reduction
/// over the parent), so overlapping teams never share a slot.
constexpr int team_slots = 64;

struct team {
  group g;
  uint64_t sequence = 0;  // g.sequence points here
  uint64_t epoch = 0;     // g.epoch points here
  int slot = -1;
  int num_contexts = 0;  // from shmem_team_config_t
};

/// This PE's word that names the collective it entered last on the team of `g` (watch.hpp,
/// collective_entry); symmetric, so pointer_to finds a member's. nullptr for an active set.
uint64_t* team_entry_word(const group& g);
/// This PE's entry word of the team in `slot` (any team a PE has in that slot: teams in one slot are
/// disjoint, so for a member of a team, its word of the team's slot).
uint64_t* team_entry_word_in_slot(int slot);
/// This PE's two size words of the team in `slot`, by the parity of the collective's number: the bytes of a
/// collective whose members must pass the same count, plus one (collective_entry); symmetric.
uint64_t* team_size_words_in_slot(int slot);
/// The slot of a team's group (0: the world), or -1 for an active set.
int team_slot_of(const group& g);
/// This PE's team in `slot`, or nullptr.
const team* team_in_slot(int slot);

/// Creates the world and shared teams (after the runtime is up).
void teams_create();
team* team_world();
team* team_shared();

/// Collective over the parent. Members get a new team; other parent members get nullptr. Returns false
/// (everyone gets nullptr) when no slot is free or the arguments are invalid (logged).
bool team_split_strided(const char* fn, team* parent, int start, int stride, int size, int num_contexts,
                        team** out);
bool team_split_2d(const char* fn, team* parent, int xrange, int x_contexts, team** xteam, int y_contexts,
                   team** yteam);
void team_destroy(team* t);

}  // namespace rdsm::detail
