// The program's global and static variables as a symmetric region, shared with PEs on the same host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace rdsm::detail {

/// The main program's writable load segment (.data and .bss), page-aligned.
struct data_segment {
  uintptr_t start = 0;
  size_t length = 0;
  uintptr_t relro_end = 0;  // [start, relro_end) is read-only after relocation (PT_GNU_RELRO)
};

data_segment find_data_segment();

/// Moves the segment's pages onto a memory file, in place and with the same contents, so that PEs on this
/// host can map them: global variables become load/store targets like the heap. Pages that hold only zeros
/// (a large array never touched) stay holes of the file: they cost neither time nor memory. Other threads may
/// go on using globals meanwhile: a store waits until the file is mapped (a SIGSEGV handler, installed for
/// the life of the process, that passes every other fault on). Returns the descriptor for peers to open via
/// /proc, which stays open, owned here, for the life of the process: a child the process forks, even after
/// shmem_finalize, gets a private copy-on-write mapping of it in place of the shared one (its stores are its
/// own, as POSIX has it; it may see stores made to the file after fork to pages it has not written yet).
result<int> share_data_segment(const data_segment& seg);

/// Creates a zero-filled shared mapping of `bytes` on a new memory file named `name` (mode 0600: only this
/// user's processes reach it), starting at a multiple of `alignment` (a power of two, at least a page),
/// described by `out`; returns the descriptor for peers, as share_data_segment does.
result<int> create_shared_area(const char* name, size_t bytes, size_t alignment, data_segment& out);

/// A region of this PE on a memory file and the same region of each peer of this host, mapped here.
struct shared_region {
  data_segment area;
  int fd = -1;               // kept open while the job runs: peers reopen it through /proc
  std::vector<void*> peers;  // by PE: the peer's region mapped here, this PE's own, or nullptr
  std::vector<int> files;    // by PE: the peer's memory file, kept open where asked for (else empty), or -1
};

/// What a PE publishes so peers can map its segment: host identity, pid, descriptor and length.
std::string describe_shared_segment(const data_segment& seg, int fd);

/// Maps each peer's shared segment where the peer is on this host and its description can be opened.
/// Entries stay nullptr otherwise (the transport is used for those peers). `my_pe`'s entry is `seg.start`.
/// With `files`, each mapped peer's memory file also stays open there (by PE, -1 where none), so that its
/// pages can be mapped elsewhere too.
std::vector<void*> map_peer_segments(const data_segment& seg, const std::vector<std::string>& descriptions,
                                     int my_pe, std::vector<int>* files = nullptr);

/// Unmaps what map_peer_segments mapped and closes the files it kept.
void unmap_peer_segments(const data_segment& seg, std::vector<void*>& maps, int my_pe, std::vector<int>& files);

}  // namespace rdsm::detail
