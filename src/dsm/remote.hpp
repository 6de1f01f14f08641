// What the release-consistency protocol needs from other PEs: atomics, reads and writes on their DSM
// region (frames and metadata) by offset. The runtime's implementation uses load/store and CPU atomics for
// PEs of this host and UCX for the others; tests/unit drives the protocol's parts through a fake.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rdsm::detail::dsm {

class remote_memory {
 public:
  virtual ~remote_memory() = default;
  /// Atomics on 8-byte words of `pe`'s region (sequentially consistent with each other and with the
  /// caller's loads and stores). load returns the word.
  virtual uint64_t load(int pe, uint64_t offset) = 0;
  /// ORs `bits` into, or adds `value` to, the word at `offset` of `pe`'s region; complete on return.
  virtual void atomic_or(int pe, uint64_t offset, uint64_t bits) = 0;
  virtual void atomic_add(int pe, uint64_t offset, uint64_t value) = 0;
  /// Copies from / to `pe`'s region. read is complete on return; write_nbi is complete at flush().
  virtual void read(int pe, uint64_t offset, void* dst, size_t n) = 0;
  virtual void write_nbi(int pe, uint64_t offset, const void* src, size_t n) = 0;
  /// read() into this PE's own frames (`dst`, at the same `offset`), for a fault's fetch: mostly pages
  /// this PE never copied, where neither its mapping of the peer's frames nor its own has been used, and
  /// a copy by the CPU would take a first touch of each (about 8 us a page on a nested VM). By default,
  /// read.
  virtual void read_first(int pe, uint64_t offset, void* dst, size_t n) { read(pe, offset, dst, n); }
  /// A read complete at flush(): reads issued together overlap their round trips. By default, read.
  virtual void read_nbi(int pe, uint64_t offset, void* dst, size_t n) { read(pe, offset, dst, n); }
  /// Byte runs (offset from `offset`, length) of `src` (which mirrors the region from `offset`) to the
  /// same places of `pe`'s region; complete at flush(). By default one write_nbi per run.
  using run = std::pair<uint32_t, uint32_t>;
  virtual void write_runs(int pe, uint64_t offset, const char* src, const std::vector<run>& runs) {
    for (const run& r : runs) write_nbi(pe, offset + r.first, src + r.first, r.second);
  }
  virtual void flush() = 0;
  /// Whether `pe`'s region is reached by load/store (a read then costs a memcpy, not a transfer).
  virtual bool near(int pe) { return (void)pe, false; }
  /// A load/store pointer to `pe`'s region at `offset`, or nullptr when it is not mapped here.
  virtual char* at(int pe, uint64_t offset) const { return (void)pe, (void)offset, nullptr; }
  /// `pe`'s region as a memory file open here, whose pages can be mapped (offsets as in the region), or -1.
  virtual int file(int pe) { return (void)pe, -1; }
  /// After local stores to this PE's own region that peers read by DMA (cache maintenance; no-op here on x86).
  virtual void written_locally(const void* p, size_t n) { (void)p, (void)n; }
};

}  // namespace rdsm::detail::dsm
