// Byte-exact diffs of a page against its twin: the runs of bytes that changed. Byte-exact because the bytes
// around a run may be another writer's, written in the same interval (data-race-free programs write
// disjoint bytes, which then merge at the home).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rdsm::detail::dsm {

/// Calls `run(offset, length)` for each maximal run of bytes where `now` differs from `was` (both `n`
/// bytes), in increasing order. Returns the number of bytes that differ.
template <class Run>
size_t for_each_changed_run(const char* now, const char* was, size_t n, Run&& run) {
  size_t bytes = 0;
  for (size_t i = 0; i < n;) {
    uint64_t a = 0, b = 0;
    while (i + 8 <= n && (std::memcpy(&a, now + i, 8), std::memcpy(&b, was + i, 8), a == b)) i += 8;
    while (i < n && now[i] == was[i]) ++i;
    if (i == n) break;
    size_t j = i + 1;
    while (j < n && now[j] != was[j]) ++j;
    run(i, j - i);
    bytes += j - i;
    i = j;
  }
  return bytes;
}

}  // namespace rdsm::detail::dsm
