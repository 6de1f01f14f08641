// Read-or-write classification of an aarch64 fault: the A64 load/store encoding classes (Arm ARM, "Loads and
// Stores" in the A64 encoding index, plus the DC operations of the system-instruction class) and the ESR
// record of the kernel's signal frame.
#include "dsm/access_decode.hpp"

#include <cstring>

namespace rdsm::detail::dsm {
namespace {

constexpr uint32_t field(uint32_t insn, unsigned hi, unsigned lo) { return (insn >> lo) & ((1u << (hi - lo + 1)) - 1); }
constexpr bool bit(uint32_t insn, unsigned n) { return ((insn >> n) & 1) != 0; }

// Load/store register, every addressing form that has an opc field at 23:22 and V at 26. General registers:
// opc 00 stores; 01 loads; 1x loads sign-extended, or prefetches (size 11, opc 10), both reads. SIMD&FP:
// opc x0 stores (10 is the 128-bit store), x1 loads.
constexpr mem_access by_opc(uint32_t insn) {
  const bool store = bit(insn, 26) ? !bit(insn, 22) : field(insn, 23, 22) == 0;
  return store ? mem_access::write : mem_access::read;
}

constexpr mem_access by_l(uint32_t insn, unsigned l_bit) { return bit(insn, l_bit) ? mem_access::read : mem_access::write; }

// Atomic memory operations: size 111 V 00 A R 1 Rs o3 opc 00 Rn Rt.
constexpr mem_access atomic(uint32_t insn) {
  if (bit(insn, 26)) return mem_access::unknown;  // floating-point atomics (FEAT_LSFE), not classified
  if (!bit(insn, 15)) return mem_access::write;   // o3 0: LDADD LDCLR LDEOR LDSET LD{S,U}{MAX,MIN}, ST* aliases
  switch (field(insn, 14, 12)) {
    case 0b000:  // SWP
    case 0b001:  // ST64B
    case 0b010:  // ST64BV0
    case 0b011:  // ST64BV
      return mem_access::write;
    case 0b100:  // LDAPR
    case 0b101:  // LD64B
      return mem_access::read;
    default:
      return mem_access::unknown;
  }
}

// SYS #op1, C7, Cm, #op2 (DC and IC operations; AT is C7 too). DC ZVA and the MTE DC GVA / DC GZVA write
// (zeros, tags); the other DC operations act on the line as a read does (a data abort from one has CM set
// and reports WnR 1, which is why the ESR path reads CM first). IC, AT and the rest: unknown.
constexpr mem_access system(uint32_t insn) {
  if ((insn & 0xfff8f000) != 0xd5087000) return mem_access::unknown;  // SYS (L 0, op0 01) with CRn 7
  const uint32_t op1 = field(insn, 18, 16), crm = field(insn, 11, 8), op2 = field(insn, 7, 5);
  if (op1 == 3 && crm == 4) return op2 == 1 || op2 == 3 || op2 == 4 ? mem_access::write : mem_access::unknown;
  if (op1 == 0 && (crm == 6 || crm == 10 || crm == 14)) return mem_access::read;   // IVAC, (C,CI)(G)(D)SW, IGVAC...
  if (op1 == 3 && crm >= 10 && crm <= 14) return mem_access::read;                 // CVAC CVAU CVAP CVADP CIVAC...
  return mem_access::unknown;
}

}  // namespace

mem_access aarch64_insn_access(uint32_t insn) noexcept {
  // SIMD load/store multiple structures and single structure, with or without post-index:
  // 0 Q 00110 single post L ...
  if ((insn & 0xbe000000) == 0x0c000000) return by_l(insn, 22);
  // Load/store exclusive, load-acquire/store-release, LORegion, compare and swap: size 001000 o2 L o1 ...
  if ((insn & 0x3f000000) == 0x08000000) {
    const bool o2 = bit(insn, 23), o1 = bit(insn, 21);
    if (o2 && o1) return mem_access::write;                  // CAS{,A,L,AL}{,B,H}
    if (!o2 && o1 && !bit(insn, 31)) return mem_access::write;  // CASP{,A,L,AL} (size 0x); 1x is LDXP/STXP
    return by_l(insn, 22);  // L is the acquire bit of CAS, so CAS is decided above
  }
  // Load register (literal), including PRFM (literal): xx 011 V 00.
  if ((insn & 0x3b000000) == 0x18000000) return mem_access::read;
  // xx 011 0 01: the MTE tag instructions (11011001, bit 21 set), RCpc unscaled (bit 21 clear, bits 11:10
  // 00), and FEAT_MOPS CPY/SET and later RCpc forms (bits 11:10 not 00, left unknown).
  if ((insn & 0x3f000000) == 0x19000000) {
    if ((insn >> 24) == 0xd9 && bit(insn, 21)) {
      // opc 01 / 11 with op2 (11:10) 00 are LDG and LDGM; the rest (STG, STZG, ST2G, STZ2G, STGM, STZGM)
      // write tags.
      return field(insn, 11, 10) == 0 && bit(insn, 22) ? mem_access::read : mem_access::write;
    }
    if (!bit(insn, 21) && field(insn, 11, 10) == 0)
      return field(insn, 23, 22) == 0 ? mem_access::write : mem_access::read;  // STLUR* / LDAPUR*
    return mem_access::unknown;
  }
  // Load/store pair and no-allocate pair (offset, pre-, post-index; LDPSW and STGP too): xx 101 V 0.
  if ((insn & 0x3a000000) == 0x28000000) return by_l(insn, 22);
  // Load/store register: xx 111 V 0.
  if ((insn & 0x3a000000) == 0x38000000) {
    if (bit(insn, 24) || !bit(insn, 21)) return by_opc(insn);  // unsigned offset; unscaled, post, unpriv, pre
    switch (field(insn, 11, 10)) {
      case 0b00:
        return atomic(insn);
      case 0b10:
        return by_opc(insn);  // register offset
      default:                // LDRAA/LDRAB (size 11, V 0), offset or pre-index
        return field(insn, 31, 30) == 3 && !bit(insn, 26) ? mem_access::read : mem_access::unknown;
    }
  }
  return system(insn);
}

std::optional<bool> esr_write_from_records(const unsigned char* reserved, size_t len) noexcept {
  constexpr size_t header = 8;
  size_t at = 0;
  while (at <= len && len - at >= header) {
    uint32_t magic = 0, size = 0;
    std::memcpy(&magic, reserved + at, 4);
    std::memcpy(&size, reserved + at + 4, 4);
    if (magic == 0) return std::nullopt;  // the end record
    if (size < header || size > len - at) return std::nullopt;
    if (magic == esr_record_magic) {
      if (size < header + 8) return std::nullopt;
      uint64_t esr = 0;
      std::memcpy(&esr, reserved + at + header, 8);
      const uint64_t ec = esr >> 26 & 0x3f;
      if (ec != 0x24 && ec != 0x25) return std::nullopt;  // not a data abort: WnR means nothing
      if ((esr >> 8 & 1) != 0) return false;              // CM: cache maintenance, reported as a write
      return (esr >> 6 & 1) != 0;                         // WnR
    }
    at += size;
  }
  return std::nullopt;
}

}  // namespace rdsm::detail::dsm
