// Team creation, slot allocation and destruction.
#include "core/team.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/log.hpp"
#include "core/runtime.hpp"
#include "core/watch.hpp"

namespace rdsm::detail {
namespace {

team g_world;
team g_shared;
uint64_t g_free_slots = ~uint64_t{0};  // bit s set: this PE uses no team in slot s
const team* g_by_slot[team_slots] = {};  // this PE's team in each slot

// The internal area: the first words serve the runtime, team slots follow.
constexpr size_t slots_offset = 4096;
static_assert(slots_offset + team_slots * group_sync_longs * sizeof(long) <= internal_bytes,
              "team slots must fit in the internal area");
// After the slots, one word per slot: the collective this PE entered last on that team; then two per slot:
// the sizes of its last two collectives that have one.
constexpr size_t entries_offset = slots_offset + team_slots * group_sync_longs * sizeof(long);
constexpr size_t sizes_offset = entries_offset + team_slots * sizeof(uint64_t);

// Each slot's scratch, in the heap's reserved area (before the user heap; symmetric): half of it for the
// world (slot 0), whose collectives are the most common and the largest, an equal share of the rest for
// each other slot.
constexpr size_t world_scratch = symmetric_heap::base_alignment / 2;
constexpr size_t scratch_per_slot = (symmetric_heap::base_alignment - world_scratch) / (team_slots - 1) / 4096 * 4096;

void set_slot(group& g, int slot) {
  char* reserved = reinterpret_cast<char*>(runtime::get().region_base(heap_region));
  g.scratch = slot == 0 ? reserved : reserved + world_scratch + static_cast<size_t>(slot - 1) * scratch_per_slot;
  g.scratch_bytes = slot == 0 ? world_scratch : scratch_per_slot;
}

long* slot_words(int slot) {
  auto* base = reinterpret_cast<char*>(runtime::get().internal()) + slots_offset;
  return reinterpret_cast<long*>(base + static_cast<size_t>(slot) * group_sync_longs * sizeof(long));
}

}  // namespace

uint64_t* team_entry_word(const group& g) { return team_entry_word_in_slot(team_slot_of(g)); }

uint64_t* team_entry_word_in_slot(int slot) {
  if (slot < 0 || slot >= team_slots) return nullptr;
  auto* base = reinterpret_cast<char*>(runtime::get().internal()) + entries_offset;
  return reinterpret_cast<uint64_t*>(base) + slot;
}

uint64_t* team_size_words_in_slot(int slot) {
  if (slot < 0 || slot >= team_slots) return nullptr;
  auto* base = reinterpret_cast<char*>(runtime::get().internal()) + sizes_offset;
  return reinterpret_cast<uint64_t*>(base) + 2 * slot;
}

int team_slot_of(const group& g) {
  if (g.sequence == nullptr || g.epoch == nullptr) return -1;
  return static_cast<int>(static_cast<size_t>(g.sync - slot_words(0)) / group_sync_longs);
}

const team* team_in_slot(int slot) { return slot >= 0 && slot < team_slots ? g_by_slot[slot] : nullptr; }

namespace {

// Scratch words in a slot's spare line, for the slot agreement (AND of free masks) over the parent.
long* agreement_words(team* t) { return t->g.sync + group_sync_longs - 16; }

void and_combine(void* acc, const void* in, size_t n) {
  auto* a = static_cast<uint64_t*>(acc);
  const auto* b = static_cast<const uint64_t*>(in);
  for (size_t i = 0; i < n; ++i) a[i] &= b[i];
}

// The arguments of a split as one word (a hash of the call and its arguments), for the check that every member
// of the parent passed the same.
uint64_t split_args_word(uint64_t call, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  uint64_t h = call;
  for (uint64_t v : {a, b, c}) {  // splitmix64 steps
    h += v + 0x9e37'79b9'7f4a'7c15;
    h = (h ^ (h >> 30)) * 0xbf58'476d'1ce4'e5b9;
    h = (h ^ (h >> 27)) * 0x94d0'49bb'1331'11eb;
    h ^= h >> 31;
  }
  return h;
}

// Slots free on every member of the parent (collective over the parent). A second word, the same constant
// from every member, comes out of the AND intact only when every member took part: a member in another
// collective completes the reduction with what it never wrote (no free slot at all, once the job's warning).
// Two more, `args` and its complement, both come out intact only when every member passed the same `args`:
// members that split with different arguments would each make another team and hang in its first collective.
// `what`: this PE's arguments, `names`: what they are, for the error.
uint64_t agree_free_slots(const char* fn, team* parent, uint64_t args, const char* what, const char* names) {
  constexpr uint64_t taking_part = 0x7370'6c69'7400'0001;  // "split"
  long* w = agreement_words(parent);
  const uint64_t in[4] = {g_free_slots, taking_part, args, ~args};
  std::memcpy(&w[0], in, sizeof in);
  group_reduce(fn, parent->g, &w[4], &w[0], 4, sizeof(uint64_t), and_combine);
  uint64_t out[4];
  std::memcpy(out, &w[4], sizeof out);
  std::memset(w, 0, 8 * sizeof(long));
  if (out[1] != taking_part) {
    watch_check_kinds(parent->g, fn);  // names the other call when that member is mapped here
    fatal("%s: a member of the parent team made another collective call at this point: collective calls do not "
          "match; every member of the parent team must call %s together",
          fn, fn);
  }
  if (out[2] != args || out[3] != ~args)
    fatal("%s: members of the parent team passed different arguments (PE %d passed %s): every member of the parent "
          "team must call %s with the same %s",
          fn, runtime::get().my_pe(), what, fn, names);
  return out[0];
}

team* make_team(int slot, int start, int stride, int size, int num_contexts) {
  auto* t = new team();
  t->g.start = start;
  t->g.stride = stride;
  t->g.size = size;
  t->g.me = t->g.index_of(runtime::get().my_pe());
  t->g.sync = slot_words(slot);
  t->g.sequence = &t->sequence;
  t->g.epoch = &t->epoch;
  t->slot = slot;
  set_slot(t->g, slot);
  t->num_contexts = num_contexts;
  g_free_slots &= ~(uint64_t{1} << slot);
  g_by_slot[slot] = t;
  return t;
}

int lowest_slot(uint64_t mask) { return mask == 0 ? -1 : __builtin_ctzll(mask); }

}  // namespace

void teams_create() {
  runtime& rt = runtime::get();
  g_free_slots = ~uint64_t{0};
  g_world = team();
  g_world.g = group{0, 1, rt.n_pes(), rt.my_pe(), slot_words(0), &g_world.sequence, &g_world.epoch};
  g_world.slot = 0;
  set_slot(g_world.g, 0);
  // The shared team: the PEs whose heap this PE can load and store, when they form a strided set that
  // contains this PE (always so on one host); otherwise just this PE.
  int first = -1, last = -1, count = 0;
  for (int pe = 0; pe < rt.n_pes(); ++pe)
    if (rt.mapped(sym_addr{heap_region, 0}, pe) != nullptr) {
      if (first < 0) first = pe;
      last = pe;
      ++count;
    }
  int stride = count > 1 ? (last - first) / (count - 1) : 1;
  bool strided = count > 0 && (count == 1 || (last - first) % (count - 1) == 0);
  for (int i = 0; strided && i < count; ++i)
    strided = rt.mapped(sym_addr{heap_region, 0}, first + i * stride) != nullptr;
  g_shared = team();
  if (strided && count > 0)
    g_shared.g = group{first, stride, count, 0, slot_words(1), &g_shared.sequence, &g_shared.epoch};
  else
    g_shared.g = group{rt.my_pe(), 1, 1, 0, slot_words(1), &g_shared.sequence, &g_shared.epoch};
  g_shared.g.me = g_shared.g.index_of(rt.my_pe());
  g_shared.slot = 1;
  set_slot(g_shared.g, 1);
  g_free_slots &= ~uint64_t{3};
  g_by_slot[0] = &g_world;
  g_by_slot[1] = &g_shared;
}

team* team_world() { return &g_world; }
team* team_shared() { return &g_shared; }

bool team_split_strided(const char* fn, team* parent, int start, int stride, int size, int num_contexts,
                        team** out) {
  *out = nullptr;
  bool valid = size >= 1 && start >= 0 && start < parent->g.size && stride != 0 &&
               static_cast<long>(start) + static_cast<long>(size - 1) * stride < parent->g.size &&
               static_cast<long>(start) + static_cast<long>(size - 1) * stride >= 0;
  if (size == 1 && stride == 0) valid = start >= 0 && start < parent->g.size;
  // Every parent member takes part in the agreement, even when the arguments are bad, so nobody hangs.
  const collective_entry entry(parent->g, coll_kind::split);
  // Teams of one PE are compared by size only: they never hang, so members that each split off a team of
  // itself (a different start on each, against the specification) keep working as they did.
  const uint64_t args = size == 1 ? split_args_word(1, 0, 0, 1)
                                  : split_args_word(1, static_cast<uint32_t>(start), static_cast<uint32_t>(stride),
                                                    static_cast<uint32_t>(size));
  char what[96];
  std::snprintf(what, sizeof what, "start %d, stride %d, size %d", start, stride, size);
  uint64_t free = agree_free_slots(fn, parent, args, what, "start, stride and size");
  if (!valid) {
    RDSM_LOG_WARN("team", "%s: start %d, stride %d, size %d do not fit a parent team of %d PEs", fn, start, stride,
                  size, parent->g.size);
    return false;
  }
  int slot = lowest_slot(free);
  if (slot < 0) {
    RDSM_LOG_WARN("team", "%s: all %d team slots are in use; destroy unused teams", fn, team_slots);
    return false;
  }
  // Team PE i is parent PE start + stride*i, whatever the sign of the stride (OpenSHMEM 1.5): a negative stride
  // numbers the team downwards through the parent.
  if (stride == 0) stride = 1;  // size is 1
  const group in_parent{start, stride, size};
  if (in_parent.index_of(parent->g.me) < 0) return true;  // not a member
  *out = make_team(slot, parent->g.pe(start), parent->g.stride * stride, size, num_contexts);
  return true;
}

bool team_split_2d(const char* fn, team* parent, int xrange, int x_contexts, team** xteam, int y_contexts,
                   team** yteam) {
  *xteam = *yteam = nullptr;
  const collective_entry entry(parent->g, coll_kind::split);
  char what[48];
  std::snprintf(what, sizeof what, "xrange %d", xrange);
  uint64_t free = agree_free_slots(fn, parent, split_args_word(2, static_cast<uint32_t>(xrange)), what, "xrange");
  if (xrange <= 0) {
    RDSM_LOG_WARN("team", "%s: xrange %d must be positive", fn, xrange);
    return false;
  }
  const int n = parent->g.size;
  if (xrange > n) xrange = n;
  // Rows (x teams) are disjoint, so they share one slot; columns (y teams) share another.
  int xslot = lowest_slot(free);
  int yslot = xslot < 0 ? -1 : lowest_slot(free & ~(uint64_t{1} << xslot));
  if (yslot < 0) {
    RDSM_LOG_WARN("team", "%s: fewer than two team slots are free; destroy unused teams", fn);
    return false;
  }
  const int me = parent->g.me;
  const int row = me / xrange, col = me % xrange;
  const int row_size = std::min(xrange, n - row * xrange);
  const int col_size = (n - col + xrange - 1) / xrange;
  *xteam = make_team(xslot, parent->g.pe(row * xrange), parent->g.stride, row_size, x_contexts);
  *yteam = make_team(yslot, parent->g.pe(col), parent->g.stride * xrange, col_size, y_contexts);
  return true;
}

void team_destroy(team* t) {
  if (t == nullptr || t == &g_world || t == &g_shared) return;
  group_sync("shmem_team_destroy", t->g);  // no member may still signal this slot's words
  // Barrier words hold epochs; the next team in this slot counts from zero again.
  std::memset(t->g.sync, 0, group_sync_longs * sizeof(long));
  g_free_slots |= uint64_t{1} << t->slot;
  g_by_slot[t->slot] = nullptr;
  delete t;
}

}  // namespace rdsm::detail
