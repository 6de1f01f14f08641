// rdsm-cachebench: memory reserved PROT_NONE and allocated on first touch in blocks of 2^order pages.
#pragma once

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cachectl/cachectl.hpp"

namespace rdsm::cachebench {

/// A mapping of `pages` pages whose backing is allocated lazily, like a DMA buffer allocator handing
/// out physically contiguous blocks of 2^order pages: the range is reserved PROT_NONE; the first access
/// to a block raises SIGSEGV and the handler maps the whole block read-write and populated
/// (mmap MAP_FIXED | MAP_POPULATE), then the access is retried. release() cleans every block the
/// mapping touched to the point of coherence and gives the blocks back.
///
/// Blocks are aligned to their size. One region may be active (faulting) at a time per process; the
/// handler chains to the previous SIGSEGV disposition for addresses outside it. Not thread safe.
class lazy_region {
 public:
  lazy_region(size_t pages, unsigned order);
  ~lazy_region();
  lazy_region(const lazy_region&) = delete;
  lazy_region& operator=(const lazy_region&) = delete;

  /// First byte of the mapping (pages * page size bytes).
  char* data() const { return base_; }
  size_t bytes() const { return pages_ * page_size_; }
  size_t block_bytes() const { return block_bytes_; }

  /// Blocks mapped so far by the fault handler.
  size_t touched_blocks() const { return touched_count_; }

  /// Issues `insn` over every line of every touched block (no fence).
  void issue_touched(rdsm::detail::cache_insn insn) const;

  /// Returns every touched block to PROT_NONE, freeing its pages (mmap MAP_FIXED over it).
  void unmap_touched();

  /// The SIGSEGV handler (installed by install_fault_handler).
  static void on_fault(int sig, siginfo_t* info, void* context);

 private:

  size_t pages_;
  size_t page_size_;
  size_t block_bytes_;
  size_t blocks_;
  char* raw_ = nullptr;  // the reservation, one block larger than needed so blocks can be aligned
  size_t raw_bytes_ = 0;
  char* base_ = nullptr;
  std::vector<uint32_t> touched_;  // block indices in fault order; sized up front (no allocation in
                                   // the signal handler)
  volatile size_t touched_count_ = 0;
};

/// Installs the SIGSEGV handler (once per process).
void install_fault_handler();

}  // namespace rdsm::cachebench
