// Sizes from the configuration checked against this host before anything is mapped.
#pragma once

#include <cstdint>
#include <string>

#include "common/config.hpp"
#include "common/status.hpp"

namespace rdsm::detail {

/// Memory this host can back with pages: RAM plus swap (sysinfo), in bytes.
struct host_memory {
  uint64_t ram = 0;
  uint64_t swap = 0;
  uint64_t total() const { return ram + swap; }
};
host_memory host_memory_size();

/// Bookkeeping the DSM keeps per page and PE, at most (page states, homes, the protocol's per-page words).
inline constexpr uint64_t dsm_bytes_per_page = 64;

/// Checks the configuration's sizes against `mem` for `local_pes` PEs on this host out of `n_pes`: each PE's
/// symmetric heap (SHMEM_SYMMETRIC_SIZE) and DSM bookkeeping (RDSM_DSM_SIZE / RDSM_DSM_PAGE_SIZE) must fit,
/// all of this host's PEs together, and so must this host's share of the DSM's pages. An oversized value
/// would otherwise have UCX fill /dev/shm or the machine's memory before failing. The error is one line
/// naming the variable and the largest value that fits.
status check_host_limits(const config& cfg, int local_pes, int n_pes, const host_memory& mem);

/// When neither SHMEM_SYMMETRIC_SIZE nor SMA_SYMMETRIC_SIZE is set and the default heap of every one of the
/// host's `local_pes` PEs would not fit `mem`, lowers cfg.symmetric_size to the largest power of two that does
/// (at least 1 MiB): a job of many PEs that never asked for a size starts, as with other implementations,
/// where a size the user asked for is checked as given (check_host_limits). Every PE of the host computes the
/// same value from the same inputs.
void fit_default_heap(config& cfg, int local_pes, const host_memory& mem);

/// Checks RDSM_DSM_BASE at init, before the DSM is used: an address aligned to 2 MiB, not 0, not below
/// vm.mmap_min_addr, [base, base + RDSM_DSM_SIZE) within the user address space and, when `mappings`,
/// overlapping none of this process's mappings now (/proc/self/maps). One line naming RDSM_DSM_BASE.
status check_dsm_base(const config& cfg, bool mappings);

/// Checks the DSM's page settings at init (and in rdsmrun, for the whole job), before the DSM is used, as a
/// malformed value is: RDSM_DSM_PAGE_SIZE a power of two from 4 KiB (and from this host's page size when
/// `this_host`) to 2 MiB, RDSM_DSM_SIZE from one page to 2^31 pages, RDSM_DSM_PREFETCH 1 to 64, and no
/// sequential mode without the progress thread. One line naming the variable and a value that works.
status check_dsm_settings(const config& cfg, bool this_host);

/// "1.5 GiB", "512.0 MiB", "100 bytes".
std::string format_bytes(uint64_t bytes);

}  // namespace rdsm::detail
