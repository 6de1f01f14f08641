// Write notices for release consistency: each PE appends the pages it changed to a ring of its own (local
// stores), and an acquire reads every other PE's ring from where it stopped. No PE is a hot spot: a release
// touches only local memory, an acquire one word per peer of its host when nothing changed, and one read of
// a window of entries per peer elsewhere, all in flight together (one round trip for every far peer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dsm/remote.hpp"

namespace rdsm::detail::dsm {

/// Where one PE's ring sits in its region (the same offsets in every PE): a tail word counting every notice
/// ever published, and `capacity` 64-bit entries (notice i at entries[i % capacity]). An entry holds its
/// page in the low half and a tag, the low 32 bits of i + 1, in the high half: a reader knows from the
/// entry alone whether it is notice i, an older one (i not published yet) or a newer one (the ring ran
/// over i), so a far peer's entries are read without its tail, and no entry read while the publisher
/// wrapped onto it is mistaken for another.
struct ring_layout {
  uint64_t tail_offset;
  uint64_t entries_offset;
  uint64_t capacity;
};

class notice_rings {
 public:
  /// `tail` and `entries` are this PE's own ring, at the layout's offsets of its region.
  notice_rings(remote_memory& mem, int my_pe, int n_pes, ring_layout layout, uint64_t* tail, uint64_t* entries);

  /// Appends `pages` to this PE's ring: entries first, then the tail (release). One publisher at a time.
  void publish(const std::vector<uint32_t>& pages);
  /// Appends to `out` the pages every other PE published since the last collect (at least those published
  /// before the collect began). Returns false when some ring ran more than its capacity ahead (its entries
  /// were overwritten): the caller must then treat every copy as stale. One collector at a time.
  bool collect(std::vector<uint32_t>& out);
  uint64_t published() const { return *tail_; }
  /// Entries read from a far peer per round trip: more pending go in further rounds.
  static constexpr uint64_t window = 128;

 private:
  enum class taken { all, ended, overrun };
  taken take(int pe, const uint64_t* entries, uint64_t n, std::vector<uint32_t>& out);
  void read_entries(int pe, uint64_t first, uint64_t n, uint64_t* dst, bool nbi);
  bool overrun(int pe);

  remote_memory& mem_;
  int my_pe_;
  int n_pes_;
  ring_layout layout_;
  uint64_t* tail_;
  uint64_t* entries_;
  std::vector<uint64_t> seen_;     // per PE: notices of its ring already collected
  std::vector<uint64_t> windows_;  // per PE: the entries read in this round
  std::vector<int> far_, more_;    // far peers read in this round, and those with more to read
};

/// Which of a home's pages have copies at other PEs. A PE that takes its first copy of a page sets the
/// page's bit in the home's bitmap; one on the home's host then also counts it in the home's counter (CPU
/// atomics both), one on another host does not (a second round trip would cost more than it saves). The
/// home, at release, looks at the bitmap when the counter moved, or always when some PE is on another
/// host, and takes (clears) the bits it finds below its highest allocated page. Its pages found there are
/// from then on write-tracked: their writes produce notices.
struct tracker_layout {
  uint64_t count_offset;
  uint64_t bits_offset;  // one bit per page
};

class copy_tracker {
 public:
  /// `far_peers`: some PE is on another host (copies are not counted then, and take always looks).
  copy_tracker(remote_memory& mem, tracker_layout layout, uint64_t* count, uint64_t* bits, uint32_t n_pages,
               bool far_peers);
  /// At a PE taking its first copy of `page` from `home`: complete (visible to the home) on return.
  void add_copy(uint32_t page, int home);
  /// At the home (after a full fence): appends the pages below `limit` that gained copies since the last
  /// call. With every peer on this host, nothing to do costs one load.
  void take(uint32_t limit, std::vector<uint32_t>& out);

 private:
  remote_memory& mem_;
  tracker_layout layout_;
  uint64_t* count_;
  uint64_t* bits_;
  uint32_t words_;
  bool far_peers_;
  uint64_t count_seen_ = 0;
};

}  // namespace rdsm::detail::dsm
