// Release consistency without messages (docs/design/dsm.md): the faulting thread copies a page from its
// home itself, writers send byte-exact diffs to the homes at release and publish write notices in rings
// of their own, and an acquire refreshes or drops the copies that other PEs' notices name. Everything
// reaches other PEs through remote_memory, so tests/unit drives the protocol between PEs of one process.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "dsm/notices.hpp"
#include "dsm/page_table.hpp"
#include "dsm/remote.hpp"
#include "rdsm/dsm.h"

namespace rdsm::detail::dsm {

class release_protocol {
 public:
  /// `prefetch`: pages a read fault copies at most. The caller serializes every call (one lock).
  release_protocol(page_table& pages, remote_memory& mem, notice_rings& rings, copy_tracker& tracker, int my_pe,
                   uint32_t prefetch, counters& stats);

  /// Every PE's memory file can be mapped here (one host): non-private pages of other homes are mapped
  /// from their homes instead of copied (map_home_run). Set before the first fault, the same in every PE.
  void map_homes(bool on) { map_homes_ = on; }
  /// Whether pages [first, first + n) may be mapped from their homes (with map_homes): their placement
  /// makes runs of one home long enough. Decided alike in every PE, at allocation.
  void set_mappable(uint32_t first, uint32_t n, bool on) { std::fill_n(mappable_.begin() + first, n, uint8_t{on}); }
  /// A fault on `page` (its home decided) that the page's state does not allow: afterwards it does.
  void fault(uint32_t page, bool write);
  /// Writes this PE's changes back to the homes and publishes their notices.
  void release();
  /// Refreshes or drops the copies other PEs' notices name.
  void acquire();
  /// Pages [first, first + n) start over (allocation, free, advice): no copy told, none tracked or open.
  void forget(uint32_t first, uint32_t n);

 private:
  /// Cleans the home frames this PE may have written, where cache maintenance is on.
  void clean_home_frames();
  /// Whether `page`, of another home, is mapped from it (never copied) in every PE.
  bool mapped_from_home(uint32_t page) const {
    return map_homes_ && mappable_[page] != 0 && pages_.advice(page) != RDSM_DSM_PRIVATE;
  }
  void map_home_run(uint32_t page);
  void fetch_copies(uint32_t page, uint32_t n, page_state opened);  // opened invalid: left unmapped
  void make_twin(uint32_t page);
  void populate_frames(uint32_t page, uint32_t n);  // backs their groups of frames not backed yet
  size_t write_diff(uint32_t page);
  bool send_diff(uint32_t page, std::vector<uint32_t>& notices);
  bool twin_matches(uint32_t page);
  bool stays_open(uint32_t page);
  void release_copies(std::vector<uint32_t>& notices);
  void track_new_copies();
  void release_home_pages(std::vector<uint32_t>& notices);
  void drop_stale(std::vector<uint32_t>& stale);
  bool refresh_far(uint32_t page);

  page_table& pages_;
  remote_memory& mem_;
  notice_rings& rings_;
  copy_tracker& tracker_;
  int my_pe_;
  uint32_t prefetch_;
  counters& stats_;
  bool map_homes_ = false;
  std::vector<uint8_t> mappable_;  // set_mappable

  uint32_t limit_ = 0;            // pages below it have been allocated at some time
  std::vector<uint8_t> copied_;   // this PE told the page's home that it holds copies
  std::vector<uint8_t> tracked_;  // home: other PEs hold copies, so writes are tracked and noticed
  std::vector<uint8_t> idle_;     // open pages: releases in a row that found them unchanged
  std::vector<uint8_t> dropped_;    // copies of far homes dropped at an acquire and not fetched since
  std::vector<uint8_t> streak_;     // ... refreshes granted when last fetched again after a drop
  std::vector<uint8_t> refreshes_;  // ... refreshes left before the next drop (refresh_far)
  static constexpr uint32_t populate_group = 16;  // frames backed together
  std::vector<uint8_t> frames_ready_;
  // Written pages are found at release either by a fault (the page was read-only) or, for pages written
  // in the previous interval too, by comparing with their twin while they stay writable: a page written
  // in every interval (a halo row, a locked counter) costs a comparison per release, not a fault.
  std::vector<uint32_t> dirty_;       // writable copies (each has a twin): compared and diffed at release
  std::vector<uint32_t> home_dirty_;  // tracked home pages that faulted on a write (or may have been written)
  std::vector<uint32_t> home_hot_;    // tracked home pages kept writable with a twin, compared at release
  std::vector<uint32_t> flushed_;     // copies written back early (at an acquire): noticed at the next release
  std::vector<remote_memory::run> runs_;  // write_diff's scratch
};

}  // namespace rdsm::detail::dsm
