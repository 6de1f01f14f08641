// Whether a faulting access was a read or a write, from what the fault handler can see on aarch64: the
// kernel's ESR record in the signal frame, or else the instruction at the PC. Pure functions, built on every
// architecture so that they are tested everywhere; only fault.cpp's aarch64 branch calls them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace rdsm::detail::dsm {

enum class mem_access { read, write, unknown };

/// Classifies one A64 instruction word by the access it makes to the memory it addresses: `write` for any
/// instruction that may store there (stores, CAS, atomics, STG and the tag-setting family, DC ZVA/GVA/GZVA),
/// `read` for loads, prefetches, LDAPR, LDRAA/LDRAB and the other DC maintenance operations, and `unknown`
/// for everything else (not a memory access, or an encoding this does not classify, such as FEAT_MOPS's
/// CPY and SET, which both read and write). Async-signal-safe: no allocation, no state.
[[nodiscard]] mem_access aarch64_insn_access(uint32_t insn) noexcept;

/// The ESR record's magic and the end-of-records magic in an aarch64 signal frame (the kernel's ABI:
/// <asm/sigcontext.h>), repeated here so that the parser builds and is tested on any architecture.
inline constexpr uint32_t esr_record_magic = 0x45535201;
inline constexpr uint32_t fpsimd_record_magic = 0x46508001;

/// Walks the records of an aarch64 `uc_mcontext.__reserved` area (`len` bytes; each record a
/// {uint32 magic; uint32 size} header, the last with magic 0) for the ESR record. Returns whether the
/// fault was a write (ESR bit 6, WnR) when the record holds a data abort (EC 0x24 or 0x25); a cache
/// maintenance abort (ISS bit 8, CM) is a read whatever WnR says. Returns nullopt when there is no ESR
/// record, the ESR is not a data abort, or the chain is malformed (a size smaller than a header, or a
/// record that would run past `len`). Reads with memcpy, so `reserved` needs no alignment.
/// Async-signal-safe.
[[nodiscard]] std::optional<bool> esr_write_from_records(const unsigned char* reserved, size_t len) noexcept;

}  // namespace rdsm::detail::dsm
