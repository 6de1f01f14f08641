// A set of PEs that runs collectives together (a team or an active set), and its collectives.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rdsm::detail {

/// Longs of symmetric synchronization words a group needs (one counter per 64-byte line, 24 counters and
/// two spare lines for team creation); shmem.h's SHMEM_*_SYNC_SIZE constants equal this.
constexpr int group_sync_longs = 26 * 8;

/// Members are the world PEs start + i*stride for i in [0, size), member i being index i (a negative stride
/// lists them downwards, and collectives follow that order). Every collective over a group has the
/// barrier property (no member returns before every member has entered), so a member is never more than
/// one collective ahead of another and counters alternate between two parities.
struct group {
  int start = 0;
  int stride = 1;
  int size = 1;
  int me = -1;                // my index in the group, -1 if not a member
  long* sync = nullptr;       // symmetric words, group_sync_longs of them, zero when idle
  uint64_t* sequence = nullptr;  // collectives done on this team so far (same on every member); none
                                 // for active sets
  /// Barriers done on this group, for teams: their sync stores this epoch (words only grow, a plain
  /// store suffices). nullptr for active sets, whose pSync words must return to zero: they count instead.
  uint64_t* epoch = nullptr;
  /// Symmetric scratch of a team (the same slice of the heap's reserved area on every member), for the
  /// collectives across hosts that need more than counters; none for active sets.
  void* scratch = nullptr;
  size_t scratch_bytes = 0;

  int pe(int index) const { return start + index * stride; }
  /// Index of world PE `world`, or -1.
  int index_of(int world) const;
};

/// Builds the group of an active set (PE_start, logPE_stride, PE_size, pSync); checks the arguments. An
/// active set has no sequence: its collectives end with a sync, so one pSync can serve any active set
/// once every PE has returned from its previous use.
group active_set(const char* fn, int pe_start, int log_stride, int pe_size, long* psync);

void group_sync(const char* fn, group& g);
void group_barrier(const char* fn, group& g);  // quiet, then sync

/// With root_receives (OpenSHMEM 1.5 team form) the root's dest gets the data too; the 1.4 active-set
/// form leaves it alone.
void group_broadcast(const char* fn, group& g, void* dest, const void* source, size_t bytes, int root,
                     bool root_receives);
void group_fcollect(const char* fn, group& g, void* dest, const void* source, size_t bytes);
/// Ends the job unless a collect's block of `bytes` at `offset` ends within the `dest_bytes` its dest holds
/// (`reach`: where the members' blocks end, as far as this PE knows).
void check_collect_fits(const char* fn, size_t dest_bytes, size_t offset, size_t bytes, size_t reach);
/// `dest_bytes`: what dest holds, when known (shmemx_collectmem_bounded); a member whose block would end past
/// it ends the job before any data moves.
void group_collect(const char* fn, group& g, void* dest, const void* source, size_t bytes,
                   size_t dest_bytes = SIZE_MAX);
/// Block j (block_bytes) of source goes to member j's dest at block me.
void group_alltoall(const char* fn, group& g, void* dest, const void* source, size_t block_bytes);
/// Strided form: element k of block j is source[(j*nelems + k)*sst] → dest[(me*nelems + k)*dst].
void group_alltoalls(const char* fn, group& g, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                     size_t nelems, size_t elem_bytes);

/// Combines n elements of `in` into `acc` (acc[i] = acc[i] op in[i]).
using combine_fn = void (*)(void* acc, const void* in, size_t n);
/// Reduction over the group: dest[i] = source_0[i] op ... op source_{size-1}[i]. dest may equal source.
void group_reduce(const char* fn, group& g, void* dest, const void* source, size_t nelems, size_t elem_bytes,
                  combine_fn combine);

}  // namespace rdsm::detail
