// cachectl: clean / invalidate CPU caches to the point of coherence, chosen per CPU at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.hpp"

namespace rdsm::detail {

/// A byte range [base, base + length). Any alignment and length; operations cover every cache line the
/// range touches, so bytes outside the range but sharing a line with it are maintained too.
struct byte_range {
  const void* base = nullptr;
  size_t length = 0;
};

/// The three maintenance operations, all to the point of coherence (PoC: where the CPU and a DMA
/// device see the same data).
///   clean            write dirty lines back; the lines may stay cached.
///   invalidate       make the next CPU read come from memory. No user-mode instruction discards a line
///                    without writing it back (x86 has none; aarch64 `dc ivac` is EL1-only), so this is
///                    clean+invalidate everywhere: data is never lost, which also keeps partial lines
///                    at a range's edges safe.
///   clean_invalidate write back and evict.
enum class cache_op { clean, invalidate, clean_invalidate };

/// One maintenance instruction. `none` does nothing (the portable fallback).
enum class cache_insn : uint8_t {
  none,
  clflush,     // x86: write back + invalidate, ordered with stores; serialised per line
  clflushopt,  // x86: write back + invalidate, weakly ordered (needs sfence/mfence)
  clwb,        // x86: write back, the line may stay cached (some CPUs evict it anyway)
  dc_cvac,     // aarch64: clean by VA to PoC
  dc_civac,    // aarch64: clean + invalidate by VA to PoC
};

/// What the CPU offers, found once (CPUID on x86, CTR_EL0 on aarch64).
struct cache_features {
  enum class tristate : uint8_t { no, yes, unknown };

  const char* arch = "generic";      // "x86_64", "aarch64" or "generic"
  std::string vendor;                // CPUID vendor string; empty elsewhere
  std::string model;                 // CPUID brand string; empty elsewhere
  size_t line_size = 64;             // bytes stepped per maintenance instruction
  bool clflush = false;
  bool clflushopt = false;
  bool clwb = false;
  bool dc_cvac = false;
  bool dc_civac = false;
  tristate hypervisor = tristate::unknown;  // x86: CPUID.1:ECX[31]; aarch64: not visible at EL0
  std::string hypervisor_vendor;            // x86: CPUID 0x40000000 signature, e.g. "KVMKVMKVM"
  bool dma_coherent = true;          // x86: true; aarch64: assumed false (platform dependent)
};

/// The features of the CPU this process runs on. Thread safe; computed on the first call.
const cache_features& cache_detect();

/// Multi-line human-readable report of cache_detect(): instructions offered, line size, hypervisor.
std::string cache_describe(const cache_features& f);

/// Name of an instruction ("clwb") / operation ("clean_invalidate").
const char* cache_insn_name(cache_insn insn);
const char* cache_op_name(cache_op op);

/// True when this CPU can execute `insn` (`none` is always available).
bool cache_insn_available(cache_insn insn);

/// The instruction cache_clean / cache_invalidate / cache_clean_invalidate use for `op` on this CPU:
/// x86 clean: clwb > clflushopt > clflush; x86 (clean+)invalidate: clflushopt > clflush;
/// aarch64 clean: dc cvac; aarch64 (clean+)invalidate: dc civac; otherwise none.
cache_insn cache_choose(cache_op op);

/// Issues `insn` once per cache line of `range` without a fence: on return the operations are issued
/// but (for weakly ordered instructions) not necessarily complete. Follow with cache_fence().
/// `insn` must be available (checked only in debug builds). Thread safe; no system calls.
void cache_issue(cache_insn insn, byte_range range);

/// Full fence: every earlier load, store and maintenance instruction of this thread is complete (x86
/// mfence; aarch64 dsb sy, which also waits for maintenance to reach the PoC; elsewhere a seq_cst
/// fence).
void cache_fence();

/// Issue with cache_choose(op), then cache_fence(): on return the range is at the point of coherence.
void cache_clean(byte_range range);
void cache_invalidate(byte_range range);
void cache_clean_invalidate(byte_range range);

// ---- DSM hooks ---------------------------------------------------------------------------------

/// RDSM_CACHE_MAINTENANCE: auto = maintain only where DMA is not coherent (not on x86); on = always;
/// off = never.
enum class cache_mode { auto_, on, off };

/// Parses "auto" / "on" / "off" (the config table has already validated the word; this is for callers
/// that bypass it).
result<cache_mode> cache_mode_parse(std::string_view word);

/// Sets the hooks' mode (process wide; default auto). Call once at init, before the hooks run.
void cache_configure(cache_mode mode);

/// Whether the hooks do work under the configured mode on this CPU.
bool cache_maintenance_enabled();

/// Before a device (the NIC) reads `range` by DMA: clean it to the PoC. No-op when disabled.
/// Complete on return. Thread safe, no system calls.
void before_dma_read(byte_range range);

/// After a device wrote `range` by DMA: invalidate it so the CPU reads the new data. No-op when
/// disabled. Complete on return. Thread safe, no system calls.
void after_dma_write(byte_range range);

/// Counters of hook calls that did work (relaxed; for statistics and tests).
struct cache_hook_stats {
  uint64_t cleans = 0;       // before_dma_read calls that maintained
  uint64_t invalidates = 0;  // after_dma_write calls that maintained
  uint64_t lines = 0;        // cache lines the maintenance loop of those calls stepped (one per line touched)
};
cache_hook_stats cache_hook_counters();
void cache_hook_counters_reset();

}  // namespace rdsm::detail
